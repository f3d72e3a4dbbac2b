//! A sweep run by a fleet: every host given the same `--start-at` runs the
//! points in the same shuffled order (seeded by that instant), and point k's
//! timed rounds begin at the same instant on every host, `--start-at` plus
//! k slots of the point's share of `--sweep-budget` and a margin for
//! connecting, warming up and cleaning up. So each point's hosts overlap,
//! and `merge` puts them together point by point.

use super::Sweep;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Between one point's last round and the next point's first: cleanup,
/// connecting and the warmup fit in it (a host that overruns says it began late).
pub const POINT_MARGIN: Duration = Duration::from_secs(10);

/// When each point's rounds begin, in the order the points run.
#[derive(Clone, Debug)]
pub struct Aligned {
    pub first: SystemTime,
    pub slot: Duration,
}

impl Aligned {
    /// The instant the `k`th point to run (from 0) begins its rounds.
    pub fn point_start(&self, k: usize) -> SystemTime {
        self.first + self.slot * k as u32
    }
}

impl Sweep {
    /// Aligns the sweep to a fleet's `start`: the order every host with
    /// the same start computes, and each point's slot. Needs a budget.
    pub fn aligned_to(mut self, start: SystemTime) -> Result<(Sweep, Aligned), String> {
        let Some(share) = self.share else {
            return Err(
                "--start-at and --start-in line up a fleet's sweep point by point: add --sweep-budget, which fixes each point's length"
                    .into(),
            );
        };
        let seed = start.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        self.order = seeded_order(self.points.len(), seed);
        Ok((self, Aligned { first: start, slot: share + POINT_MARGIN }))
    }
}

/// A permutation of `0..points` that depends on `seed` alone (Fisher-Yates
/// over a SplitMix64 stream), so hosts that share the seed share the order.
pub fn seeded_order(points: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points).collect();
    for i in (1..points).rev() {
        order.swap(i, (crate::units::splitmix64(seed.wrapping_add(i as u64)) % (i as u64 + 1)) as usize);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_with_one_start_share_one_order_and_each_is_a_permutation() {
        let a = seeded_order(12, 1_764_000_000_000);
        assert_eq!(a, seeded_order(12, 1_764_000_000_000));
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..12).collect::<Vec<_>>());
        // Another start gives another order (of 12! orders, the same one is a 1 in 479 million chance).
        assert_ne!(a, seeded_order(12, 1_764_000_000_001));
    }

    #[test]
    fn each_point_begins_a_slot_after_the_last() {
        let first = UNIX_EPOCH + Duration::from_secs(1000);
        let aligned = Aligned { first, slot: Duration::from_secs(25) };
        assert_eq!(aligned.point_start(0), first);
        assert_eq!(aligned.point_start(3), first + Duration::from_secs(75));
    }
}
