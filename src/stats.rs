//! Pure arithmetic over samples: per-transport summaries and the comparison
//! between transports. No clocks, no I/O: easy to check by hand.

use crate::config::TransportKind;
use crate::units::mib_per_second;

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
    /// Total bytes / total round time (= bytes_per_run / mean).
    pub throughput_mib_s: f64,
    pub errors: usize,
    pub retries: u64,
    pub protocol: String,
}

pub fn summarize(
    transport: TransportKind,
    bytes_per_run: u64,
    rounds: &[RoundSample],
    objects: &[ObjectSample],
    retries: u64,
    protocol: String,
) -> TransportSummary {
    let mut times: Vec<f64> = rounds
        .iter()
        .filter(|r| r.transport == transport && r.ok)
        .map(|r| r.elapsed_s)
        .collect();
    times.sort_by(f64::total_cmp);
    let total_time: f64 = times.iter().sum();
    let total_bytes = bytes_per_run * times.len() as u64;
    let mine: Vec<&ObjectSample> = objects
        .iter()
        .filter(|o| o.transport == transport)
        .collect();
    let object_times: Vec<f64> = mine.iter().filter(|o| o.ok).map(|o| o.elapsed_s).collect();
    let quantile = percentiles(&object_times);
    TransportSummary {
        transport,
        runs: times.len(),
        objects: object_times.len(),
        bytes_per_run,
        min_s: times.first().copied().unwrap_or(0.0),
        median_s: median(&times),
        mean_s: if times.is_empty() {
            0.0
        } else {
            total_time / times.len() as f64
        },
        max_s: times.last().copied().unwrap_or(0.0),
        p50_s: quantile(0.50),
        p90_s: quantile(0.90),
        p99_s: quantile(0.99),
        throughput_mib_s: mib_per_second(total_bytes, total_time),
        errors: mine.iter().filter(|o| !o.ok).count(),
        retries,
        protocol,
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
    let mut histogram = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 86_400_000_000, 3)
        .expect("valid histogram bounds");
    for s in seconds {
        histogram.saturating_record((s * 1e6).round().max(1.0) as u64);
    }
    move |q| {
        if histogram.is_empty() {
            0.0
        } else {
            histogram.value_at_quantile(q) as f64 / 1e6
        }
    }
}

/// Which transport moved more bytes per second, and by how much.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Comparison {
    pub faster: TransportKind,
    pub slower: TransportKind,
    /// (faster / slower - 1) x 100.
    pub percent: f64,
    pub faster_mib_s: f64,
    pub slower_mib_s: f64,
}

pub fn compare(summaries: &[TransportSummary]) -> Option<Comparison> {
    let [a, b] = summaries else { return None };
    if a.throughput_mib_s <= 0.0 || b.throughput_mib_s <= 0.0 {
        return None;
    }
    let (fast, slow) = if a.throughput_mib_s >= b.throughput_mib_s {
        (a, b)
    } else {
        (b, a)
    };
    Some(Comparison {
        faster: fast.transport,
        slower: slow.transport,
        percent: (fast.throughput_mib_s / slow.throughput_mib_s - 1.0) * 100.0,
        faster_mib_s: fast.throughput_mib_s,
        slower_mib_s: slow.throughput_mib_s,
    })
}

impl Comparison {
    /// `grpc was 7.5% faster than http-json (8.13 vs 7.56 MiB/s)`.
    pub fn sentence(&self) -> String {
        format!(
            "{} was {:.1}% faster than {} ({:.2} vs {:.2} MiB/s)",
            self.faster.name(),
            self.percent,
            self.slower.name(),
            self.faster_mib_s,
            self.slower_mib_s
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MIB;

    fn round(transport: TransportKind, round: u32, elapsed_s: f64) -> RoundSample {
        RoundSample {
            transport,
            round,
            elapsed_s,
            bytes: 64 * MIB,
            ok: true,
        }
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
        }
    }

    /// The original tool's published run: 64 MiB rounds of 8.039, 8.513 and 8.829 s.
    #[test]
    fn the_original_tools_figures() {
        let json = TransportKind::Json;
        let rounds = [
            round(json, 0, 8.039),
            round(json, 1, 8.513),
            round(json, 2, 8.829),
        ];
        let summary = summarize(json, 64 * MIB, &rounds, &[], 0, String::new());
        assert_eq!(summary.runs, 3);
        assert_eq!(summary.min_s, 8.039);
        assert_eq!(summary.median_s, 8.513);
        assert_eq!(format!("{:.2}", summary.mean_s), "8.46");
        assert_eq!(summary.max_s, 8.829);
        assert_eq!(format!("{:.2}", summary.throughput_mib_s), "7.56");
        // throughput = bytes/run / mean, as the original defined it.
        assert!((summary.throughput_mib_s - 64.0 / summary.mean_s).abs() < 1e-12);

        let grpc = TransportSummary {
            transport: TransportKind::Grpc,
            throughput_mib_s: 8.13,
            ..summary.clone()
        };
        let comparison = compare(&[summary, grpc]).unwrap();
        assert_eq!(comparison.faster, TransportKind::Grpc);
        assert_eq!(
            comparison.sentence(),
            "grpc was 7.5% faster than http-json (8.13 vs 7.56 MiB/s)"
        );
    }

    #[test]
    fn failed_rounds_are_not_timed_and_errors_are_counted() {
        let json = TransportKind::Json;
        let mut bad = round(json, 1, 0.5);
        bad.ok = false;
        let rounds = [round(json, 0, 2.0), bad, round(TransportKind::Grpc, 0, 1.0)];
        let objects = [
            object(json, 2.0, true),
            object(json, 0.5, false),
            object(TransportKind::Grpc, 1.0, true),
        ];
        let summary = summarize(json, 64 * MIB, &rounds, &objects, 2, "HTTP/1.1".into());
        assert_eq!(
            (
                summary.runs,
                summary.objects,
                summary.errors,
                summary.retries
            ),
            (1, 1, 1, 2)
        );
        assert_eq!(summary.throughput_mib_s, 32.0);
    }

    #[test]
    fn percentiles_come_from_object_times() {
        let json = TransportKind::Json;
        let objects: Vec<ObjectSample> = (1..=100)
            .map(|i| object(json, i as f64 / 100.0, true))
            .collect();
        let summary = summarize(json, MIB, &[], &objects, 0, String::new());
        assert!((summary.p50_s - 0.50).abs() < 0.001, "{}", summary.p50_s);
        assert!((summary.p90_s - 0.90).abs() < 0.001, "{}", summary.p90_s);
        assert!((summary.p99_s - 0.99).abs() < 0.001, "{}", summary.p99_s);
    }

    #[test]
    fn medians_of_even_counts_average_the_middle() {
        assert_eq!(median(&[1.0, 2.0, 3.0, 10.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn no_comparison_without_two_measured_transports() {
        let json = summarize(TransportKind::Json, MIB, &[], &[], 0, String::new());
        assert_eq!(compare(std::slice::from_ref(&json)), None);
        let grpc = TransportSummary {
            transport: TransportKind::Grpc,
            throughput_mib_s: 5.0,
            ..json.clone()
        };
        assert_eq!(
            compare(&[json, grpc]),
            None,
            "a transport with no timed round"
        );
    }
}
