//! `ReadObject`: the object (or `read_offset`/`read_limit` of it) streamed
//! in 2 MiB messages, each with its own crc32c, the first also carrying the
//! object's metadata, checksums and the content range. Messages are framed
//! here around slices of the stored bytes, so the content is never copied
//! (prost would copy it into each message's buffer).

use super::faults::{FaultAction, INSTRUCTIONS_HEADER, Trigger};
use super::grpc_read::{MessageReader, malformed};
use super::grpc_reply::Replies;
use super::grpc_write::{bucket_name, grpc_code, to_proto, to_status};
use super::reads::{Served, Span, offset_span, serve};
use super::server::ConnectionKill;
use super::store::StoredObject;
use super::{ReadChecksums, Shared};
use bytes::{BufMut, Bytes, BytesMut};
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use hyper::body::Incoming;
use prost::Message;
use prost::encoding::encode_varint;
use std::sync::Arc;
use tonic::Status;

/// Content per message: GCS's own (MAX_READ_CHUNK_BYTES).
const MESSAGE_CONTENT_BYTES: usize = 2 << 20;

pub async fn read_object(
    shared: Arc<Shared>,
    kill: ConnectionKill,
    req: http::Request<Incoming>,
) -> http::Response<tonic::body::Body> {
    match start(shared, kill, req).await {
        Ok(response) => response,
        Err(status) => status.into_http(),
    }
}

async fn start(
    shared: Arc<Shared>,
    kill: ConnectionKill,
    req: http::Request<Incoming>,
) -> Result<http::Response<tonic::body::Body>, Status> {
    let instruction = req.headers().get(INSTRUCTIONS_HEADER).and_then(|v| v.to_str().ok());
    let mut trigger = Trigger::new(shared.faults.for_data_request(instruction).map_err(Status::invalid_argument)?);
    let mut reader = MessageReader::new(req.into_body());
    let message = reader.next().await?.ok_or_else(|| Status::invalid_argument("ReadObject needs a request"))?;
    let request = pb::ReadObjectRequest::decode(message.flatten()).map_err(malformed)?;
    let object = shared.store.get(bucket_name(&request.bucket)?, &request.object).map_err(to_status)?;
    if request.generation != 0 && request.generation != object.generation {
        return Err(Status::not_found(format!("generation {} of {} not found", request.generation, object.name)));
    }
    if let Some(wanted) = request.if_generation_match
        && wanted != object.generation
    {
        return Err(Status::failed_precondition(format!(
            "if_generation_match={wanted} but {} is at generation {}",
            object.name, object.generation
        )));
    }
    let data = object.data.clone().ok_or_else(|| {
        Status::unimplemented("this emulator does not keep object bytes: start it with --retain to read them back")
    })?;
    let span = offset_span(request.read_offset, request.read_limit, object.size).map_err(Status::out_of_range)?;
    match trigger.split(0).1 {
        Some(FaultAction::Return(code)) => {
            return Err(Status::new(grpc_code(code), format!("injected fault: return-{code}")));
        }
        Some(FaultAction::ResetConnection) => kill.reset().await,
        Some(FaultAction::Stall(duration)) => tokio::time::sleep(duration).await,
        Some(FaultAction::Corrupt) | None => {}
    }
    let (replies, response) = Replies::open();
    let first = first_message(&object, &span, shared.read_checksums);
    let per_message = shared.read_checksums == ReadChecksums::Full;
    let piece_crcs = shared.store.piece_crcs(&object);
    tokio::spawn(async move {
        let mut head = Some(first.encode_to_vec());
        let send = |piece: Bytes, corrupted: bool| {
            // The crc32c of what was stored: a corrupted piece must not match it.
            let crc = match (&piece_crcs, corrupted) {
                (_, true) => crc32c::crc32c(&super::faults::corrupted(&piece)),
                (Some(crcs), false) => crcs.of(piece.as_ptr() as usize - data.as_ptr() as usize, &piece),
                (None, false) => crc32c::crc32c(&piece),
            };
            let parts = frame(head.take().unwrap_or_default(), piece, per_message.then_some(crc));
            let replies = replies.clone();
            async move { replies.send_parts(parts).await }
        };
        let served = if span.is_empty() {
            // An empty object (or range) is still one message with its metadata.
            let parts = frame(head.take().unwrap_or_default(), Bytes::new(), per_message.then_some(0));
            if replies.send_parts(parts).await { Served::Complete } else { Served::Gone }
        } else {
            serve(&data, span, MESSAGE_CONTENT_BYTES, &mut trigger, send).await
        };
        match served {
            Served::Complete => replies.end(None).await,
            Served::Failed(code) => {
                replies.end(Some(Status::new(grpc_code(code), format!("injected fault: return-{code}")))).await
            }
            Served::Reset => {
                replies.drained().await;
                kill.reset_now();
            }
            Served::Gone => {}
        }
    });
    Ok(response)
}

/// The first message's fields besides its content: the object's metadata,
/// the content range, and its checksums where `shape` says.
fn first_message(object: &StoredObject, span: &Span, shape: ReadChecksums) -> pb::ReadObjectResponse {
    let mut metadata = to_proto(object);
    if shape == ReadChecksums::None {
        metadata.checksums = None;
    }
    pb::ReadObjectResponse {
        checksummed_data: None,
        object_checksums: (shape == ReadChecksums::Full)
            .then(|| pb::ObjectChecksums { crc32c: Some(object.crc32c), md5_hash: Default::default() }),
        content_range: Some(pb::ContentRange {
            start: span.start as i64,
            end: span.end as i64,
            complete_length: object.size as i64,
        }),
        metadata: Some(metadata),
    }
}

/// One ReadObjectResponse around `content`, as three buffers: the 5-byte
/// gRPC prefix with `head` (the message's other fields, encoded) and the
/// start of `checksummed_data`; the content itself; its crc32c, if sent.
fn frame(head: Vec<u8>, content: Bytes, crc: Option<u32>) -> [Bytes; 3] {
    const CHECKSUMMED_DATA: u64 = 1 << 3 | 2; // field 1, length-delimited
    const CONTENT: u64 = 1 << 3 | 2;
    const CRC32C: u8 = 2 << 3 | 5; // field 2, fixed32
    let content_len = content.len() as u64;
    let crc_len = if crc.is_some() { 1 + 4 } else { 0 };
    let inner_len = 1 + varint_len(content_len) + content_len + crc_len;
    let message_len = head.len() as u64 + 1 + varint_len(inner_len) + inner_len;
    let mut start = BytesMut::with_capacity(5 + head.len() + 24);
    start.put_u8(0); // not compressed
    start.put_u32(message_len as u32);
    start.put_slice(&head);
    encode_varint(CHECKSUMMED_DATA, &mut start);
    encode_varint(inner_len, &mut start);
    encode_varint(CONTENT, &mut start);
    encode_varint(content_len, &mut start);
    let mut end = BytesMut::with_capacity(5);
    if let Some(crc) = crc {
        end.put_u8(CRC32C);
        end.put_u32_le(crc);
    }
    [start.freeze(), content, end.freeze()]
}

fn varint_len(value: u64) -> u64 {
    prost::encoding::encoded_len_varint(value) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_framed_message_decodes_as_prost_would_encode_it() {
        let head = pb::ReadObjectResponse {
            content_range: Some(pb::ContentRange { start: 3, end: 9, complete_length: 10 }),
            ..Default::default()
        };
        let content = Bytes::from_static(b"abcdef");
        let parts = frame(head.encode_to_vec(), content.clone(), Some(77));
        let wire: Vec<u8> = parts.iter().flat_map(|p| p.to_vec()).collect();
        assert_eq!(wire[0], 0);
        assert_eq!(u32::from_be_bytes(wire[1..5].try_into().unwrap()) as usize, wire.len() - 5);
        let decoded = pb::ReadObjectResponse::decode(&wire[5..]).unwrap();
        let data = decoded.checksummed_data.unwrap();
        assert_eq!((data.content, data.crc32c), (content, Some(77)));
        assert_eq!(decoded.content_range.unwrap().start, 3);
        let empty: Vec<u8> = frame(Vec::new(), Bytes::new(), Some(0)).iter().flat_map(|p| p.to_vec()).collect();
        assert!(pb::ReadObjectResponse::decode(&empty[5..]).unwrap().checksummed_data.is_some());
    }
}
