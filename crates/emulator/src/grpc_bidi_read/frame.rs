//! One `BidiReadObjectResponse` carrying one `ObjectRangeData`, framed
//! around its content without copying it: the gRPC prefix and the fields
//! before the content, the content itself, then the fields after it.

use crate::grpc_read_object::varint_len;
use bytes::{BufMut, Bytes, BytesMut};
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use prost::Message;
use prost::encoding::encode_varint;

const LENGTH_DELIMITED: u64 = 2;
const OBJECT_DATA_RANGES: u64 = 6 << 3 | LENGTH_DELIMITED;
const CHECKSUMMED_DATA: u64 = 1 << 3 | LENGTH_DELIMITED;
const CONTENT: u64 = 1 << 3 | LENGTH_DELIMITED;
const CRC32C: u64 = 2 << 3 | 5; // fixed32
const READ_RANGE: u64 = 2 << 3 | LENGTH_DELIMITED;
const RANGE_END: u64 = 3 << 3; // varint

pub fn frame_range(content: Bytes, crc: Option<u32>, range: pb::ReadRange, range_end: bool) -> [Bytes; 3] {
    let content_len = content.len() as u64;
    let data_len = 1 + varint_len(content_len) + content_len + if crc.is_some() { 5 } else { 0 };
    let range_len = range.encoded_len() as u64;
    let entry_len = 1 + varint_len(data_len) + data_len + 1 + varint_len(range_len) + range_len + 2 * range_end as u64;
    let message_len = 1 + varint_len(entry_len) + entry_len;
    let mut start = BytesMut::with_capacity(32);
    start.put_u8(0); // not compressed
    start.put_u32(message_len as u32);
    for value in [OBJECT_DATA_RANGES, entry_len, CHECKSUMMED_DATA, data_len, CONTENT, content_len] {
        encode_varint(value, &mut start);
    }
    let mut end = BytesMut::with_capacity(32);
    if let Some(crc) = crc {
        encode_varint(CRC32C, &mut end);
        end.put_u32_le(crc);
    }
    encode_varint(READ_RANGE, &mut end);
    encode_varint(range_len, &mut end);
    range.encode(&mut end).expect("the buffer grows");
    if range_end {
        encode_varint(RANGE_END, &mut end);
        end.put_u8(1);
    }
    [start.freeze(), content, end.freeze()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(parts: [Bytes; 3]) -> pb::BidiReadObjectResponse {
        let wire: Vec<u8> = parts.iter().flat_map(|p| p.to_vec()).collect();
        assert_eq!(wire[0], 0);
        assert_eq!(u32::from_be_bytes(wire[1..5].try_into().unwrap()) as usize, wire.len() - 5, "the prefix's length");
        pb::BidiReadObjectResponse::decode(&wire[5..]).unwrap()
    }

    #[test]
    fn a_framed_range_decodes_as_prost_reads_it() {
        let content = Bytes::from(vec![7u8; 300]); // a two-byte length
        let range = pb::ReadRange { read_offset: 1 << 40, read_length: 300, read_id: (1 << 55) + 3 };
        let answer = decoded(frame_range(content.clone(), Some(0xdead_beef), range, true));
        let [entry] = &answer.object_data_ranges[..] else { panic!("one range: {answer:?}") };
        let data = entry.checksummed_data.as_ref().unwrap();
        assert_eq!((&data.content, data.crc32c), (&content, Some(0xdead_beef)));
        assert_eq!(entry.read_range, Some(range));
        assert!(entry.range_end);
        assert!(answer.metadata.is_none());
    }

    #[test]
    fn a_middle_piece_without_crc_has_no_end() {
        let range = pb::ReadRange { read_offset: 0, read_length: 3, read_id: 0 };
        let answer = decoded(frame_range(Bytes::from_static(b"abc"), None, range, false));
        let entry = &answer.object_data_ranges[0];
        assert_eq!(entry.checksummed_data.as_ref().unwrap().crc32c, None);
        assert!(!entry.range_end);
        let empty = decoded(frame_range(Bytes::new(), Some(0), range, true));
        assert!(empty.object_data_ranges[0].range_end, "an empty range still ends");
    }
}
