//! The emulator's gRPC v2 API over real HTTP/2, driven by the published
//! client stubs: both write RPCs, resumable sessions, status, cancel, get,
//! delete, checksum and offset checks, bucket names, faults.

mod common;
use common::*;
use gcs_speed_tui::gcs::payload::random_bytes;
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use pb::bidi_write_object_request::{Data, FirstMessage};
use pb::bidi_write_object_response::WriteStatus;
use pb::storage_client::StorageClient;
use tonic::Code;
use tonic::transport::Channel;

const RESOURCE: &str = "projects/_/buckets/test-bucket";
const TWO_MIB: usize = 2 << 20;

async fn client(emulator: &gcs_speed_tui::emulator::Emulator) -> StorageClient<Channel> {
    let channel = Channel::from_shared(format!("http://{}", emulator.grpc_addr())).unwrap().connect().await.unwrap();
    StorageClient::new(channel).max_decoding_message_size(64 << 20).max_encoding_message_size(64 << 20)
}

fn spec(name: &str, size: Option<usize>) -> pb::WriteObjectSpec {
    pb::WriteObjectSpec {
        resource: Some(pb::Object { bucket: RESOURCE.into(), name: name.into(), ..Default::default() }),
        if_generation_match: Some(0),
        object_size: size.map(|s| s as i64),
        ..Default::default()
    }
}

/// Messages of at most 2 MiB covering data[start..end], with crc32c each.
fn messages(data: &[u8], start: usize, end: usize, first: Option<FirstMessage>) -> Vec<pb::BidiWriteObjectRequest> {
    let mut out = Vec::new();
    let mut first = first;
    let mut offset = start;
    while offset < end {
        let next = (offset + TWO_MIB).min(end);
        let content = bytes::Bytes::copy_from_slice(&data[offset..next]);
        out.push(pb::BidiWriteObjectRequest {
            first_message: first.take(),
            write_offset: offset as i64,
            data: Some(Data::ChecksummedData(pb::ChecksummedData { crc32c: Some(crc32c::crc32c(&content)), content })),
            ..Default::default()
        });
        offset = next;
    }
    out
}

fn finish(mut messages: Vec<pb::BidiWriteObjectRequest>, data: &[u8]) -> Vec<pb::BidiWriteObjectRequest> {
    let last = messages.last_mut().unwrap();
    last.finish_write = true;
    last.object_checksums = Some(pb::ObjectChecksums { crc32c: Some(crc32c::crc32c(data)), ..Default::default() });
    messages
}

async fn bidi(
    client: &mut StorageClient<Channel>,
    requests: Vec<pb::BidiWriteObjectRequest>,
) -> Result<Vec<WriteStatus>, tonic::Status> {
    let mut stream = client.bidi_write_object(futures::stream::iter(requests)).await?.into_inner();
    let mut statuses = Vec::new();
    while let Some(response) = stream.message().await? {
        statuses.extend(response.write_status);
    }
    Ok(statuses)
}

fn resource(statuses: &[WriteStatus]) -> &pb::Object {
    match statuses.last() {
        Some(WriteStatus::Resource(object)) => object,
        other => panic!("expected a finished object, got {other:?}"),
    }
}

#[tokio::test]
async fn bidi_one_shot_writes_in_2mib_messages_with_checksums() {
    let emulator = emulator().await;
    let mut client = client(&emulator).await;
    let data = random_bytes(5 * 1024 * 1024 + 17, 1);
    let requests = finish(
        messages(&data, 0, data.len(), Some(FirstMessage::WriteObjectSpec(spec("one.bin", Some(data.len()))))),
        &data,
    );
    let statuses = bidi(&mut client, requests).await.unwrap();
    let object = resource(&statuses);
    assert_eq!(object.size as usize, data.len());
    assert_eq!(object.bucket, RESOURCE);
    assert_eq!(object.checksums.as_ref().unwrap().crc32c, Some(crc32c::crc32c(&data)));
    assert_eq!(emulator.store().get(BUCKET, "one.bin").unwrap().size as usize, data.len());
    assert_eq!(emulator.store().checksums_verified.load(std::sync::atomic::Ordering::Relaxed), 1);

    let got = client
        .get_object(pb::GetObjectRequest { bucket: RESOURCE.into(), object: "one.bin".into(), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(got.into_inner().generation, object.generation);
}

#[tokio::test]
async fn write_object_client_streaming_works_too() {
    let emulator = emulator().await;
    let mut client = client(&emulator).await;
    let data = random_bytes(3000, 2);
    let request = pb::WriteObjectRequest {
        first_message: Some(pb::write_object_request::FirstMessage::WriteObjectSpec(spec("w.bin", None))),
        data: Some(pb::write_object_request::Data::ChecksummedData(pb::ChecksummedData {
            content: data.clone(),
            crc32c: Some(crc32c::crc32c(&data)),
        })),
        finish_write: true,
        ..Default::default()
    };
    let response = client.write_object(futures::stream::iter([request])).await.unwrap().into_inner();
    let Some(pb::write_object_response::WriteStatus::Resource(object)) = response.write_status else {
        panic!("no object")
    };
    assert_eq!(object.size, 3000);
}

/// The ingest reads data as the HTTP/2 frames' own buffers: what it keeps must
/// be the bytes sent, across frame seams and when a resent message overlaps.
#[tokio::test]
async fn retained_writes_keep_exactly_the_bytes_sent_even_when_resent() {
    let emulator = emulator_with(gcs_speed_tui::emulator::EmulatorOptions { retain: true, ..Default::default() }).await;
    let mut client = client(&emulator).await;
    let data = random_bytes(5 * TWO_MIB / 2 + 333, 3);
    let start =
        pb::StartResumableWriteRequest { write_object_spec: Some(spec("kept.bin", None)), ..Default::default() };
    let upload_id = client.start_resumable_write(start).await.unwrap().into_inner().upload_id;
    let first = messages(&data, 0, 3 * TWO_MIB / 2, Some(FirstMessage::UploadId(upload_id.clone())));
    bidi(&mut client, first).await.unwrap();
    // The second stream starts 1 MiB + 5 in: its first message is partly persisted already.
    let rest = messages(&data, TWO_MIB / 2 + 5, data.len(), Some(FirstMessage::UploadId(upload_id)));
    let statuses = bidi(&mut client, finish(rest, &data)).await.unwrap();
    assert_eq!(resource(&statuses).size as usize, data.len());
    let url = format!("{}/storage/v1/b/{BUCKET}/o/kept.bin?alt=media", emulator.json_url());
    let kept = http().get(url).send().await.unwrap().bytes().await.unwrap();
    assert!(kept == data, "the kept bytes differ from those sent");
}

#[tokio::test]
async fn resumable_writes_answer_state_lookups_and_resume_from_persisted() {
    let emulator = emulator().await;
    let mut client = client(&emulator).await;
    let data = random_bytes(6 << 20, 3);
    let start = pb::StartResumableWriteRequest {
        write_object_spec: Some(spec("r.bin", Some(data.len()))),
        ..Default::default()
    };
    let upload_id = client.start_resumable_write(start).await.unwrap().into_inner().upload_id;

    // First chunk (4 MiB) with flush + state_lookup on its last message; the stream then ends.
    let mut chunk = messages(&data, 0, 4 << 20, Some(FirstMessage::UploadId(upload_id.clone())));
    let last = chunk.last_mut().unwrap();
    last.flush = true;
    last.state_lookup = true;
    let statuses = bidi(&mut client, chunk).await.unwrap();
    assert!(matches!(statuses[0], WriteStatus::PersistedSize(n) if n == 4 << 20), "{statuses:?}");

    let status = client
        .query_write_status(pb::QueryWriteStatusRequest { upload_id: upload_id.clone(), ..Default::default() })
        .await
        .unwrap();
    assert!(
        matches!(status.into_inner().write_status, Some(pb::query_write_status_response::WriteStatus::PersistedSize(n)) if n == 4 << 20)
    );

    // A new stream resumes with overlap: bytes below the persisted size are skipped.
    let rest = finish(messages(&data, 2 << 20, data.len(), Some(FirstMessage::UploadId(upload_id.clone()))), &data);
    let statuses = bidi(&mut client, rest).await.unwrap();
    assert_eq!(resource(&statuses).size as usize, data.len());
    assert_eq!(emulator.store().get(BUCKET, "r.bin").unwrap().crc32c, crc32c::crc32c(&data));

    let status =
        client.query_write_status(pb::QueryWriteStatusRequest { upload_id, ..Default::default() }).await.unwrap();
    assert!(matches!(
        status.into_inner().write_status,
        Some(pb::query_write_status_response::WriteStatus::Resource(_))
    ));
}

#[tokio::test]
async fn cancelled_sessions_are_not_found() {
    let emulator = emulator().await;
    let mut client = client(&emulator).await;
    let start = pb::StartResumableWriteRequest { write_object_spec: Some(spec("c.bin", None)), ..Default::default() };
    let upload_id = client.start_resumable_write(start).await.unwrap().into_inner().upload_id;
    client.cancel_resumable_write(pb::CancelResumableWriteRequest { upload_id: upload_id.clone() }).await.unwrap();
    let error =
        client.query_write_status(pb::QueryWriteStatusRequest { upload_id, ..Default::default() }).await.unwrap_err();
    assert_eq!(error.code(), Code::NotFound);
}

#[tokio::test]
async fn checksums_offsets_and_sizes_are_checked() {
    let emulator = emulator().await;
    let mut client = client(&emulator).await;
    let data = random_bytes(3 << 20, 4);

    let mut bad_message = messages(&data, 0, data.len(), Some(FirstMessage::WriteObjectSpec(spec("a", None))));
    if let Some(Data::ChecksummedData(d)) = &mut bad_message[1].data {
        d.crc32c = Some(0xdead_beef);
    }
    let error = bidi(&mut client, finish(bad_message, &data)).await.unwrap_err();
    assert_eq!(error.code(), Code::InvalidArgument);
    assert!(error.message().contains("crc32c"));

    let mut bad_object =
        finish(messages(&data, 0, data.len(), Some(FirstMessage::WriteObjectSpec(spec("b", None)))), &data);
    bad_object.last_mut().unwrap().object_checksums =
        Some(pb::ObjectChecksums { crc32c: Some(1), ..Default::default() });
    assert_eq!(bidi(&mut client, bad_object).await.unwrap_err().code(), Code::InvalidArgument);

    let mut gap = messages(&data, 0, data.len(), Some(FirstMessage::WriteObjectSpec(spec("c", None))));
    gap[1].write_offset += 1;
    assert_eq!(bidi(&mut client, finish(gap, &data)).await.unwrap_err().code(), Code::OutOfRange);

    let wrong_size = finish(
        messages(&data, 0, data.len(), Some(FirstMessage::WriteObjectSpec(spec("d", Some(data.len() + 1))))),
        &data,
    );
    assert_eq!(bidi(&mut client, wrong_size).await.unwrap_err().code(), Code::InvalidArgument);

    let unfinished = messages(&data, 0, data.len(), Some(FirstMessage::WriteObjectSpec(spec("e", None))));
    assert_eq!(bidi(&mut client, unfinished).await.unwrap_err().code(), Code::InvalidArgument);

    assert_eq!(emulator.store().object_count(), 0, "nothing is created by a failed write");
}

#[tokio::test]
async fn bucket_names_must_be_resource_names() {
    let emulator = emulator().await;
    let mut client = client(&emulator).await;
    let mut bare = spec("x", None);
    bare.resource.as_mut().unwrap().bucket = BUCKET.into();
    let data = random_bytes(10, 5);
    let error = bidi(&mut client, finish(messages(&data, 0, 10, Some(FirstMessage::WriteObjectSpec(bare))), &data))
        .await
        .unwrap_err();
    assert_eq!(error.code(), Code::NotFound);
    assert!(error.message().contains("projects/_/buckets/"));
}

#[tokio::test]
async fn deletes_need_the_right_generation() {
    let emulator = emulator().await;
    let mut client = client(&emulator).await;
    let data = random_bytes(100, 6);
    let statuses = bidi(
        &mut client,
        finish(messages(&data, 0, 100, Some(FirstMessage::WriteObjectSpec(spec("del", None)))), &data),
    )
    .await
    .unwrap();
    let generation = resource(&statuses).generation;
    let delete = |g| pb::DeleteObjectRequest {
        bucket: RESOURCE.into(),
        object: "del".into(),
        if_generation_match: Some(g),
        ..Default::default()
    };
    assert_eq!(client.delete_object(delete(generation + 1)).await.unwrap_err().code(), Code::FailedPrecondition);
    client.delete_object(delete(generation)).await.unwrap();
    assert_eq!(client.delete_object(delete(generation)).await.unwrap_err().code(), Code::NotFound);
}

#[tokio::test]
async fn metadata_faults_map_to_grpc_codes_and_keep_persisted_bytes() {
    let emulator = emulator().await;
    let mut client = client(&emulator).await;
    let data = random_bytes(1 << 20, 7);
    let mut request = tonic::Request::new(futures::stream::iter(finish(
        messages(&data, 0, data.len(), Some(FirstMessage::WriteObjectSpec(spec("f", None)))),
        &data,
    )));
    request.metadata_mut().insert("x-goog-emulator-instructions", "return-503".parse().unwrap());
    let error = client.bidi_write_object(request).await.unwrap_err();
    assert_eq!(error.code(), Code::Unavailable);

    let start = pb::StartResumableWriteRequest { write_object_spec: Some(spec("g", None)), ..Default::default() };
    let upload_id = client.start_resumable_write(start).await.unwrap().into_inner().upload_id;
    emulator.faults().queue(gcs_speed_tui::emulator::faults::Fault::parse("return-503-after-256K").unwrap());
    let error = bidi(
        &mut client,
        finish(messages(&data, 0, data.len(), Some(FirstMessage::UploadId(upload_id.clone()))), &data),
    )
    .await
    .unwrap_err();
    assert_eq!(error.code(), Code::Unavailable);
    let status =
        client.query_write_status(pb::QueryWriteStatusRequest { upload_id, ..Default::default() }).await.unwrap();
    assert!(
        matches!(status.into_inner().write_status, Some(pb::query_write_status_response::WriteStatus::PersistedSize(n)) if n == 256 * 1024)
    );

    emulator.faults().queue(gcs_speed_tui::emulator::faults::Fault::parse("return-reset-connection").unwrap());
    let reset = bidi(
        &mut client,
        finish(messages(&data, 0, data.len(), Some(FirstMessage::WriteObjectSpec(spec("h", None)))), &data),
    )
    .await;
    assert!(reset.is_err(), "the connection was dropped");
    assert_eq!(emulator.store().object_count(), 0);
}

#[tokio::test]
async fn unknown_methods_are_unimplemented() {
    let emulator = emulator().await;
    let mut client = client(&emulator).await;
    let error = client.compose_object(pb::ComposeObjectRequest::default()).await.unwrap_err();
    assert_eq!(error.code(), Code::Unimplemented);
}

#[tokio::test]
async fn list_objects_pages_by_name_under_a_prefix() {
    let emulator = emulator().await;
    let http = http();
    for name in ["data/c", "data/a", "data/b", "other/x"] {
        let url = format!("{}/upload/storage/v1/b/{BUCKET}/o?uploadType=media&name={name}", emulator.json_url());
        assert!(http.post(url).body("bytes").send().await.unwrap().status().is_success());
    }
    let mut client = client(&emulator).await;
    let list = |page_token: String| pb::ListObjectsRequest {
        parent: RESOURCE.into(),
        prefix: "data/".into(),
        page_size: 2,
        page_token,
        ..Default::default()
    };
    let first = client.list_objects(list(String::new())).await.unwrap().into_inner();
    let names: Vec<_> = first.objects.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["data/a", "data/b"]);
    let second = client.list_objects(list(first.next_page_token)).await.unwrap().into_inner();
    assert_eq!(second.objects.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(), ["data/c"]);
    assert!(second.next_page_token.is_empty(), "the last page says so");
}
