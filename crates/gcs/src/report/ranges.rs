//! A ranges run's figures, per transport: ranges read whole, ranges per
//! second of the transport's complete rounds, each range's first-byte and complete
//! latency (from the moment its reader wanted all of its ranges), and the
//! requests or streams that carried them. Computed from the samples, so a
//! merged report's figures are those of all its hosts' samples.

use crate::config::{BenchConfig, TransportKind};
use crate::stats::{ObjectSample, RoundSample, at_most_the_slowest, latency_histogram, quantile_s};
use crate::transport::grpc::RangeReads;
use units::format_latency;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RangesSummary {
    pub transport: TransportKind,
    /// How it asked for them: "GET with Range per range", "ReadObject per range", "BidiReadObject".
    pub method: String,
    /// Ranges of the reads that finished whole.
    pub ranges: u64,
    /// The ranges of its complete rounds over those rounds' time (`None`
    /// when no round completed), as the table's rates are.
    pub ranges_per_s: Option<f64>,
    /// Their bytes over the same time, in MiB/s.
    #[serde(default)]
    pub mib_per_s: Option<f64>,
    pub first_byte_p50_s: Option<f64>,
    pub first_byte_p99_s: Option<f64>,
    pub complete_p50_s: Option<f64>,
    pub complete_p99_s: Option<f64>,
    /// Requests (one per range) or streams (one per reader's read) the
    /// reads that finished whole opened, retries and resumes included.
    pub requests: u64,
}

/// Each transport's summary, when the run read ranges.
pub fn ranges_summaries(config: &BenchConfig, rounds: &[RoundSample], samples: &[ObjectSample]) -> Vec<RangesSummary> {
    if config.ranges.is_none() {
        return Vec::new();
    }
    config
        .transports
        .iter()
        .map(|&transport| {
            let done: Vec<&ObjectSample> =
                samples.iter().filter(|s| s.transport == transport && s.ok && s.ranges.is_some()).collect();
            let times: Vec<_> = done.iter().filter_map(|s| s.ranges.as_ref()).flatten().collect();
            // Each retry (a resume is one) opened one more request or stream.
            let again: u64 = done.iter().map(|s| u64::from(s.retries)).sum();
            let first: Vec<f64> = times.iter().map(|t| t.first_byte_s).collect();
            let complete: Vec<f64> = times.iter().map(|t| t.complete_s).collect();
            let (first_histogram, complete_histogram) = (latency_histogram(&first), latency_histogram(&complete));
            let quantile = |h, q, values: &[f64]| at_most_the_slowest(quantile_s(h, q), values);
            // Rates over the complete rounds only, as the table's: their reads
            // over their time, so a failed read's time is not a finished one's.
            let whole: Vec<&RoundSample> = rounds.iter().filter(|r| r.transport == transport && r.ok).collect();
            let round_s: f64 = whole.iter().map(|r| r.elapsed_s).sum();
            let rated: Vec<&&ObjectSample> =
                (done.iter()).filter(|s| whole.iter().any(|r| r.round == s.round && r.span.host == s.host)).collect();
            let rated_ranges: usize = rated.iter().filter_map(|s| s.ranges.as_ref()).map(Vec::len).sum();
            let rated_bytes: u64 = rated.iter().map(|s| s.bytes).sum();
            let per_range = transport == TransportKind::Json || config.range_reads(transport) == RangeReads::EachApart;
            RangesSummary {
                transport,
                method: method(transport, config.range_reads(transport)).into(),
                ranges: times.len() as u64,
                ranges_per_s: (round_s > 0.0).then(|| rated_ranges as f64 / round_s),
                mib_per_s: (round_s > 0.0).then(|| units::mib_per_second(rated_bytes, round_s)),
                first_byte_p50_s: quantile(&first_histogram, 0.5, &first),
                first_byte_p99_s: quantile(&first_histogram, 0.99, &first),
                complete_p50_s: quantile(&complete_histogram, 0.5, &complete),
                complete_p99_s: quantile(&complete_histogram, 0.99, &complete),
                requests: again + if per_range { times.len() as u64 } else { done.len() as u64 },
            }
        })
        .collect()
}

fn method(transport: TransportKind, grpc: RangeReads) -> &'static str {
    match transport {
        TransportKind::Json => "GET with Range per range",
        TransportKind::Grpc | TransportKind::GrpcReadObject => grpc.name(),
    }
}

impl RangesSummary {
    /// "grpc (BidiReadObject): 1,008 ranges, 2,310 ranges/s, 144.38 MiB/s; per range first byte p50 1.2 ms p99 4.0 ms,
    /// complete p50 2.0 ms p99 6.1 ms; 63 streams"
    pub fn line(&self) -> String {
        let seconds = |s: Option<f64>| s.map_or("-".to_string(), format_latency);
        let rate = self.ranges_per_s.map_or("-".to_string(), |r| format!("{r:.0}"));
        let mib = self.mib_per_s.map_or("-".to_string(), units::format_mib_s);
        let opened = if self.method.starts_with("BidiReadObject") { "stream" } else { "request" };
        format!(
            "{} ({}): {}, {rate} ranges/s, {mib}; per range first byte p50 {} p99 {}, complete p50 {} p99 {}; {}",
            self.transport.name(),
            self.method,
            engine::report::plural(self.ranges as usize, "range"),
            seconds(self.first_byte_p50_s),
            seconds(self.first_byte_p99_s),
            seconds(self.complete_p50_s),
            seconds(self.complete_p99_s),
            engine::report::plural(self.requests as usize, opened),
        )
    }
}
