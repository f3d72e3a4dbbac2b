//! An append run's figures, per transport: flushes answered, and each
//! flush's time from its first byte to the answer that it was persisted
//! (p50, p99). JSON has no appendable objects: its counterpart is a
//! resumable upload whose chunks are the flushes, each chunk's answer its
//! persistence, and the line says so. Over gRPC a second stream reads each
//! flush back as it is persisted, and the flush's time until then is the
//! reader's wait; a JSON upload cannot be read before it is finished, so
//! it has none. Computed from the rounds' tallies, so a merged report's
//! figures are those of all its hosts' items.

use crate::config::{BenchConfig, TransportKind};
use crate::stats::{Pooled, RoundSample, Tally, Times};
use units::{format_latency, format_size};

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct AppendsSummary {
    pub transport: TransportKind,
    /// What was measured: an appendable object, or JSON's counterpart.
    pub method: String,
    /// Flushes answered, in the objects written whole.
    pub flushes: u64,
    pub flush_p50_s: Option<f64>,
    pub flush_p99_s: Option<f64>,
    /// Flushes read back by a second stream (gRPC), and each one's time
    /// from its first byte until the reader had its bytes.
    #[serde(default)]
    pub read_back: u64,
    #[serde(default)]
    pub read_back_p50_s: Option<f64>,
    #[serde(default)]
    pub read_back_p99_s: Option<f64>,
}

/// Each transport's summary, when the run appended.
pub fn appends_summaries(config: &BenchConfig, rounds: &[RoundSample], cut_off: &[RoundSample]) -> Vec<AppendsSummary> {
    let Some(plan) = config.append else { return Vec::new() };
    let bytes = format_size(plan.flush_bytes());
    config
        .transports
        .iter()
        .map(|&transport| {
            let tallies = || rounds.iter().chain(cut_off).filter(move |r| r.transport == transport);
            let pooled =
                |of: fn(&Tally) -> Option<&Times>| Pooled::of(tallies().filter_map(|r| r.items.as_ref()).map(of));
            let (flushes, read_back) = (pooled(|t| t.flushes.as_ref()), pooled(|t| t.read_back.as_ref()));
            let method = match transport {
                // (grpc-read-object is for ranges runs only.)
                TransportKind::Grpc | TransportKind::GrpcReadObject => {
                    format!("appendable BidiWriteObject, flush + state_lookup every {bytes}")
                }
                TransportKind::Json => {
                    format!("no appendable objects in the JSON API: a resumable upload, a PUT per {bytes} chunk")
                }
            };
            AppendsSummary {
                transport,
                method,
                flushes: flushes.count(),
                flush_p50_s: flushes.quantile(0.5),
                flush_p99_s: flushes.quantile(0.99),
                read_back: read_back.count(),
                read_back_p50_s: read_back.quantile(0.5),
                read_back_p99_s: read_back.quantile(0.99),
            }
        })
        .collect()
}

/// With `--read-back on` only gRPC's objects are read back as they grow
/// (a JSON upload cannot be), so the two lanes did not do the same work:
/// each verdict says so beside it.
pub fn mark_read_back(config: &BenchConfig, verdicts: &mut [crate::stats::Verdict]) {
    if !config.append.is_some_and(|plan| plan.read_back) {
        return;
    }
    let caution = "caution: only gRPC's objects were read back as they grew (a second stream on the client's CPU; a JSON upload cannot be read before it ends), so the lanes did not do the same work: --read-back off compares the writes alone";
    for verdict in verdicts {
        verdict.add_caveat(caution);
    }
}

/// The median and 99th percentile of `times`, none of either when empty.
impl AppendsSummary {
    /// "grpc (appendable BidiWriteObject, ...): 64 flushes of the objects
    /// written whole, ... p50 10.4 ms p99 12.1 ms; read back by a second stream ..."
    pub fn line(&self) -> String {
        let seconds = |s: Option<f64>| s.map_or("-".to_string(), format_latency);
        let read_back = match (self.transport, self.read_back) {
            (TransportKind::Json, _) => "; no reader sees a byte until the upload is finished".to_string(),
            (_, 0) => "; not read back by a second stream".to_string(),
            (_, n) => format!(
                "; {} by a second stream, from the flush's first byte p50 {} p99 {}",
                if n == self.flushes { "each read back".to_string() } else { format!("{n} read back") },
                seconds(self.read_back_p50_s),
                seconds(self.read_back_p99_s),
            ),
        };
        format!(
            "{} ({}): {} of the objects written whole, each from its first byte to its answer p50 {} p99 {}{read_back}",
            self.transport.name(),
            self.method,
            engine::report::plural(self.flushes as usize, "flush"),
            seconds(self.flush_p50_s),
            seconds(self.flush_p99_s),
        )
    }
}
