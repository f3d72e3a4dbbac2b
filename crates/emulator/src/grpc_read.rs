//! Write requests read straight off the HTTP/2 body, without copying their
//! data. tonic's decoder gathers every message into one buffer (a copy of
//! each 2 MiB message, and a fresh allocation whenever the last message is
//! still held) before prost sees it; here a message is the list of DATA-frame
//! slices it spans, its `checksummed_data` is kept as those slices, and only
//! its small other fields are gathered and decoded by prost.

pub use super::rope::Rope;
use bytes::{Buf, BufMut, Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use prost::encoding::{decode_varint, encode_varint};
use tonic::Status;

/// Above the 2 MiB data limit of a write message, with room for framing.
pub const MAX_MESSAGE_BYTES: usize = 64 << 20;
/// `checksummed_data`, in both WriteObjectRequest and BidiWriteObjectRequest.
const DATA_FIELD: u64 = 4;
/// ChecksummedData.content and ChecksummedData.crc32c.
const CONTENT_FIELD: u64 = 1;
const CRC32C_FIELD: u64 = 2;
const VARINT: u64 = 0;
const FIXED64: u64 = 1;
const LENGTH_DELIMITED: u64 = 2;
const FIXED32: u64 = 5;

/// A message's `checksummed_data`: its content as received, and its crc32c.
#[derive(Default)]
pub struct Content {
    pub bytes: Rope,
    pub crc32c: Option<u32>,
}

/// The gRPC messages of a request body, one at a time.
pub struct MessageReader {
    body: Incoming,
    buffered: Rope,
    /// The length of the message whose 5-byte prefix was read, if any.
    pending: Option<usize>,
}

impl MessageReader {
    pub fn new(body: Incoming) -> Self {
        Self { body, buffered: Rope::default(), pending: None }
    }

    /// The next message, or `None` when the client closed the stream
    /// between messages. Cancel-safe: what arrived stays buffered.
    pub async fn next(&mut self) -> Result<Option<Rope>, Status> {
        loop {
            if self.pending.is_none() && self.buffered.len() >= 5 {
                if self.buffered.get_u8() != 0 {
                    return Err(Status::unimplemented("compressed messages are not supported"));
                }
                let len = self.buffered.get_u32() as usize;
                if len > MAX_MESSAGE_BYTES {
                    return Err(Status::resource_exhausted(format!(
                        "a {len}-byte message is over the {MAX_MESSAGE_BYTES}-byte limit"
                    )));
                }
                self.pending = Some(len);
            }
            if let Some(len) = self.pending
                && self.buffered.len() >= len
            {
                self.pending = None;
                return Ok(Some(self.buffered.split_to(len)));
            }
            match self.body.frame().await {
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        self.buffered.push(data);
                    }
                }
                Some(Err(error)) => return Err(Status::cancelled(format!("the request body broke: {error}"))),
                None if self.buffered.is_empty() && self.pending.is_none() => return Ok(None),
                None => return Err(Status::internal("the stream ended inside a message")),
            }
        }
    }
}

/// Splits a write request into its data (kept as received) and its other
/// fields, re-encoded for prost: protobuf fields may come in any order, so
/// the message without field 4 decodes as the same message minus its data.
pub fn split_data(mut message: Rope) -> Result<(Bytes, Option<Content>), Status> {
    let mut rest = BytesMut::new();
    let mut data = None;
    while message.has_remaining() {
        let key = decode_varint(&mut message).map_err(malformed)?;
        if key >> 3 == DATA_FIELD && key & 7 == LENGTH_DELIMITED {
            let len = length(&mut message)?;
            // A repeated message field merges: later content and crc win.
            data = Some(merge_content(message.split_to(len), data.unwrap_or_default())?);
        } else {
            encode_varint(key, &mut rest);
            copy_field(key & 7, &mut message, &mut rest)?;
        }
    }
    Ok((rest.freeze(), data))
}

fn merge_content(mut nested: Rope, mut content: Content) -> Result<Content, Status> {
    while nested.has_remaining() {
        let key = decode_varint(&mut nested).map_err(malformed)?;
        match (key >> 3, key & 7) {
            (CONTENT_FIELD, LENGTH_DELIMITED) => {
                let len = length(&mut nested)?;
                content.bytes = nested.split_to(len);
            }
            (CRC32C_FIELD, FIXED32) => {
                need(&nested, 4)?;
                content.crc32c = Some(nested.get_u32_le());
            }
            (_, wire) => copy_field(wire, &mut nested, &mut BytesMut::new())?, // unknown: skipped
        }
    }
    Ok(content)
}

/// Copies one field's value (its key already read) from `from` to `to`.
fn copy_field(wire: u64, from: &mut Rope, to: &mut BytesMut) -> Result<(), Status> {
    let len = match wire {
        VARINT => {
            encode_varint(decode_varint(from).map_err(malformed)?, to);
            return Ok(());
        }
        FIXED64 => 8,
        FIXED32 => 4,
        LENGTH_DELIMITED => {
            let len = length(from)?;
            encode_varint(len as u64, to);
            len
        }
        _ => return Err(Status::internal(format!("failed to decode the request: wire type {wire} is not used"))),
    };
    need(from, len)?;
    to.put(from.split_to(len));
    Ok(())
}

/// A length prefix that fits in what is left.
fn length(from: &mut Rope) -> Result<usize, Status> {
    let len = decode_varint(from).map_err(malformed)? as usize;
    need(from, len)?;
    Ok(len)
}

fn need(from: &Rope, len: usize) -> Result<(), Status> {
    if from.len() < len {
        return Err(Status::internal("failed to decode the request: a field runs past the message's end"));
    }
    Ok(())
}

pub fn malformed(error: prost::DecodeError) -> Status {
    Status::internal(format!("failed to decode the request: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
    use pb::bidi_write_object_request::{Data, FirstMessage};
    use prost::Message;

    fn request(content: Bytes) -> pb::BidiWriteObjectRequest {
        pb::BidiWriteObjectRequest {
            first_message: Some(FirstMessage::UploadId("session-1".into())),
            write_offset: 1 << 21,
            data: Some(Data::ChecksummedData(pb::ChecksummedData { content, crc32c: Some(0x1234_5678) })),
            object_checksums: Some(pb::ObjectChecksums { crc32c: Some(9), ..Default::default() }),
            flush: true,
            state_lookup: true,
            ..Default::default()
        }
    }

    #[test]
    fn a_message_cut_anywhere_splits_into_the_same_fields() {
        let content: Bytes = (0..3000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let message = request(content.clone());
        let encoded = message.encode_to_vec(); // prost's order: the data sits between other fields
        for cut in [1, 2, 3, 7, 64, 1000, encoded.len()] {
            let (rest, data) = split_data(Rope::cut(&encoded, cut)).unwrap();
            let data = data.expect("the message has data");
            assert_eq!(data.crc32c, Some(0x1234_5678));
            assert_eq!(data.bytes.flatten(), content, "cut every {cut}");
            let mut others = pb::BidiWriteObjectRequest::decode(rest).unwrap();
            assert_eq!(others.data, None);
            others.data = message.data.clone();
            assert_eq!(others, message, "cut every {cut}");
        }
    }

    #[test]
    fn content_stays_in_the_received_buffers() {
        let content = Bytes::from(vec![7u8; 1 << 20]);
        // With nothing set after field 4 and no crc32c in the data, the
        // content is the encoding's tail: what precedes it is the head, and
        // the content arrives as a buffer of its own, as a client may send it.
        let data = pb::ChecksummedData { content: content.clone(), crc32c: None };
        let message = pb::BidiWriteObjectRequest {
            write_offset: 1 << 21,
            data: Some(Data::ChecksummedData(data)),
            ..Default::default()
        };
        let encoded = message.encode_to_vec();
        assert!(encoded.ends_with(&content));
        let mut rope = Rope::default();
        rope.push(Bytes::copy_from_slice(&encoded[..encoded.len() - content.len()]));
        rope.push(content.clone());
        let (_, data) = split_data(rope).unwrap();
        let pieces: Vec<_> = data.unwrap().bytes.pieces().cloned().collect();
        assert_eq!(pieces.len(), 1);
        assert_eq!(pieces[0].as_ptr(), content.as_ptr());
    }

    #[test]
    fn a_message_without_data_has_none() {
        let message = pb::BidiWriteObjectRequest { finish_write: true, ..Default::default() };
        let (rest, data) = split_data(Rope::cut(&message.encode_to_vec(), 1)).unwrap();
        assert!(data.is_none());
        assert_eq!(pb::BidiWriteObjectRequest::decode(rest).unwrap(), message);
    }

    #[test]
    fn truncated_messages_are_refused_exactly_when_prost_refuses_them() {
        let encoded = request(Bytes::from_static(b"abcdef")).encode_to_vec();
        for end in 0..=encoded.len() {
            let prefix = &encoded[..end];
            let ours = split_data(Rope::cut(prefix, 3)).map(|(rest, data)| {
                let mut message = pb::BidiWriteObjectRequest::decode(rest).expect("the other fields re-encode whole");
                message.data = data.map(|d| {
                    Data::ChecksummedData(pb::ChecksummedData { content: d.bytes.flatten(), crc32c: d.crc32c })
                });
                message
            });
            let prosts = pb::BidiWriteObjectRequest::decode(prefix);
            assert_eq!(ours.as_ref().ok(), prosts.as_ref().ok(), "the first {end} bytes");
        }
        let group = [(5 << 3) | 3, 0];
        let error = split_data(Rope::cut(&group, 1)).err().expect("groups are refused");
        assert!(error.message().contains("wire type 3"), "{}", error.message());
    }
}
