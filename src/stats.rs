//! Pure arithmetic over samples: per-transport summaries and the comparison
//! between transports. No clocks, no I/O: easy to check by hand.

use crate::config::TransportKind;
use crate::transport::Phases;
use crate::units::{GIB, mib_per_second};

/// One round of one transport: `concurrency` objects uploaded at once.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RoundSample {
    pub transport: TransportKind,
    pub round: u32,
    /// Wall time from the round's first upload start to its last upload's end.
    pub elapsed_s: f64,
    /// Bytes of the objects that finished.
    pub bytes: u64,
    /// Every object of the round finished.
    pub ok: bool,
}

/// One object upload.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ObjectSample {
    pub transport: TransportKind,
    pub round: u32,
    pub worker: u32,
    pub object: String,
    pub bytes: u64,
    /// Start, in seconds since the run's measurement began.
    pub start_s: f64,
    pub elapsed_s: f64,
    pub ok: bool,
    pub error: Option<String>,
    #[serde(flatten)]
    pub phases: Phases,
    /// Requests tried again, sessions resumed, and bytes sent more than once.
    pub retries: u32,
    pub resumes: u32,
    pub resent_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TransportSummary {
    pub transport: TransportKind,
    /// Rounds in which every object finished; only these are timed.
    pub runs: usize,
    /// Objects that finished.
    pub objects: usize,
    pub bytes_per_run: u64,
    pub min_s: f64,
    pub median_s: f64,
    pub mean_s: f64,
    pub max_s: f64,
    /// Per-object upload times.
    pub p50_s: f64,
    pub p90_s: f64,
    pub p99_s: f64,
    /// Total bytes / total round time (= bytes_per_run / mean): the aggregate throughput.
    pub throughput_mib_s: f64,
    /// Mean over objects of object size / upload time: the per-object throughput.
    pub per_object_mib_s: f64,
    /// Medians over objects of the upload phases.
    pub session_median_s: f64,
    pub transfer_median_s: f64,
    pub finalize_median_s: f64,
    pub errors: usize,
    pub retries: u64,
    pub resumes: u64,
    pub resent_bytes: u64,
    pub protocol: String,
    /// Client CPU (user + system) during this transport's timed rounds.
    pub cpu_s: f64,
    pub cpu_s_per_gib: f64,
    pub connections: u64,
    /// Bytes the kernel sent on this transport's sockets during its timed rounds.
    pub wire_bytes: u64,
    /// wire_bytes / payload bytes of those rounds.
    pub wire_ratio: f64,
    /// Server addresses its connections went to.
    pub peers: Vec<String>,
}

/// What the runner measured around a transport's rounds, beyond the samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Accounting {
    pub protocol: String,
    pub cpu_s: f64,
    pub connections: u64,
    pub wire_bytes: u64,
    pub peers: Vec<String>,
}

pub fn summarize(
    transport: TransportKind,
    bytes_per_run: u64,
    rounds: &[RoundSample],
    objects: &[ObjectSample],
    accounting: Accounting,
) -> TransportSummary {
    let mine: Vec<&RoundSample> = rounds.iter().filter(|r| r.transport == transport).collect();
    let mut times: Vec<f64> = mine.iter().filter(|r| r.ok).map(|r| r.elapsed_s).collect();
    times.sort_by(f64::total_cmp);
    let total_time: f64 = times.iter().sum();
    let total_bytes = bytes_per_run * times.len() as u64;
    let measured_bytes: u64 = mine.iter().map(|r| r.bytes).sum();
    let objects: Vec<&ObjectSample> = objects.iter().filter(|o| o.transport == transport).collect();
    let finished: Vec<&&ObjectSample> = objects.iter().filter(|o| o.ok).collect();
    let object_times: Vec<f64> = finished.iter().map(|o| o.elapsed_s).collect();
    let quantile = percentiles(&object_times);
    let per_object: Vec<f64> = finished.iter().map(|o| mib_per_second(o.bytes, o.elapsed_s)).collect();
    let phase_median = |phase: fn(&Phases) -> f64| {
        let mut values: Vec<f64> = finished.iter().map(|o| phase(&o.phases)).collect();
        values.sort_by(f64::total_cmp);
        median(&values)
    };
    let ratio = |value: f64, bytes: u64| if bytes == 0 { 0.0 } else { value / bytes as f64 };
    TransportSummary {
        transport,
        runs: times.len(),
        objects: object_times.len(),
        bytes_per_run,
        min_s: times.first().copied().unwrap_or(0.0),
        median_s: median(&times),
        mean_s: if times.is_empty() { 0.0 } else { total_time / times.len() as f64 },
        max_s: times.last().copied().unwrap_or(0.0),
        p50_s: quantile(0.50),
        p90_s: quantile(0.90),
        p99_s: quantile(0.99),
        throughput_mib_s: mib_per_second(total_bytes, total_time),
        per_object_mib_s: if per_object.is_empty() {
            0.0
        } else {
            per_object.iter().sum::<f64>() / per_object.len() as f64
        },
        session_median_s: phase_median(|p| p.session_s),
        transfer_median_s: phase_median(|p| p.transfer_s),
        finalize_median_s: phase_median(|p| p.finalize_s),
        errors: objects.iter().filter(|o| !o.ok).count(),
        retries: objects.iter().map(|o| o.retries as u64).sum(),
        resumes: objects.iter().map(|o| o.resumes as u64).sum(),
        resent_bytes: objects.iter().map(|o| o.resent_bytes).sum(),
        protocol: accounting.protocol,
        cpu_s: accounting.cpu_s,
        cpu_s_per_gib: ratio(accounting.cpu_s * GIB as f64, measured_bytes),
        connections: accounting.connections,
        wire_bytes: accounting.wire_bytes,
        wire_ratio: ratio(accounting.wire_bytes as f64, measured_bytes),
        peers: accounting.peers,
    }
}

/// Median of sorted values (mean of the middle two for an even count).
pub fn median(sorted: &[f64]) -> f64 {
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Quantiles of per-object times through an HDR histogram in microseconds
/// (3 significant digits, so a quantile is within 0.1% of the true value).
fn percentiles(seconds: &[f64]) -> impl Fn(f64) -> f64 {
    // 1 µs to a day; longer uploads saturate rather than fail.
    let mut histogram =
        hdrhistogram::Histogram::<u64>::new_with_bounds(1, 86_400_000_000, 3).expect("valid histogram bounds");
    for s in seconds {
        histogram.saturating_record((s * 1e6).round().max(1.0) as u64);
    }
    move |q| {
        if histogram.is_empty() { 0.0 } else { histogram.value_at_quantile(q) as f64 / 1e6 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MIB;

    fn round(transport: TransportKind, round: u32, elapsed_s: f64) -> RoundSample {
        RoundSample { transport, round, elapsed_s, bytes: 64 * MIB, ok: true }
    }

    fn object(transport: TransportKind, elapsed_s: f64, ok: bool) -> ObjectSample {
        ObjectSample {
            transport,
            round: 0,
            worker: 0,
            object: "o".into(),
            bytes: 64 * MIB,
            start_s: 0.0,
            elapsed_s,
            ok,
            error: (!ok).then(|| "boom".into()),
            phases: Phases { session_s: 0.0, transfer_s: elapsed_s * 0.9, finalize_s: elapsed_s * 0.1 },
            retries: if ok { 0 } else { 2 },
            resumes: 0,
            resent_bytes: 0,
        }
    }

    /// The original tool's published run: 64 MiB rounds of 8.039, 8.513 and 8.829 s.
    #[test]
    fn the_original_tools_figures() {
        let json = TransportKind::Json;
        let rounds = [round(json, 0, 8.039), round(json, 1, 8.513), round(json, 2, 8.829)];
        let summary = summarize(json, 64 * MIB, &rounds, &[], Accounting::default());
        assert_eq!(summary.runs, 3);
        assert_eq!(summary.min_s, 8.039);
        assert_eq!(summary.median_s, 8.513);
        assert_eq!(format!("{:.2}", summary.mean_s), "8.46");
        assert_eq!(summary.max_s, 8.829);
        assert_eq!(format!("{:.2}", summary.throughput_mib_s), "7.56");
        // throughput = bytes/run / mean, as the original defined it.
        assert!((summary.throughput_mib_s - 64.0 / summary.mean_s).abs() < 1e-12);

        let grpc = TransportSummary { transport: TransportKind::Grpc, throughput_mib_s: 8.13, ..summary.clone() };
        let comparison = crate::compare::compare(&[summary, grpc], &[]).unwrap();
        assert_eq!(comparison.faster, TransportKind::Grpc);
        assert!(comparison.sentence().starts_with("grpc was 7.5% faster than http-json (8.13 vs 7.56 MiB/s)"));
    }

    #[test]
    fn failed_rounds_are_not_timed_and_errors_are_counted() {
        let json = TransportKind::Json;
        let mut bad = round(json, 1, 0.5);
        bad.ok = false;
        let rounds = [round(json, 0, 2.0), bad, round(TransportKind::Grpc, 0, 1.0)];
        let objects = [object(json, 2.0, true), object(json, 0.5, false), object(TransportKind::Grpc, 1.0, true)];
        let accounting = Accounting { cpu_s: 0.5, wire_bytes: 130 * MIB, ..Accounting::default() };
        let summary = summarize(json, 64 * MIB, &rounds, &objects, accounting);
        assert_eq!((summary.runs, summary.objects, summary.errors, summary.retries), (1, 1, 1, 2));
        assert_eq!(summary.throughput_mib_s, 32.0);
        assert_eq!(summary.per_object_mib_s, 32.0, "64 MiB in 2 s");
        assert_eq!(summary.cpu_s_per_gib, 4.0, "0.5 s for 128 MiB measured");
        assert!((summary.wire_ratio - 130.0 / 128.0).abs() < 1e-12);
        assert!((summary.transfer_median_s - 1.8).abs() < 1e-12 && (summary.finalize_median_s - 0.2).abs() < 1e-12);
    }

    #[test]
    fn percentiles_come_from_object_times() {
        let json = TransportKind::Json;
        let objects: Vec<ObjectSample> = (1..=100).map(|i| object(json, i as f64 / 100.0, true)).collect();
        let summary = summarize(json, MIB, &[], &objects, Accounting::default());
        assert!((summary.p50_s - 0.50).abs() < 0.001, "{}", summary.p50_s);
        assert!((summary.p90_s - 0.90).abs() < 0.001, "{}", summary.p90_s);
        assert!((summary.p99_s - 0.99).abs() < 0.001, "{}", summary.p99_s);
    }

    #[test]
    fn medians_of_even_counts_average_the_middle() {
        assert_eq!(median(&[1.0, 2.0, 3.0, 10.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }
}
