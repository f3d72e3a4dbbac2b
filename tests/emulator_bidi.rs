//! What only the v2 API has, on the emulator over real HTTP/2, driven by the
//! published client stubs: BidiReadObject (many ranges on one stream, read
//! ids, 2 MiB pieces each with its crc32c, range ends, read handles, errors
//! per range, faults mid-stream) and appendable objects (BidiWriteObject
//! with `appendable`, flush and state lookup, reads of the unfinalized
//! object, takeover by generation, finalize). Every expected byte and
//! crc32c is computed here from the payload the test uploaded.

mod common;
use common::*;
use futures::SinkExt;
use futures::channel::mpsc;
use gcs_speed_tui::gcs::payload::random_bytes;
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use pb::bidi_write_object_request::{Data, FirstMessage};
use pb::bidi_write_object_response::WriteStatus;
use pb::storage_client::StorageClient;
use prost::Message;
use std::collections::BTreeMap;
use tonic::Code;
use tonic::transport::Channel;

const RESOURCE: &str = "projects/_/buckets/test-bucket";
const TWO_MIB: usize = 2 << 20;

async fn client(emulator: &gcs_speed_tui::emulator::Emulator) -> StorageClient<Channel> {
    let channel = Channel::from_shared(format!("http://{}", emulator.grpc_addr())).unwrap().connect().await.unwrap();
    StorageClient::new(channel).max_decoding_message_size(64 << 20).max_encoding_message_size(64 << 20)
}

async fn retaining() -> gcs_speed_tui::emulator::Emulator {
    emulator_with(gcs_speed_tui::emulator::EmulatorOptions { retain: true, ..Default::default() }).await
}

fn data_message(data: &[u8], offset: usize) -> pb::BidiWriteObjectRequest {
    let content = bytes::Bytes::copy_from_slice(data);
    pb::BidiWriteObjectRequest {
        write_offset: offset as i64,
        data: Some(Data::ChecksummedData(pb::ChecksummedData { crc32c: Some(crc32c::crc32c(&content)), content })),
        ..Default::default()
    }
}

/// Uploads `data` as `name` in one BidiWriteObject; its generation.
async fn upload(client: &mut StorageClient<Channel>, name: &str, data: &[u8]) -> i64 {
    let spec = pb::WriteObjectSpec {
        resource: Some(pb::Object { bucket: RESOURCE.into(), name: name.into(), ..Default::default() }),
        ..Default::default()
    };
    let mut requests: Vec<_> = data.chunks(TWO_MIB).enumerate().map(|(i, c)| data_message(c, i * TWO_MIB)).collect();
    requests[0].first_message = Some(FirstMessage::WriteObjectSpec(spec));
    requests.last_mut().unwrap().finish_write = true;
    let mut answers = client.bidi_write_object(futures::stream::iter(requests)).await.unwrap().into_inner();
    match answers.message().await.unwrap().and_then(|a| a.write_status) {
        Some(WriteStatus::Resource(object)) => object.generation,
        other => panic!("expected the object, got {other:?}"),
    }
}

fn read_spec(name: &str) -> pb::BidiReadObjectSpec {
    pb::BidiReadObjectSpec { bucket: RESOURCE.into(), object: name.into(), ..Default::default() }
}

fn range(read_offset: i64, read_length: i64, read_id: i64) -> pb::ReadRange {
    pb::ReadRange { read_offset, read_length, read_id }
}

/// A BidiReadObject stream: its request side and its answers.
struct ReadStream {
    requests: mpsc::UnboundedSender<pb::BidiReadObjectRequest>,
    answers: tonic::Streaming<pb::BidiReadObjectResponse>,
}

async fn open_read(
    client: &mut StorageClient<Channel>,
    first: pb::BidiReadObjectRequest,
) -> Result<ReadStream, tonic::Status> {
    let (requests, outgoing) = mpsc::unbounded();
    requests.unbounded_send(first).unwrap();
    let answers = client.bidi_read_object(outgoing).await?.into_inner();
    Ok(ReadStream { requests, answers })
}

/// Every piece received, in order: (read_id, offset, content, range_end).
type Pieces = Vec<(i64, i64, bytes::Bytes, bool)>;

/// Reads answers to the end, checking each piece's crc32c and size.
async fn pieces(answers: &mut tonic::Streaming<pb::BidiReadObjectResponse>) -> Result<Pieces, tonic::Status> {
    let mut out = Vec::new();
    while let Some(answer) = answers.message().await? {
        for entry in answer.object_data_ranges {
            let data = entry.checksummed_data.unwrap();
            assert_eq!(data.crc32c, Some(crc32c::crc32c(&data.content)), "each piece carries its own crc32c");
            assert!(data.content.len() <= TWO_MIB, "pieces are at most 2 MiB");
            let read_range = entry.read_range.unwrap();
            out.push((read_range.read_id, read_range.read_offset, data.content, entry.range_end));
        }
    }
    Ok(out)
}

/// Each read id's bytes, checked to arrive in order and end exactly once.
fn by_id(pieces: &Pieces) -> BTreeMap<i64, Vec<u8>> {
    let mut ranges: BTreeMap<i64, (i64, Vec<u8>, bool)> = BTreeMap::new();
    for (id, offset, content, end) in pieces {
        let (start, bytes, ended) = ranges.entry(*id).or_insert((*offset, Vec::new(), false));
        assert!(!*ended, "read id {id} got a piece after its end");
        assert_eq!(*offset, *start + bytes.len() as i64, "read id {id}'s pieces arrive in order");
        bytes.extend_from_slice(content);
        *ended = *end;
    }
    assert!(ranges.values().all(|(_, _, ended)| *ended), "every range ends");
    ranges.into_iter().map(|(id, (_, bytes, _))| (id, bytes)).collect()
}

#[tokio::test]
async fn many_ranges_on_one_stream_arrive_whole_in_order_and_interleaved() {
    let emulator = retaining().await;
    let mut client = client(&emulator).await;
    let size = 5 * MIB as usize + 777;
    let payload = random_bytes(size, 24);
    let generation = upload(&mut client, "bidi/ranges.bin", &payload).await;
    let first = pb::BidiReadObjectRequest {
        read_object_spec: Some(read_spec("bidi/ranges.bin")),
        read_ranges: vec![range(0, 3 * MIB as i64, 1 << 50), range(-100, 0, 2), range(MIB as i64, 10, 3)],
    };
    let mut stream = open_read(&mut client, first).await.unwrap();
    let head = stream.answers.message().await.unwrap().unwrap();
    let metadata = head.metadata.expect("the first answer has the object's metadata");
    assert_eq!((metadata.size, metadata.generation), (size as i64, generation));
    assert!(head.read_handle.is_some_and(|h| !h.handle.is_empty()), "and a read handle");
    // A range asked for later, on the same stream: 0 bytes long means to the end.
    stream
        .requests
        .unbounded_send(pb::BidiReadObjectRequest {
            read_ranges: vec![range(5 * MIB as i64, 0, 4)],
            ..Default::default()
        })
        .unwrap();
    stream.requests.close_channel();
    let received = pieces(&mut stream.answers).await.unwrap();
    let ranges = by_id(&received);
    let expected: BTreeMap<i64, Vec<u8>> = [
        (1 << 50, payload[..3 * MIB as usize].to_vec()),
        (2, payload[size - 100..].to_vec()),
        (3, payload[MIB as usize..MIB as usize + 10].to_vec()),
        (4, payload[5 * MIB as usize..].to_vec()),
    ]
    .into();
    assert_eq!(ranges.len(), expected.len());
    for (id, bytes) in &expected {
        assert!(ranges[id] == *bytes, "read id {id}: {} bytes, {} expected", ranges[id].len(), bytes.len());
    }
    let ids: Vec<i64> = received.iter().map(|(id, ..)| *id).collect();
    let first_of_big = ids.iter().position(|&id| id == 1 << 50).unwrap();
    let last_of_big = ids.iter().rposition(|&id| id == 1 << 50).unwrap();
    assert!(ids[first_of_big..last_of_big].iter().any(|&id| id != 1 << 50), "ranges take turns: {ids:?}");
}

#[tokio::test]
async fn bad_ranges_and_reused_ids_end_the_stream_naming_them() {
    let emulator = retaining().await;
    let mut client = client(&emulator).await;
    upload(&mut client, "bidi/small.bin", &random_bytes(1000, 3)).await;
    let first = pb::BidiReadObjectRequest {
        read_object_spec: Some(read_spec("bidi/small.bin")),
        read_ranges: vec![range(10, 5, 7), range(5000, 10, 8)],
    };
    let mut stream = open_read(&mut client, first).await.unwrap();
    let error = loop {
        match stream.answers.message().await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream ended without an error"),
            Err(status) => break status,
        }
    };
    assert_eq!(error.code(), Code::OutOfRange, "{error:?}");
    let details = googleapis_tonic_google_storage_v2::google::rpc::Status::decode(error.details()).unwrap();
    let range_errors = pb::BidiReadObjectError::decode(&details.details[0].value[..]).unwrap();
    let ids: Vec<i64> = range_errors.read_range_errors.iter().map(|e| e.read_id).collect();
    assert_eq!(ids, [8], "only the range past the end is named");

    let reused = pb::BidiReadObjectRequest {
        read_object_spec: Some(read_spec("bidi/small.bin")),
        read_ranges: vec![range(0, 5, 1), range(5, 5, 1)],
    };
    let mut stream = open_read(&mut client, reused).await.unwrap();
    let error = pieces(&mut stream.answers).await.unwrap_err();
    assert_eq!(error.code(), Code::InvalidArgument, "{error:?}");
}

#[tokio::test]
async fn a_read_handle_opens_without_metadata_and_stays_on_its_generation() {
    let emulator = retaining().await;
    let mut client = client(&emulator).await;
    let payload = random_bytes(4096, 5);
    upload(&mut client, "bidi/handle.bin", &payload).await;
    let first = pb::BidiReadObjectRequest { read_object_spec: Some(read_spec("bidi/handle.bin")), read_ranges: vec![] };
    let mut stream = open_read(&mut client, first).await.unwrap();
    let handle = stream.answers.message().await.unwrap().unwrap().read_handle.unwrap();
    stream.requests.close_channel();
    assert!(pieces(&mut stream.answers).await.unwrap().is_empty(), "no ranges, no data");

    let spec = pb::BidiReadObjectSpec { read_handle: Some(handle.clone()), ..read_spec("bidi/handle.bin") };
    let again =
        pb::BidiReadObjectRequest { read_object_spec: Some(spec.clone()), read_ranges: vec![range(100, 50, 9)] };
    let mut stream = open_read(&mut client, again.clone()).await.unwrap();
    stream.requests.close_channel();
    let head = stream.answers.message().await.unwrap().unwrap();
    assert!(head.metadata.is_none(), "a handle's stream has no metadata");
    let received = by_id(&pieces(&mut stream.answers).await.unwrap());
    assert!(received[&9] == payload[100..150]);

    upload(&mut client, "bidi/handle.bin", &random_bytes(4096, 6)).await;
    let error = open_read(&mut client, again).await.err().expect("a new generation: the handle is stale");
    assert_eq!(error.code(), Code::NotFound, "{error:?}");
}

#[tokio::test]
async fn a_fault_mid_stream_fails_it_after_its_bytes_naming_the_ranges_left() {
    let emulator = retaining().await;
    let mut client = client(&emulator).await;
    upload(&mut client, "bidi/fault.bin", &random_bytes(3 * MIB as usize, 8)).await;
    let first = pb::BidiReadObjectRequest {
        read_object_spec: Some(read_spec("bidi/fault.bin")),
        read_ranges: vec![range(0, MIB as i64, 1), range(MIB as i64, MIB as i64, 2)],
    };
    let (requests, outgoing) = mpsc::unbounded();
    requests.unbounded_send(first).unwrap();
    let mut request = tonic::Request::new(outgoing);
    request.metadata_mut().insert("x-goog-emulator-instructions", "return-503-after-1500000".parse().unwrap());
    let mut answers = client.bidi_read_object(request).await.unwrap().into_inner();
    let mut received = 0;
    let error = loop {
        match answers.message().await {
            Ok(Some(answer)) => {
                received += answer
                    .object_data_ranges
                    .iter()
                    .map(|r| r.checksummed_data.as_ref().unwrap().content.len())
                    .sum::<usize>()
            }
            Ok(None) => panic!("the fault did not fire"),
            Err(status) => break status,
        }
    };
    assert_eq!((error.code(), received), (Code::Unavailable, 1_500_000), "{error:?}");
    let details = googleapis_tonic_google_storage_v2::google::rpc::Status::decode(error.details()).unwrap();
    let left = pb::BidiReadObjectError::decode(&details.details[0].value[..]).unwrap();
    // 1 MiB of range 1 and 451,424 bytes of range 2 arrived: range 2 is outstanding.
    assert_eq!(left.read_range_errors.iter().map(|e| e.read_id).collect::<Vec<_>>(), [2]);
    drop(requests);
}

#[path = "emulator_bidi/appendable.rs"]
mod appendable;
