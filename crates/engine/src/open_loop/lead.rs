//! How early the pacer hands an arrival to the runtime. A parked runtime
//! worker takes a while to wake: on this project's 2-vCPU VM up to 300 µs
//! at the 99th percentile, far more than the pacer's own error. So each
//! arrival is released that much early and its task waits out the rest
//! awake (yielding, see `Ticket::start`), and starts on a running CPU. The
//! lead follows the wakes it sees: the 99th percentile of the last
//! `WINDOW` wakes (the pacer's own overshoot included), so a machine that
//! wakes fast pays for no waiting it does not need. The waiting costs CPU:
//! `cargo bench --bench pacing` prints how much.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How many recent wakes the lead is worked out from (a second at 1,000/s).
const WINDOW: usize = 1024;

/// The lead is worked out again after this many wakes.
const EVERY: usize = 256;

/// The lead before any wake was seen: about this machine's p99 wake.
const FIRST_LEAD_US: u64 = 250;

/// The longest lead: beyond it the waiting costs more than a late start.
const LONGEST_LEAD_US: u64 = 1_000;

/// The pacer's lead, shared by the pacer (which reads it) and the
/// arrivals' tasks (whose wakes set it).
pub(super) struct Lead {
    micros: AtomicU64,
}

impl Lead {
    pub(super) fn new() -> Lead {
        Lead { micros: AtomicU64::new(FIRST_LEAD_US) }
    }

    /// The lead for an arrival due `gap` after the one before it: none when
    /// arrivals come closer than twice the lead (the workers are busy with
    /// the ones before it, and tasks waiting out overlapping leads would
    /// take a CPU between them).
    pub(super) fn before(&self, gap: Duration) -> Duration {
        let lead = Duration::from_micros(self.micros.load(Ordering::Relaxed));
        if gap >= 2 * lead { lead } else { Duration::ZERO }
    }

    fn set(&self, micros: u64) {
        self.micros.store(micros, Ordering::Relaxed);
    }

    pub(super) fn current(&self) -> Duration {
        Duration::from_micros(self.micros.load(Ordering::Relaxed))
    }
}

/// The last `WINDOW` wakes: from an arrival's release to its task's first poll.
pub(super) struct Wakes {
    recent: Vec<u64>,
    next: usize,
}

impl Wakes {
    pub(super) fn new() -> Wakes {
        Wakes { recent: Vec::with_capacity(WINDOW), next: 0 }
    }

    /// Counts one wake, and every `EVERY` wakes sets `lead` from the window.
    pub(super) fn record(&mut self, wake: Duration, lead: &Lead) {
        let micros = wake.as_micros() as u64;
        if self.recent.len() < WINDOW {
            self.recent.push(micros);
        } else {
            self.recent[self.next % WINDOW] = micros;
        }
        self.next += 1;
        if self.next % EVERY == 0 {
            lead.set(lead_for(&self.recent));
        }
    }
}

/// The 99th percentile of `wakes`, at most the longest lead.
fn lead_for(wakes: &[u64]) -> u64 {
    let mut sorted = wakes.to_vec();
    sorted.sort_unstable();
    let p99 = sorted[(sorted.len() * 99 / 100).min(sorted.len() - 1)];
    p99.min(LONGEST_LEAD_US)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lead_is_the_99th_percentile_of_the_recent_wakes() {
        let lead = Lead::new();
        let mut wakes = Wakes::new();
        // Wakes of 1..=1000 µs: the lead is set at the 256th, 512th and
        // 768th; the 768th from 1..=768, whose 99th percentile is at index
        // 768 * 99 / 100 = 760 of the sorted window: 761 µs.
        for micros in 1..=1000u64 {
            wakes.record(Duration::from_micros(micros), &lead);
        }
        assert_eq!(lead.current(), Duration::from_micros(761));
        for _ in 0..24 {
            wakes.record(Duration::from_micros(900), &lead);
        }
        // 1,024 wakes: 1..=1000 and 24 of 900. Sorted, 1..=899 take
        // indexes 0..=898, the 25 of 900 899..=923, 901..=1000 924..=1023:
        // index 1013 is 990.
        assert_eq!(lead.current(), Duration::from_micros(990));
    }

    #[test]
    fn a_fast_machine_waits_little_and_a_slow_one_at_most_the_longest_lead() {
        let lead = Lead::new();
        let mut wakes = Wakes::new();
        for _ in 0..EVERY {
            wakes.record(Duration::from_micros(20), &lead);
        }
        assert_eq!(lead.current(), Duration::from_micros(20));
        for _ in 0..WINDOW {
            wakes.record(Duration::from_millis(5), &lead);
        }
        assert_eq!(lead.current(), Duration::from_micros(LONGEST_LEAD_US));
    }

    #[test]
    fn arrivals_closer_than_twice_the_lead_get_none() {
        let lead = Lead::new();
        let first = Duration::from_micros(FIRST_LEAD_US);
        assert_eq!(lead.before(2 * first), first);
        assert_eq!(lead.before(2 * first - Duration::from_micros(1)), Duration::ZERO);
    }
}
