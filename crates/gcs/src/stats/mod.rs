//! Pure arithmetic over samples: per-transport summaries and the comparison
//! between transports. No clocks, no I/O: easy to check by hand.

use crate::config::TransportKind;
use engine::error_kinds::ErrorKinds;
use units::{GIB, mib_per_second};

mod of_samples;
mod samples;
mod tally;
pub use of_samples::{summarize_samples, tally_from_samples};
pub use samples::{ObjectSample, RoundSample};
pub use tally::{Pooled, Recording, Tally, Times};

/// What a row of figures measured.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    #[default]
    Upload,
    Download,
}

impl Operation {
    pub fn name(self) -> &'static str {
        match self {
            Operation::Upload => "upload",
            Operation::Download => "download",
        }
    }

    /// The operation whose rounds pair as `part` (`PairedRound::part`).
    pub fn of_part(part: u8) -> Operation {
        if part == Operation::Download as u8 { Operation::Download } else { Operation::Upload }
    }

    /// What a workload's rounds do, in report order.
    pub fn of(workload: crate::config::Workload) -> &'static [Operation] {
        match workload {
            crate::config::Workload::Upload | crate::config::Workload::Append => &[Operation::Upload],
            crate::config::Workload::Download | crate::config::Workload::Ranges => &[Operation::Download],
            crate::config::Workload::W1r3 => &[Operation::Upload, Operation::Download],
        }
    }
}

/// One transport's figures. A figure that nothing measured (no round or no
/// upload finished) is `None`: shown as "-" and serialized as null, never 0.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct TransportSummary {
    pub transport: TransportKind,
    #[serde(default)]
    pub operation: Operation,
    /// Rounds in which every object finished; only these are timed.
    pub runs: usize,
    /// Objects that finished.
    pub objects: usize,
    pub bytes_per_run: u64,
    /// Round times (complete rounds).
    pub min_s: Option<f64>,
    pub median_s: Option<f64>,
    pub mean_s: Option<f64>,
    pub max_s: Option<f64>,
    /// Per-object upload times (finished objects, retries and back-off included).
    pub p50_s: Option<f64>,
    pub p90_s: Option<f64>,
    pub p99_s: Option<f64>,
    /// Total bytes / total round time (= bytes_per_run / mean): the aggregate throughput.
    pub throughput_mib_s: Option<f64>,
    /// Bytes of finished objects / the sum of their upload times (retries and
    /// back-off included): what one upload gets, as its caller sees it.
    pub per_object_mib_s: Option<f64>,
    /// Objects per second over the complete rounds (useful for small objects).
    pub objects_per_s: Option<f64>,
    /// Medians over finished objects of the upload phases.
    pub session_median_s: Option<f64>,
    pub transfer_median_s: Option<f64>,
    pub finalize_median_s: Option<f64>,
    /// Reads: time to the first byte over the finished reads (None for uploads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_byte_p50_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_byte_p90_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_byte_p99_s: Option<f64>,
    pub errors: usize,
    /// The failed items by kind (`{"HTTP 503": 2}`); they sum to `errors`.
    #[serde(default)]
    pub error_kinds: ErrorKinds,
    /// What the retries followed, by kind; they sum to `retries`.
    #[serde(default)]
    pub retried_after: ErrorKinds,
    /// Finished reads whose whole object could not be checked: the server
    /// sent no crc32c of it.
    #[serde(default)]
    pub unchecked_reads: usize,
    /// Finished uploads whose length could not be checked: the server's
    /// answer said no size.
    #[serde(default)]
    pub unchecked_uploads: usize,
    pub retries: u64,
    pub resumes: u64,
    pub resent_bytes: u64,
    pub protocol: String,
    /// Client CPU (user + system) during this transport's complete rounds.
    pub cpu_s: f64,
    /// cpu_s / the payload bytes of those same rounds.
    pub cpu_s_per_gib: Option<f64>,
    /// cpu_s / the objects finished in those same rounds, in µs: the figure
    /// for small objects, where bytes are not the story.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_us_per_object: Option<f64>,
    /// The share busy, 0 to 1, of the CPU available to the tool during those
    /// same rounds: the host's (every core, every process), or the CPUs the
    /// tool's process may use (affinity, cgroup quota) where those were
    /// busier (`engine::host_cpu`); pooled over a fleet's hosts. `None` in
    /// reports written before rounds kept it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_cpu_busy: Option<f64>,
    pub connections: u64,
    /// Bytes the kernel sent on this transport's sockets during its complete rounds.
    pub wire_bytes: u64,
    /// wire_bytes / payload bytes of those same rounds (re-sent bytes included).
    pub wire_ratio: Option<f64>,
    /// wire_bytes / the objects finished in those same rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wire_bytes_per_object: Option<f64>,
    /// Bytes re-sent by retries and resumes within those rounds (part of wire_bytes).
    pub wire_resent_bytes: u64,
    /// Bytes TCP retransmitted within those rounds (part of wire_bytes): loss on the path.
    #[serde(default)]
    pub wire_retransmitted_bytes: u64,
    /// Server addresses its connections went to.
    pub peers: Vec<String>,
    /// The finished objects' times (those of p50-p99), in microseconds:
    /// HdrHistogram's V2 compressed encoding in base64, so that reports merge.
    #[serde(default)]
    pub latency_histogram: Option<String>,
    /// What its items came to, every time whole (3 significant digits): the
    /// figures above are read from it and a fleet's merge adds it up, where
    /// a long run's folded records keep theirs at 2 (`rounds[].items`).
    /// Reports written before it are read from their records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Tally>,
}

/// What the runner measured around a transport's rounds, beyond the samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Accounting {
    pub protocol: String,
    pub connections: u64,
    pub peers: Vec<String>,
    /// Its items as the runner tallied them, whole; `None`: pooled from the rounds.
    pub items: Option<Tally>,
}

pub fn summarize(
    transport: TransportKind,
    operation: Operation,
    bytes_per_run: u64,
    rounds: &[RoundSample],
    cut_off: &[RoundSample],
    accounting: Accounting,
) -> TransportSummary {
    // Every ratio below divides figures of the same work: complete rounds
    // for round times, CPU and wire bytes; finished objects for object times.
    let Complete {
        times,
        total_time,
        total_bytes,
        wire_bytes,
        wire_retransmitted_bytes,
        cpu_s,
        host_cpu,
        items: complete,
    } = Complete::of(rounds, transport, operation);
    let of_row = |r: &&RoundSample| r.transport == transport && r.operation == operation;
    let all = Items::of_lane(accounting.items.as_ref(), rounds.iter().chain(cut_off).filter(of_row));
    let [p50_s, p90_s, p99_s] = [0.50, 0.90, 0.99].map(|q| all.latency.quantile(q));
    let [first_byte_p50_s, first_byte_p90_s, first_byte_p99_s] = [0.50, 0.90, 0.99].map(|q| all.first_byte.quantile(q));
    let upload = operation == Operation::Upload;
    let per_byte = |value: f64| (total_bytes > 0).then(|| value / total_bytes as f64);
    let complete_objects = complete.finished;
    let per_object = |value: f64| (total_bytes > 0 && complete_objects > 0).then(|| value / complete_objects as f64);
    let t = &all.tally;
    TransportSummary {
        transport,
        operation,
        runs: times.len(),
        objects: t.finished as usize,
        // What a complete round moved, on average: the plan's bytes in
        // closed loop; less in open loop when arrivals were dropped.
        bytes_per_run: moved_per_run(bytes_per_run, total_bytes, times.len()),
        min_s: times.first().copied(),
        median_s: median(&times),
        mean_s: (!times.is_empty()).then(|| total_time / times.len() as f64),
        max_s: times.last().copied(),
        p50_s,
        p90_s,
        p99_s,
        throughput_mib_s: rate(total_bytes, total_time),
        per_object_mib_s: rate(t.finished_bytes, t.finished_s),
        objects_per_s: (total_time > 0.0).then(|| complete_objects as f64 / total_time),
        // A read has no session or finalize phase: unmeasured, not 0.
        session_median_s: all.session.quantile(0.5).filter(|_| upload),
        transfer_median_s: all.transfer.quantile(0.5),
        finalize_median_s: all.finalize.quantile(0.5).filter(|_| upload),
        first_byte_p50_s,
        first_byte_p90_s,
        first_byte_p99_s,
        errors: t.failed as usize,
        error_kinds: t.error_kinds.clone(),
        retried_after: t.retried_after.clone(),
        unchecked_reads: if upload { 0 } else { t.unchecked as usize },
        unchecked_uploads: if upload { t.unchecked as usize } else { 0 },
        retries: t.retries,
        resumes: t.resumes,
        resent_bytes: t.resent_bytes,
        protocol: accounting.protocol,
        cpu_s,
        cpu_s_per_gib: per_byte(cpu_s * GIB as f64),
        cpu_us_per_object: per_object(cpu_s * 1e6),
        host_cpu_busy: host_cpu.and_then(|cpu| cpu.busy_share()),
        connections: accounting.connections,
        wire_bytes,
        wire_ratio: per_byte(wire_bytes as f64),
        wire_bytes_per_object: per_object(wire_bytes as f64),
        wire_resent_bytes: complete.resent_bytes,
        wire_retransmitted_bytes,
        peers: accounting.peers,
        latency_histogram: all.latency.packed().map(|t| t.histogram),
        items: accounting.items,
    }
}

/// Rounds' tallies added up, with their times pooled.
pub struct Items {
    pub tally: Tally,
    pub latency: Pooled,
    pub first_byte: Pooled,
    pub session: Pooled,
    pub transfer: Pooled,
    pub finalize: Pooled,
}

impl Items {
    pub fn of<'a>(rounds: impl Iterator<Item = &'a RoundSample>) -> Items {
        let mut tally = Tally::default();
        // Counts add; each time's histograms pool once, not pairwise.
        let tallies: Vec<&Tally> = rounds.filter_map(|r| r.items.as_ref()).collect();
        let pool = |of: fn(&Tally) -> Option<&Times>| Pooled::of(tallies.iter().map(|t| of(t)));
        let items = Items {
            latency: pool(|t| t.latency.as_ref()),
            first_byte: pool(|t| t.first_byte.as_ref()),
            session: pool(|t| t.session.as_ref()),
            transfer: pool(|t| t.transfer.as_ref()),
            finalize: pool(|t| t.finalize.as_ref()),
            tally: Tally::default(),
        };
        for round in tallies {
            tally.absorb_counts(round);
        }
        Items { tally, ..items }
    }

    /// A transport's items: its tally kept whole when there is one, else
    /// its rounds' (`rounds`) pooled.
    pub fn of_lane<'a>(whole: Option<&Tally>, rounds: impl Iterator<Item = &'a RoundSample>) -> Items {
        whole.map_or_else(|| Items::of(rounds), Items::of_tally)
    }

    fn of_tally(tally: &Tally) -> Items {
        let pool = |times: &Option<Times>| Pooled::of(std::iter::once(times.as_ref()));
        Items {
            latency: pool(&tally.latency),
            first_byte: pool(&tally.first_byte),
            session: pool(&tally.session),
            transfer: pool(&tally.transfer),
            finalize: pool(&tally.finalize),
            tally: tally.clone(),
        }
    }
}

/// A transport's complete rounds of one operation, added up.
struct Complete {
    times: Vec<f64>,
    total_time: f64,
    total_bytes: u64,
    wire_bytes: u64,
    wire_retransmitted_bytes: u64,
    cpu_s: f64,
    /// The host's CPU over them all; `None` if a round has no reading.
    host_cpu: Option<engine::host_cpu::HostCpu>,
    /// Their items' counts.
    items: Tally,
}

impl Complete {
    fn of(rounds: &[RoundSample], transport: TransportKind, operation: Operation) -> Self {
        let complete: Vec<&RoundSample> =
            rounds.iter().filter(|r| r.transport == transport && r.operation == operation && r.ok).collect();
        let times = sorted(complete.iter().map(|r| r.elapsed_s).collect());
        let sum = |figure: fn(&RoundSample) -> u64| complete.iter().map(|r| figure(r)).sum::<u64>();
        Complete {
            total_time: times.iter().sum(),
            times,
            total_bytes: sum(|r| r.bytes),
            wire_bytes: sum(|r| r.wire_bytes),
            wire_retransmitted_bytes: sum(|r| r.retransmitted_bytes),
            cpu_s: complete.iter().map(|r| r.cpu_s).sum(),
            host_cpu: engine::host_cpu::HostCpu::total(complete.iter().map(|r| r.host_cpu.as_ref())),
            items: complete.iter().filter_map(|r| r.items.as_ref()).fold(Tally::default(), |mut sum, t| {
                sum.absorb_counts(t);
                sum
            }),
        }
    }
}

/// What a complete round moved, on average: the plan's bytes in closed
/// loop; less in open loop when arrivals were dropped.
fn moved_per_run(planned: u64, total_bytes: u64, runs: usize) -> u64 {
    match runs {
        0 => planned,
        runs => total_bytes / runs as u64,
    }
}

fn sorted(mut values: Vec<f64>) -> Vec<f64> {
    values.sort_by(f64::total_cmp);
    values
}

/// MiB/s, or `None` when nothing was timed.
fn rate(bytes: u64, seconds: f64) -> Option<f64> {
    (bytes > 0 && seconds > 0.0).then(|| mib_per_second(bytes, seconds))
}

/// Median of sorted values (mean of the middle two for an even count).
pub fn median(sorted: &[f64]) -> Option<f64> {
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => Some(sorted[n / 2]),
        n => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// Per-object times in an HDR histogram of microseconds (3 significant
/// digits, so a quantile is within 0.1% of the true value).
pub fn latency_histogram(seconds: &[f64]) -> hdrhistogram::Histogram<u64> {
    // 1 µs to a day; longer uploads saturate rather than fail.
    let mut histogram =
        hdrhistogram::Histogram::<u64>::new_with_bounds(1, 86_400_000_000, 3).expect("valid histogram bounds");
    for s in seconds {
        histogram.saturating_record((s * 1e6).round().max(1.0) as u64);
    }
    histogram
}

/// A histogram's quantile is the top of its bucket (3 significant digits),
/// which can lie above every value recorded: it is cut to the slowest, so
/// that no percentile exceeds the max of the same data.
pub fn at_most_the_slowest(quantile: Option<f64>, values: &[f64]) -> Option<f64> {
    let slowest = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    quantile.map(|q| q.min(slowest))
}

/// The `q` quantile of a latency histogram, in seconds.
pub fn quantile_s(histogram: &hdrhistogram::Histogram<u64>, q: f64) -> Option<f64> {
    (!histogram.is_empty()).then(|| histogram.value_at_quantile(q) as f64 / 1e6)
}

mod verdict;
pub use verdict::{Verdict, compare};

#[cfg(test)]
mod compare_tests;
#[cfg(test)]
pub(crate) mod tests;
