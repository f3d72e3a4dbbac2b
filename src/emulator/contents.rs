//! Retained object bytes, shared by every object with the same content: the
//! same bytes uploaded again and again (a benchmark's payload, object after
//! object) are kept once, so memory is bounded by the distinct contents
//! retained (plus the uploads in flight), not by how many objects hold them.

use bytes::Bytes;
use std::collections::HashMap;

/// Content by (length, crc32c), with how many objects hold it.
#[derive(Default)]
pub struct Contents(HashMap<(usize, u32), (Bytes, usize)>);

impl Contents {
    /// The bytes a new object keeps: the copy already kept when the same
    /// bytes are there (compared in full: a crc32c can collide), else these.
    pub fn share(&mut self, crc32c: u32, data: Bytes) -> Bytes {
        match self.0.get_mut(&(data.len(), crc32c)) {
            Some((kept, holders)) if *kept == data => {
                *holders += 1;
                kept.clone()
            }
            // A collision keeps its own bytes, outside the map.
            Some(_) => data,
            None => {
                self.0.insert((data.len(), crc32c), (data.clone(), 1));
                data
            }
        }
    }

    /// An object holding `data` is gone (deleted or replaced).
    pub fn release(&mut self, crc32c: u32, data: &Bytes) {
        let key = (data.len(), crc32c);
        if let Some((kept, holders)) = self.0.get_mut(&key)
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
        self.0.values().map(|(bytes, _)| bytes.len() as u64).sum()
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
