//! `ReadObject`: the object (or `read_offset`/`read_limit` of it) streamed
//! in 2 MiB messages, each with its own crc32c, the first also carrying the
//! object's metadata, checksums and the content range. Messages are framed
//! here around slices of the stored bytes, so the content is never copied
//! (prost would copy it into each message's buffer).

use super::contents::PieceCrcs;
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
pub const MESSAGE_CONTENT_BYTES: usize = 2 << 20;

/// A read call's opening, as both read RPCs have it: the fault its
/// instructions ask for, its message reader, and its first message decoded.
pub async fn opening<M: Message + Default>(
    shared: &Shared,
    req: http::Request<Incoming>,
    method: &str,
) -> Result<(Trigger, MessageReader, M), Status> {
    let instruction = req.headers().get(INSTRUCTIONS_HEADER).and_then(|v| v.to_str().ok());
    let trigger = Trigger::new(shared.faults.for_data_request(instruction).map_err(Status::invalid_argument)?);
    let mut reader = MessageReader::new(req.into_body());
    let message = reader.next().await?.ok_or_else(|| Status::invalid_argument(format!("{method} needs a request")))?;
    Ok((trigger, reader, M::decode(message.flatten()).map_err(malformed)?))
}

pub async fn read_object(
    shared: Arc<Shared>,
    kill: ConnectionKill,
    req: http::Request<Incoming>,
) -> Result<http::Response<tonic::body::Body>, Status> {
    let (mut trigger, _, request) = opening::<pb::ReadObjectRequest>(&shared, req, "ReadObject").await?;
    let object = shared.store.get(bucket_name(&request.bucket)?, &request.object).map_err(to_status)?;
    let wanted = Wanted {
        generation: request.generation,
        if_generation_match: request.if_generation_match,
        if_generation_not_match: request.if_generation_not_match,
    };
    let data = readable(&object, wanted)?;
    let span = offset_span(request.read_offset, request.read_limit, object.size).map_err(Status::out_of_range)?;
    fire_opening_fault(&mut trigger, &kill).await?;
    let (replies, response) = Replies::open();
    let first = first_message(&object, &span, shared.read_checksums);
    let per_message = shared.read_checksums == ReadChecksums::Full;
    let piece_crcs = shared.store.piece_crcs(&object);
    tokio::spawn(async move {
        let mut head = Some(first.encode_to_vec());
        let send = |piece: Bytes, corrupted: bool| {
            let crc = piece_crc(piece_crcs.as_deref(), &data, &piece, corrupted);
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

/// What a read asks of the object's generation.
#[derive(Clone, Copy, Default)]
pub struct Wanted {
    pub generation: i64,
    pub if_generation_match: Option<i64>,
    pub if_generation_not_match: Option<i64>,
}

/// The object's bytes, once the generation asked for and the preconditions
/// hold, as GCS answers them: NOT_FOUND for another generation,
/// FAILED_PRECONDITION for a precondition.
pub fn readable(object: &StoredObject, wanted: Wanted) -> Result<Bytes, Status> {
    let generation = object.generation;
    if wanted.generation != 0 && wanted.generation != generation {
        return Err(Status::not_found(format!("generation {} of {} not found", wanted.generation, object.name)));
    }
    let failed = |what: &str, value: i64| {
        Status::failed_precondition(format!("{what}={value} but {} is at generation {generation}", object.name))
    };
    if let Some(value) = wanted.if_generation_match.filter(|&v| v != generation) {
        return Err(failed("if_generation_match", value));
    }
    if let Some(value) = wanted.if_generation_not_match.filter(|&v| v == generation) {
        return Err(failed("if_generation_not_match", value));
    }
    object.data.clone().ok_or_else(|| {
        Status::unimplemented("this emulator does not keep object bytes: start it with --retain to read them back")
    })
}

/// A fault that acts as the read opens: a failure, a reset or a stall.
pub async fn fire_opening_fault(trigger: &mut Trigger, kill: &ConnectionKill) -> Result<(), Status> {
    match trigger.split(0).1 {
        Some(FaultAction::Return(code)) => Err(Status::new(grpc_code(code), format!("injected fault: return-{code}"))),
        Some(FaultAction::ResetConnection) => kill.reset().await,
        Some(FaultAction::Stall(duration)) => {
            tokio::time::sleep(duration).await;
            Ok(())
        }
        Some(FaultAction::Corrupt) | None => Ok(()),
    }
}

/// The crc32c a piece of `data` is sent with: that of the stored bytes (a
/// corrupted piece, corrupted back, must not match what arrives).
pub fn piece_crc(cached: Option<&PieceCrcs>, data: &Bytes, piece: &Bytes, corrupted: bool) -> u32 {
    match (cached, corrupted) {
        (_, true) => gcs_protocol::crc::crc32c(&super::faults::corrupted(piece)),
        (Some(crcs), false) => crcs.of(piece.as_ptr() as usize - data.as_ptr() as usize, piece),
        (None, false) => gcs_protocol::crc::crc32c(piece),
    }
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

pub fn varint_len(value: u64) -> u64 {
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
