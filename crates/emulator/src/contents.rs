//! Retained object bytes, shared by every object with the same content: the
//! same bytes uploaded again and again (a benchmark's payload, object after
//! object) are kept once, so memory is bounded by the distinct contents
//! retained (plus the uploads in flight), not by how many objects hold them.

use bytes::Bytes;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Content by (length, crc32c), with how many objects hold it and the
/// crc32c of the pieces reads have sent of it.
#[derive(Default)]
pub struct Contents(HashMap<(usize, u32), (Bytes, usize, Arc<PieceCrcs>)>);

/// The crc32c of pieces of one kept content, by (offset, length): gRPC reads
/// send the same 2 MiB pieces with their crc32c again and again, and
/// computing it was a quarter of the emulator's CPU per read.
#[derive(Default)]
pub struct PieceCrcs(Mutex<HashMap<(usize, usize), u32>>);

impl PieceCrcs {
    /// The crc32c of `piece`, which starts `offset` bytes into the content.
    pub fn of(&self, offset: usize, piece: &[u8]) -> u32 {
        if let Some(&crc) = self.0.lock().unwrap().get(&(offset, piece.len())) {
            return crc;
        }
        let crc = gcs_protocol::crc::crc32c(piece);
        self.0.lock().unwrap().insert((offset, piece.len()), crc);
        crc
    }
}

impl Contents {
    /// The bytes a new object keeps: the copy already kept when the same
    /// bytes are there (compared in full: a crc32c can collide), else these.
    pub fn share(&mut self, crc32c: u32, data: Bytes) -> Bytes {
        match self.0.get_mut(&(data.len(), crc32c)) {
            Some((kept, holders, _)) if *kept == data => {
                *holders += 1;
                kept.clone()
            }
            // A collision keeps its own bytes, outside the map.
            Some(_) => data,
            None => {
                self.0.insert((data.len(), crc32c), (data.clone(), 1, Arc::default()));
                data
            }
        }
    }

    /// An object holding `data` is gone (deleted or replaced).
    pub fn release(&mut self, crc32c: u32, data: &Bytes) {
        let key = (data.len(), crc32c);
        if let Some((kept, holders, _)) = self.0.get_mut(&key)
            && kept.as_ptr() == data.as_ptr()
        {
            *holders -= 1;
            if *holders == 0 {
                self.0.remove(&key);
            }
        }
    }

    /// Bytes kept in the map.
    pub fn kept_bytes(&self) -> u64 {
        self.0.values().map(|(bytes, ..)| bytes.len() as u64).sum()
    }

    /// The piece crcs of `data`, when it is the kept copy (they go with it).
    pub fn piece_crcs(&self, crc32c: u32, data: &Bytes) -> Option<Arc<PieceCrcs>> {
        let (kept, _, crcs) = self.0.get(&(data.len(), crc32c))?;
        (kept.as_ptr() == data.as_ptr()).then(|| crcs.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_bytes_are_kept_once_until_the_last_holder_goes() {
        let mut contents = Contents::default();
        let crc = crc32c::crc32c(b"payload");
        let first = contents.share(crc, Bytes::from(b"payload".to_vec()));
        let second = contents.share(crc, Bytes::from(b"payload".to_vec()));
        assert_eq!(first.as_ptr(), second.as_ptr(), "one copy for both");
        assert_eq!(contents.kept_bytes(), 7);
        let other = contents.share(crc32c::crc32c(b"another"), Bytes::from(b"another".to_vec()));
        assert_eq!(contents.kept_bytes(), 14);
        contents.release(crc, &first);
        assert_eq!(contents.kept_bytes(), 14, "one holder left");
        contents.release(crc, &second);
        contents.release(crc32c::crc32c(b"another"), &other);
        assert_eq!(contents.kept_bytes(), 0);
    }

    #[test]
    fn piece_crcs_are_those_of_the_pieces_and_go_with_their_content() {
        let mut contents = Contents::default();
        let data = Bytes::from((0..=255u8).cycle().take(10_000).collect::<Vec<u8>>());
        let crc = crc32c::crc32c(&data);
        let kept = contents.share(crc, data.clone());
        let crcs = contents.piece_crcs(crc, &kept).expect("the kept copy has them");
        for _ in 0..2 {
            assert_eq!(crcs.of(4096, &kept[4096..8192]), crc32c::crc32c(&kept[4096..8192]));
            assert_eq!(crcs.of(8192, &kept[8192..]), crc32c::crc32c(&kept[8192..]));
        }
        assert!(contents.piece_crcs(crc, &Bytes::from(data.to_vec())).is_none(), "not the kept copy");
        contents.release(crc, &kept);
        assert!(contents.piece_crcs(crc, &kept).is_none(), "released with the content");
    }

    #[test]
    fn a_crc_collision_keeps_its_own_bytes() {
        let mut contents = Contents::default();
        let kept = contents.share(7, Bytes::from_static(b"abc"));
        let collided = contents.share(7, Bytes::from_static(b"xyz"));
        assert_eq!(&collided[..], b"xyz");
        contents.release(7, &collided); // not the kept copy: nothing changes
        assert_eq!(contents.kept_bytes(), 3);
        contents.release(7, &kept);
        assert_eq!(contents.kept_bytes(), 0);
    }
}
