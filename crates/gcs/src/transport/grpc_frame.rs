//! gRPC frames for BidiWriteObject written by hand, so that a message's
//! content (2 MiB) goes to the HTTP/2 body as the payload's own `Bytes`
//! instead of being copied into an encode buffer, which is what prost and
//! tonic's codec would do for every message.
//!
//! A frame is `[0][u32 length][message]`. The message is its other fields,
//! encoded by prost, then field 4 (`checksummed_data`) written here:
//! protobuf allows fields in any order, so the content can come last and be
//! sent as its own buffer.

use bytes::{BufMut, Bytes, BytesMut};
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use prost::Message;
use prost::encoding::{encode_varint, encoded_len_varint};

/// Field 4 of BidiWriteObjectRequest, length-delimited.
const CHECKSUMMED_DATA_KEY: u8 = (4 << 3) | 2;
/// ChecksummedData.content: field 1, length-delimited.
const CONTENT_KEY: u8 = (1 << 3) | 2;
/// ChecksummedData.crc32c: field 2, fixed32.
const CRC32C_KEY: u8 = (2 << 3) | 5;

/// The frame as two buffers: everything before the content, and the content.
pub fn frame(mut message: pb::BidiWriteObjectRequest) -> (Bytes, Bytes) {
    let data = message.data.take().map(|pb::bidi_write_object_request::Data::ChecksummedData(d)| d);
    let head_len = message.encoded_len();
    let (content, crc) = data.map(|d| (d.content, d.crc32c)).unwrap_or_default();
    let has_data = !content.is_empty() || crc.is_some();
    let crc_len = if crc.is_some() { 5 } else { 0 };
    let content_len = if content.is_empty() { 0 } else { 1 + encoded_len_varint(content.len() as u64) + content.len() };
    let nested_len = crc_len + content_len;
    let data_len = if has_data { 1 + encoded_len_varint(nested_len as u64) + nested_len } else { 0 };
    let message_len = head_len + data_len;

    let mut prefix = BytesMut::with_capacity(5 + message_len - content.len());
    prefix.put_u8(0); // not compressed
    prefix.put_u32(message_len as u32);
    message.encode(&mut prefix).expect("the buffer has room for the head");
    if has_data {
        prefix.put_u8(CHECKSUMMED_DATA_KEY);
        encode_varint(nested_len as u64, &mut prefix);
        if let Some(crc) = crc {
            prefix.put_u8(CRC32C_KEY);
            prefix.put_u32_le(crc);
        }
        if !content.is_empty() {
            prefix.put_u8(CONTENT_KEY);
            encode_varint(content.len() as u64, &mut prefix);
        }
    }
    (prefix.freeze(), content)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pb::bidi_write_object_request::{Data, FirstMessage};

    fn decode(prefix: &Bytes, content: &Bytes) -> pb::BidiWriteObjectRequest {
        let mut whole = prefix.to_vec();
        whole.extend_from_slice(content);
        assert_eq!(whole[0], 0);
        let length = u32::from_be_bytes(whole[1..5].try_into().unwrap()) as usize;
        assert_eq!(length, whole.len() - 5, "the length prefix covers the message exactly");
        pb::BidiWriteObjectRequest::decode(&whole[5..]).unwrap()
    }

    #[test]
    fn frames_decode_to_the_same_message() {
        let content = crate::payload::random_bytes(2 << 20, 3);
        let messages = [
            pb::BidiWriteObjectRequest {
                first_message: Some(FirstMessage::UploadId("abc".into())),
                write_offset: 4 << 20,
                data: Some(Data::ChecksummedData(pb::ChecksummedData {
                    content: content.clone(),
                    crc32c: Some(0xdead_beef),
                })),
                flush: true,
                state_lookup: true,
                ..Default::default()
            },
            pb::BidiWriteObjectRequest {
                write_offset: 7,
                data: Some(Data::ChecksummedData(pb::ChecksummedData { content: content.slice(..100), crc32c: None })),
                finish_write: true,
                object_checksums: Some(pb::ObjectChecksums { crc32c: Some(5), ..Default::default() }),
                ..Default::default()
            },
            pb::BidiWriteObjectRequest { finish_write: true, ..Default::default() },
        ];
        for message in messages {
            let (prefix, body) = frame(message.clone());
            assert_eq!(decode(&prefix, &body), message);
        }
    }

    #[test]
    fn the_content_is_not_copied() {
        let content = crate::payload::random_bytes(1 << 20, 4);
        let message = pb::BidiWriteObjectRequest {
            data: Some(Data::ChecksummedData(pb::ChecksummedData { content: content.clone(), crc32c: None })),
            ..Default::default()
        };
        let (prefix, body) = frame(message);
        assert_eq!(body.as_ptr(), content.as_ptr());
        assert!(prefix.len() < 16);
    }
}
