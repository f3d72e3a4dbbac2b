//! Bytes kept as the buffers they arrived in (HTTP/2 DATA frames), so a
//! message that spans several frames is read without gathering it first.

use bytes::{Buf, Bytes};
use std::collections::VecDeque;

/// Bytes as the slices they arrived in.
#[derive(Default)]
pub struct Rope {
    pieces: VecDeque<Bytes>,
    len: usize,
}

impl Rope {
    pub fn push(&mut self, bytes: Bytes) {
        if !bytes.is_empty() {
            self.len += bytes.len();
            self.pieces.push_back(bytes);
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first `n` bytes (at most all of them), as slices of the same memory.
    pub fn split_to(&mut self, n: usize) -> Rope {
        let mut head = Rope::default();
        while head.len < n {
            let Some(mut piece) = self.pieces.pop_front() else { break };
            let wanted = n - head.len;
            if piece.len() > wanted {
                self.pieces.push_front(piece.split_off(wanted));
            }
            self.len -= piece.len();
            head.push(piece);
        }
        head
    }

    pub fn pieces(&self) -> impl Iterator<Item = &Bytes> {
        self.pieces.iter()
    }

    /// crc32c of all the bytes, piece by piece where they lie.
    pub fn crc32c(&self) -> u32 {
        self.pieces.iter().fold(0, |crc, piece| gcs_protocol::crc::crc32c_append(crc, piece))
    }

    /// One buffer: free when the rope is one piece, else a copy.
    pub fn flatten(mut self) -> Bytes {
        let len = self.len;
        self.copy_to_bytes(len)
    }
}

impl FromIterator<Bytes> for Rope {
    fn from_iter<I: IntoIterator<Item = Bytes>>(pieces: I) -> Self {
        let mut rope = Rope::default();
        for piece in pieces {
            rope.push(piece);
        }
        rope
    }
}

impl From<Bytes> for Rope {
    fn from(bytes: Bytes) -> Self {
        std::iter::once(bytes).collect()
    }
}

#[cfg(test)]
impl Rope {
    /// `bytes` as if they arrived in frames of `every` bytes.
    pub fn cut(bytes: &[u8], every: usize) -> Rope {
        bytes.chunks(every).map(Bytes::copy_from_slice).collect()
    }
}

impl Buf for Rope {
    fn remaining(&self) -> usize {
        self.len
    }

    fn chunk(&self) -> &[u8] {
        self.pieces.front().map_or(&[], |piece| piece.as_ref())
    }

    fn advance(&mut self, mut count: usize) {
        assert!(count <= self.len, "advance past the end of the rope");
        self.len -= count;
        while count > 0 {
            let front = self.pieces.front_mut().expect("the length counts these bytes");
            if front.len() > count {
                front.advance(count);
                return;
            }
            count -= front.len();
            self.pieces.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_advance_keep_the_length_right() {
        let mut rope = Rope::cut(b"0123456789", 3);
        let head = rope.split_to(4);
        assert_eq!((head.len(), rope.len()), (4, 6));
        assert_eq!(head.flatten(), Bytes::from_static(b"0123"));
        rope.advance(3);
        assert_eq!(rope.chunk(), b"78".as_slice(), "the rest of the piece the cut fell in");
        assert_eq!(rope.flatten(), Bytes::from_static(b"789"));
    }

    #[test]
    fn the_crc_runs_across_the_pieces() {
        assert_eq!(Rope::cut(b"hello world", 4).crc32c(), crc32c::crc32c(b"hello world"));
    }
}
