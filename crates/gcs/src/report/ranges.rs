//! A ranges run's figures, per transport: ranges read whole, ranges per
//! second of the transport's complete rounds, each range's first-byte and complete
//! latency (from the moment its reader wanted all of its ranges), and the
//! requests or streams that carried them. Computed from the rounds' tallies,
//! so a merged report's figures are those of all its hosts' items.

use crate::config::{BenchConfig, TransportKind};
use crate::stats::{Pooled, RoundSample, Tally};
use crate::transport::grpc::RangeReads;
use units::format_latency;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
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
pub fn ranges_summaries(config: &BenchConfig, rounds: &[RoundSample], cut_off: &[RoundSample]) -> Vec<RangesSummary> {
    if config.ranges.is_none() {
        return Vec::new();
    }
    config
        .transports
        .iter()
        .map(|&transport| {
            let of = |r: &&RoundSample| r.transport == transport;
            let all: Vec<&Tally> = rounds.iter().chain(cut_off).filter(of).filter_map(|r| r.items.as_ref()).collect();
            let first = Pooled::of(all.iter().map(|t| t.range_first_byte.as_ref()));
            let complete = Pooled::of(all.iter().map(|t| t.range_complete.as_ref()));
            // Each retry (a resume is one) opened one more request or stream.
            let again: u64 = all.iter().map(|t| t.ranged_retries).sum();
            let reads: u64 = all.iter().map(|t| t.ranged_reads).sum();
            // Rates over the complete rounds only, as the table's: their reads
            // over their time, so a failed read's time is not a finished one's.
            let whole: Vec<&RoundSample> = rounds.iter().filter(of).filter(|r| r.ok).collect();
            let round_s: f64 = whole.iter().map(|r| r.elapsed_s).sum();
            let rated = whole.iter().filter_map(|r| r.items.as_ref());
            let rated_ranges: u64 = rated.clone().map(|t| t.range_first_byte.as_ref().map_or(0, count)).sum();
            let rated_bytes: u64 = rated.map(|t| t.finished_bytes).sum();
            let per_range = transport == TransportKind::Json || config.range_reads(transport) == RangeReads::EachApart;
            RangesSummary {
                transport,
                method: method(transport, config.range_reads(transport)).into(),
                ranges: first.count(),
                ranges_per_s: (round_s > 0.0).then(|| rated_ranges as f64 / round_s),
                mib_per_s: (round_s > 0.0).then(|| units::mib_per_second(rated_bytes, round_s)),
                first_byte_p50_s: first.quantile(0.5),
                first_byte_p99_s: first.quantile(0.99),
                complete_p50_s: complete.quantile(0.5),
                complete_p99_s: complete.quantile(0.99),
                requests: again + if per_range { first.count() } else { reads },
            }
        })
        .collect()
}

/// How many times a histogram holds.
fn count(times: &crate::stats::Times) -> u64 {
    Pooled::of(std::iter::once(Some(times))).count()
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
