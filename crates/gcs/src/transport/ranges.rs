//! Many ranges of one object, wanted at once (a Parquet reader's column
//! chunks, a checkpoint's shards). Per-range transports send one request
//! per range, all at once (as gcsfs's `cat_ranges` or an `asyncio.gather` of
//! ranged GETs does): JSON one GET with `Range` each, gRPC one `ReadObject`
//! each. gRPC's `BidiReadObject` sends them all on one stream
//! (`grpc_bidi_read`). Either way each range's times count from the moment
//! the reader wanted them all, so the two are timed alike.

use super::download::{ByteRange, DownloadRequest};
use super::{CreatedObject, Progress, TransportError, Uploader};
use std::sync::Arc;
use std::time::Instant;

pub struct RangesRequest {
    pub object: CreatedObject,
    pub ranges: Vec<ByteRange>,
    /// Check each range's bytes against the crc32c the server sent for them.
    pub check_crc32c: bool,
    pub progress: Arc<Progress>,
}

/// One range's times, in seconds from the moment the reader wanted them all.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct RangeTimes {
    pub first_byte_s: f64,
    pub complete_s: f64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RangesOutcome {
    pub bytes: u64,
    /// Each range's times, in the order they were asked for.
    pub ranges: Vec<RangeTimes>,
    /// Requests (per-range transports) or streams (bidi) this read opened.
    pub streams: u32,
}

impl RangesOutcome {
    /// From the start to the first byte of any range.
    pub fn first_byte_s(&self) -> f64 {
        self.ranges.iter().map(|r| r.first_byte_s).fold(f64::INFINITY, f64::min).min(self.last_byte_s())
    }

    pub fn last_byte_s(&self) -> f64 {
        self.ranges.iter().map(|r| r.complete_s).fold(0.0, f64::max)
    }
}

/// Reads each range with a request of its own, all at once; any range that
/// fails fails the read (after the transport's own retries and resumes).
pub async fn each_apart<U: Uploader + ?Sized>(
    uploader: &U,
    request: RangesRequest,
) -> Result<RangesOutcome, TransportError> {
    let started = Instant::now();
    let reads = request.ranges.iter().map(|&range| {
        let progress = Arc::new(Progress::default());
        let read = DownloadRequest {
            object: request.object.clone(),
            range: Some(range),
            check_crc32c: request.check_crc32c,
            progress: progress.clone(),
        };
        let item = &request.progress;
        async move {
            let outcome = uploader.download(read).await;
            item.absorb(&progress);
            let outcome = outcome?;
            let complete_s = started.elapsed().as_secs_f64();
            let first_byte_s = (complete_s - outcome.transfer_s).max(0.0);
            Ok::<_, TransportError>((outcome.bytes, RangeTimes { first_byte_s, complete_s }))
        }
    });
    let done = futures::future::join_all(reads).await;
    let mut outcome = RangesOutcome { streams: request.ranges.len() as u32, ..RangesOutcome::default() };
    for result in done {
        let (bytes, times) = result?;
        outcome.bytes += bytes;
        outcome.ranges.push(times);
    }
    Ok(outcome)
}

/// The ranges of `sizes` (one each) in an object of `object_size`, each cut
/// at the object's end. Ranges of one size are aligned to it (as the C++
/// client's benchmarks align them): drawn at random from `seed` (each slot
/// at most once while slots last), or `sequential` from a drawn start, one
/// after another, wrapping at the end. Ranges of mixed sizes start on a
/// 4 KiB boundary, at random or each where the one before ended.
pub fn plan_ranges(seed: u64, object_size: u64, sizes: &[u64], sequential: bool) -> Vec<ByteRange> {
    match sizes.first() {
        Some(&size) if sizes.iter().all(|&s| s == size) => one_size(seed, object_size, size, sizes.len(), sequential),
        _ => mixed_sizes(seed, object_size, sizes, sequential),
    }
}

fn one_size(seed: u64, object_size: u64, size: u64, count: usize, sequential: bool) -> Vec<ByteRange> {
    let slots = (object_size / size.max(1)).max(1);
    let len = size.min(object_size);
    let start = units::splitmix64(seed) % slots;
    if sequential {
        return (0..count as u64).map(|i| ByteRange { offset: (start + i) % slots * size, len }).collect();
    }
    let mut taken = std::collections::HashSet::new();
    (0..count as u64)
        .map(|i| {
            let mut slot = units::splitmix64(draw(seed, i)) % slots;
            while taken.len() < slots as usize && !taken.insert(slot) {
                slot = (slot + 1) % slots;
            }
            ByteRange { offset: slot * size, len }
        })
        .collect()
}

/// Where ranges of mixed sizes start: a multiple of this.
const MIXED_ALIGNMENT: u64 = 4 << 10;

fn mixed_sizes(seed: u64, object_size: u64, sizes: &[u64], sequential: bool) -> Vec<ByteRange> {
    let aligned = |offset: u64| offset / MIXED_ALIGNMENT * MIXED_ALIGNMENT;
    let mut next = aligned(units::splitmix64(seed) % object_size.max(1));
    (sizes.iter().enumerate())
        .map(|(i, &size)| {
            let len = size.min(object_size);
            let room = object_size - len;
            let offset = if sequential {
                let at = if next > room { 0 } else { next };
                next = aligned(at + len + MIXED_ALIGNMENT - 1);
                at
            } else {
                aligned(units::splitmix64(draw(seed, i as u64)) % (room + 1))
            };
            ByteRange { offset, len }
        })
        .collect()
}

/// The seed of the `i`th range's draw.
fn draw(seed: u64, i: u64) -> u64 {
    seed ^ (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_ranges_are_aligned_distinct_while_they_can_be_and_follow_the_seed() {
        let ranges = plan_ranges(9, 100 << 20, &[64 << 10; 1000], false);
        assert_eq!(ranges.len(), 1000);
        assert!(ranges.iter().all(|r| r.offset % (64 << 10) == 0 && r.offset + r.len <= 100 << 20));
        let distinct: std::collections::HashSet<u64> = ranges.iter().map(|r| r.offset).collect();
        assert_eq!(distinct.len(), 1000, "1,600 slots: no range twice");
        assert_eq!(ranges, plan_ranges(9, 100 << 20, &[64 << 10; 1000], false), "the same seed, the same ranges");
        assert_ne!(ranges, plan_ranges(10, 100 << 20, &[64 << 10; 1000], false));
        let crowded = plan_ranges(1, 4 << 10, &[1 << 10; 6], false);
        let distinct: std::collections::HashSet<u64> = crowded[..4].iter().map(|r| r.offset).collect();
        assert_eq!(distinct.len(), 4, "four slots: the first four ranges take each once");
    }

    #[test]
    fn sequential_ranges_follow_each_other_and_wrap() {
        let ranges = plan_ranges(3, 10, &[2; 7], true);
        let offsets: Vec<u64> = ranges.iter().map(|r| r.offset).collect();
        let start = offsets[0];
        let expected: Vec<u64> = (0..7).map(|i| (start / 2 + i) % 5 * 2).collect();
        assert_eq!(offsets, expected);
        assert!(ranges.iter().all(|r| r.len == 2));
    }

    #[test]
    fn mixed_sizes_keep_their_sizes_inside_the_object_on_4_kib_boundaries() {
        let sizes = [1 << 20, 4 << 10, 64 << 10, 3000, 1 << 20];
        let object = 2 << 20;
        for sequential in [false, true] {
            let ranges = plan_ranges(5, object, &sizes, sequential);
            let lens: Vec<u64> = ranges.iter().map(|r| r.len).collect();
            assert_eq!(lens, sizes, "each range has its own size");
            assert!(ranges.iter().all(|r| r.offset % 4096 == 0 && r.offset + r.len <= object), "{ranges:?}");
        }
        let sequential = plan_ranges(5, object, &sizes, true);
        for pair in sequential.windows(2) {
            let after = pair[0].offset + pair[0].len;
            let next = after.div_ceil(4096) * 4096;
            let expected = if next + pair[1].len > object { 0 } else { next };
            assert_eq!(pair[1].offset, expected, "each starts where the one before ended, or wraps: {sequential:?}");
        }
        assert_eq!(plan_ranges(1, 100, &[50, 500], false)[1], ByteRange { offset: 0, len: 100 }, "cut at the end");
    }

    #[test]
    fn a_reads_first_and_last_bytes_come_from_its_ranges() {
        let outcome = RangesOutcome {
            bytes: 2,
            ranges: vec![
                RangeTimes { first_byte_s: 0.2, complete_s: 0.5 },
                RangeTimes { first_byte_s: 0.1, complete_s: 0.3 },
            ],
            streams: 1,
        };
        assert_eq!((outcome.first_byte_s(), outcome.last_byte_s()), (0.1, 0.5));
    }
}
