//! Bytes as they arrive at the emulator, from either API: counted and
//! checksummed in one pass, kept only when retaining.

use super::rope::Rope;
use bytes::{Bytes, BytesMut};

/// Bytes as they arrive: counted, checksummed, kept only when retaining.
pub struct Ingest {
    pub size: u64,
    pub crc32c: u32,
    data: Option<BytesMut>,
}

impl Ingest {
    pub fn new(retain: bool) -> Self {
        Self { size: 0, crc32c: 0, data: retain.then(BytesMut::new) }
    }

    /// Appends bytes, extending the crc32c in the same pass over them.
    pub fn push(&mut self, bytes: &[u8]) {
        self.crc32c = gcs_protocol::crc::crc32c_append(self.crc32c, bytes);
        self.keep(bytes);
    }

    fn keep(&mut self, bytes: &[u8]) {
        self.size += bytes.len() as u64;
        if let Some(data) = &mut self.data {
            data.extend_from_slice(bytes);
        }
    }

    /// Appends bytes whose crc32c is already known (gRPC verifies each
    /// message's crc first), so the data is read only once.
    pub fn push_checked(&mut self, bytes: &Rope, crc: u32) {
        self.crc32c = gcs_protocol::crc::combine(self.crc32c, crc, bytes.len() as u64);
        for piece in bytes.pieces() {
            self.keep(piece);
        }
    }

    /// The bytes, when retaining.
    pub fn into_data(self) -> Option<Bytes> {
        self.data.map(BytesMut::freeze)
    }

    /// Takes the bytes kept so far (an appendable object publishes them as
    /// they arrive); size and crc32c still count them.
    pub fn take_kept(&mut self) -> Option<Bytes> {
        self.data.as_mut().map(|data| data.split().freeze())
    }

    /// Puts taken bytes back in front of any kept since, for finalize.
    pub fn restore_kept(&mut self, pieces: &[Bytes]) {
        if let Some(data) = &mut self.data {
            let mut whole = BytesMut::with_capacity(pieces.iter().map(Bytes::len).sum::<usize>() + data.len());
            pieces.iter().for_each(|piece| whole.extend_from_slice(piece));
            whole.extend_from_slice(data);
            *data = whole;
        }
    }

    /// Appends bytes [start, end) of the rope.
    pub fn push_range(&mut self, bytes: &Rope, start: usize, end: usize) {
        let mut at = 0;
        for piece in bytes.pieces() {
            let (from, to) = (start.max(at), end.min(at + piece.len()));
            if from < to {
                self.push(&piece[from - at..to - at]);
            }
            at += piece.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ingest_crc_combines_like_one_pass() {
        let mut split = Ingest::new(true);
        split.push(b"hello ");
        let world = [b"wo".as_slice(), b"rld"].into_iter().map(Bytes::from_static).collect();
        split.push_checked(&world, crc32c::crc32c(b"world"));
        let (size, crc) = (split.size, split.crc32c);
        assert_eq!((size, crc), (11, crc32c::crc32c(b"hello world")));
        assert_eq!(split.data.unwrap().as_ref(), b"hello world");
    }

    #[test]
    fn a_range_of_pieces_is_taken_across_their_seams() {
        let pieces = [b"abc".as_slice(), b"defg", b"hi"].into_iter().map(Bytes::from_static).collect();
        for (start, end, expected) in [(0, 9, "abcdefghi"), (2, 8, "cdefgh"), (3, 7, "defg"), (4, 5, "e"), (5, 5, "")] {
            let mut ingest = Ingest::new(true);
            ingest.push_range(&pieces, start, end);
            assert_eq!(ingest.data.unwrap().as_ref(), expected.as_bytes(), "[{start}, {end})");
            assert_eq!(ingest.crc32c, crc32c::crc32c(expected.as_bytes()));
        }
    }
}
