//! The bytes every upload sends: one pool of incompressible random data,
//! generated before timing starts and sliced zero-copy (`Bytes`) for every
//! object, so memory does not grow with object size or concurrency.

use bytes::Bytes;

/// The pool is a multiple of every message and chunk alignment (256 KiB, 2 MiB),
/// so a message that stops at the next 2 MiB boundary never crosses the pool's end.
pub const POOL_BYTES: u64 = 32 * 1024 * 1024;
/// Below this, a crc32c pass is not worth a thread.
const PARALLEL_CRC_PART: u64 = 32 * 1024 * 1024;

#[derive(Clone)]
pub struct Payload {
    pool: Bytes,
    size: u64,
}

impl Payload {
    /// An object of `size` bytes whose content repeats a random pool.
    pub fn new(size: u64, seed: u64) -> Self {
        let pool_len = size.min(POOL_BYTES) as usize;
        Self { pool: random_bytes(pool_len, seed), size }
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// Bytes `[offset, offset + max_len)` of the object, shortened so the slice
    /// never crosses the pool's end. Never copies.
    pub fn slice(&self, offset: u64, max_len: u64) -> Bytes {
        debug_assert!(offset < self.size || self.size == 0);
        let pool_len = self.pool.len() as u64;
        if pool_len == 0 {
            return Bytes::new();
        }
        let start = offset % pool_len;
        let len = max_len.min(self.size - offset).min(pool_len - start);
        self.pool.slice(start as usize..(start + len) as usize)
    }

    /// The object's bytes in `[start, end)` as slices of at most `max_len`
    /// bytes, each ending on a multiple of `max_len` (so slices line up with
    /// message boundaries whatever the chunk boundaries are).
    pub fn segments(&self, start: u64, end: u64, max_len: u64) -> impl Iterator<Item = Bytes> + '_ {
        let mut offset = start;
        std::iter::from_fn(move || {
            if offset >= end {
                return None;
            }
            let slice = self.segment(offset, end, max_len);
            offset += slice.len() as u64;
            Some(slice)
        })
    }

    /// The segment of `segments(_, end, max_len)` that starts at `offset`.
    pub fn segment(&self, offset: u64, end: u64, max_len: u64) -> Bytes {
        let next_boundary = (offset / max_len + 1) * max_len;
        self.slice(offset, next_boundary.min(end) - offset)
    }

    /// crc32c of bytes [start, end) of the object, computed afresh as a real
    /// client would (never cached), in one pass.
    pub fn crc32c_range(&self, start: u64, end: u64) -> u32 {
        self.segments(start, end, POOL_BYTES).fold(0, |crc, slice| gcs_protocol::crc::crc32c_append(crc, &slice))
    }

    /// `[start, end)` cut into the parts a crc32c pass is split across: one
    /// a core at most, each but the last at least `PARALLEL_CRC_PART` long. A request that
    /// needs its checksum up front waits for the pass, and the cores are
    /// idle meanwhile.
    pub fn crc32c_parts(start: u64, end: u64) -> Vec<(u64, u64)> {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
        let parts = (end.saturating_sub(start) / PARALLEL_CRC_PART).clamp(1, cores);
        let step = (end.saturating_sub(start)).div_ceil(parts).max(1);
        (0..parts).map(|i| (start + i * step, (start + (i + 1) * step).min(end))).filter(|(a, b)| a < b).collect()
    }
}

/// xorshift64*: fast, and random enough that no compressor on the path gains.
pub fn random_bytes(len: usize, seed: u64) -> Bytes {
    let mut state = seed | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        out.extend_from_slice(&state.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    out.truncate(len);
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    const MIB: u64 = 1024 * 1024;

    #[test]
    fn segments_cover_the_object_exactly_and_align_to_messages() {
        let payload = Payload::new(70 * MIB + 5, 7);
        let slices: Vec<Bytes> = payload.segments(MIB / 2, 70 * MIB + 5, 2 * MIB).collect();
        let total: u64 = slices.iter().map(|s| s.len() as u64).sum();
        assert_eq!(total, 70 * MIB + 5 - MIB / 2);
        assert_eq!(slices[0].len() as u64, 2 * MIB - MIB / 2, "first slice ends on a 2 MiB boundary");
        assert!(slices.iter().all(|s| s.len() as u64 <= 2 * MIB));
        assert_eq!(slices.last().unwrap().len(), 5);
    }

    #[test]
    fn slices_repeat_the_pool_without_copying() {
        let payload = Payload::new(3 * POOL_BYTES, 1);
        let a = payload.slice(0, 16);
        let b = payload.slice(POOL_BYTES, 16);
        assert_eq!(a, b);
        assert_eq!(a.as_ptr(), b.as_ptr(), "same memory, no copy");
    }

    #[test]
    fn whole_object_crc_matches_a_straight_computation() {
        let payload = Payload::new(2 * POOL_BYTES + 1000, 3);
        let mut whole = Vec::new();
        for slice in payload.segments(0, payload.size(), MIB) {
            whole.extend_from_slice(&slice);
        }
        assert_eq!(payload.crc32c_range(0, payload.size()), crc32c::crc32c(&whole));
        let (start, end) = (MIB + 3, 2 * POOL_BYTES + 999);
        assert_eq!(payload.crc32c_range(start, end), crc32c::crc32c(&whole[start as usize..end as usize]));
    }

    #[test]
    fn a_pass_is_cut_into_parts_that_cover_its_range_once_in_order() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        for (start, end) in [(0, 1), (3, 3 * POOL_BYTES + 5), (MIB, 2 * MIB)] {
            let parts = Payload::crc32c_parts(start, end);
            assert_eq!(parts.first().map(|p| p.0), Some(start));
            assert_eq!(parts.last().map(|p| p.1), Some(end));
            assert!(parts.windows(2).all(|w| w[0].1 == w[1].0), "{parts:?}");
            assert!(parts.iter().all(|(a, b)| a < b), "{parts:?}");
            assert!(parts.len() <= cores, "one a core at most: {parts:?}");
            let but_last = &parts[..parts.len() - 1];
            assert!(but_last.iter().all(|(a, b)| b - a >= PARALLEL_CRC_PART), "{parts:?}");
        }
        let split = Payload::crc32c_parts(3, 3 * POOL_BYTES + 5).len();
        assert_eq!(split, cores.min(3), "96 MiB is three 32 MiB parts' worth, one a core");
        assert_eq!(Payload::crc32c_parts(5, 5), [], "nothing to pass over");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_pass_split_across_the_cores_is_the_crc32c_of_its_bytes() {
        let payload = Payload::new(3 * POOL_BYTES + 5, 9);
        let whole: Vec<u8> = payload.segments(0, payload.size(), MIB).flat_map(|s| s.to_vec()).collect();
        // Split across the cores, one pass on another thread, and at once.
        for (start, end) in [(3, 3 * POOL_BYTES + 5), (MIB + 1, 3 * MIB), (7, 1000), (5, 5)] {
            let crc = crate::transport::crc32c_in_background(&payload, start, end).await.unwrap();
            assert_eq!(crc, crc32c::crc32c(&whole[start as usize..end as usize]), "[{start}, {end})");
        }
    }

    #[test]
    fn random_bytes_do_not_compress_and_differ_by_seed() {
        let a = random_bytes(4096, 1);
        let b = random_bytes(4096, 2);
        assert_ne!(a, b);
        let distinct: std::collections::HashSet<u8> = a.iter().copied().collect();
        assert!(distinct.len() > 250, "bytes spread over the whole range");
    }
}
