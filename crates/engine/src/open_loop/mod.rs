//! Open-loop load: arrivals at an offered rate, each sent at its intended
//! time whatever the earlier ones are doing, so a stall delays the requests
//! due during it instead of hiding them (coordinated omission). Latency is
//! counted from each arrival's intended start; service time from its actual
//! start; arrivals that found `--max-in-flight` requests outstanding are
//! dropped and counted, as k6 counts dropped iterations.

mod arrivals;
mod lead;
mod pacer;
mod saved;
mod summary;
mod tasks;
mod verdict;

pub use arrivals::{DEFAULT_MAX_IN_FLIGHT, MOST_PER_ROUND, OpenLoop, Spacing, parse_open_loop};
pub use pacer::{LATE_AFTER, Pacer, PacingTally, Ticket, Turn, pace};
pub use summary::{LatencyRatio, OpenLoopSummary, PacedRound, RoundLatency, TransportLatency, summarize};
pub use tasks::run_paced;
pub use verdict::THROUGHPUT_SET;

/// Latencies in microseconds from 1 µs, 3 significant digits (within 0.1%),
/// growing to hold what is added: histograms of any round or host merge.
/// Record with `record` (`saturating_record` clamps to the size so far).
pub fn latency_histogram() -> hdrhistogram::Histogram<u64> {
    // Growing to what it holds: a histogram sized for an hour up front is
    // 180 KB, and a long run keeps one a round.
    hdrhistogram::Histogram::new(3).expect("3 significant digits")
}

/// The longest latency a report's histograms are read up to, µs (an hour).
pub const HIGHEST_LATENCY_US: u64 = 3_600_000_000;

/// A duration as the microseconds a latency histogram records (at least 1).
pub fn micros(duration: std::time::Duration) -> u64 {
    (duration.as_micros() as u64).max(1)
}
