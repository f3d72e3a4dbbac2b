//! An append run's figures, per transport: flushes answered, and each
//! flush's time from its first byte to the answer that it was persisted
//! (p50, p99). JSON has no appendable objects: its counterpart is a
//! resumable upload whose chunks are the flushes, each chunk's answer its
//! persistence, and the line says so. Computed from the samples, so a
//! merged report's figures are those of all its hosts' samples.

use crate::config::{BenchConfig, TransportKind};
use crate::stats::{ObjectSample, at_most_the_slowest, latency_histogram, quantile_s};
use units::{format_latency, format_size};

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AppendsSummary {
    pub transport: TransportKind,
    /// What was measured: an appendable object, or JSON's counterpart.
    pub method: String,
    /// Flushes answered, in the objects written whole.
    pub flushes: u64,
    pub flush_p50_s: Option<f64>,
    pub flush_p99_s: Option<f64>,
}

/// Each transport's summary, when the run appended.
pub fn appends_summaries(config: &BenchConfig, samples: &[ObjectSample]) -> Vec<AppendsSummary> {
    let Some(plan) = config.append else { return Vec::new() };
    let bytes = format_size(plan.flush_bytes());
    config
        .transports
        .iter()
        .map(|&transport| {
            let times: Vec<f64> = (samples.iter())
                .filter(|s| s.transport == transport && s.ok)
                .filter_map(|s| s.flushes.as_ref())
                .flatten()
                .copied()
                .collect();
            let histogram = latency_histogram(&times);
            let quantile = |q| at_most_the_slowest(quantile_s(&histogram, q), &times);
            let method = match transport {
                TransportKind::Grpc => format!("appendable BidiWriteObject, flush + state_lookup every {bytes}"),
                TransportKind::Json => {
                    format!("no appendable objects in the JSON API: a resumable upload, a PUT per {bytes} chunk")
                }
            };
            AppendsSummary {
                transport,
                method,
                flushes: times.len() as u64,
                flush_p50_s: quantile(0.5),
                flush_p99_s: quantile(0.99),
            }
        })
        .collect()
}

impl AppendsSummary {
    /// "grpc (appendable BidiWriteObject, ...): 64 flushes of the objects written whole, ... p50 10.4 ms p99 12.1 ms"
    pub fn line(&self) -> String {
        let seconds = |s: Option<f64>| s.map_or("-".to_string(), format_latency);
        format!(
            "{} ({}): {} of the objects written whole, each from its first byte to its answer p50 {} p99 {}",
            self.transport.name(),
            self.method,
            engine::report::plural(self.flushes as usize, "flush"),
            seconds(self.flush_p50_s),
            seconds(self.flush_p99_s),
        )
    }
}
