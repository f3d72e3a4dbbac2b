//! What the report's pictures draw: each complete round's rate over the
//! run, and each transport's latency histogram.

use super::merge::operation;
use super::report::EtcdReport;
use engine::compare::PairedRound;
use engine::finished::RoundRate;

impl EtcdReport {
    /// Complete rounds' ops (or events) per second.
    pub fn round_rates(&self) -> Vec<RoundRate> {
        let operation = operation(self.config.mode);
        self.rounds
            .iter()
            .filter_map(|r| {
                let row = format!("{} {operation}", r.transport.name());
                let row = if self.hosts.len() > 1 { format!("{} {row}", r.span.host) } else { row };
                Some(RoundRate { row, at_s: r.span.start_s, rate: r.rate()? })
            })
            .collect()
    }

    /// Each transport's latency histogram, µs (the rows without one left out).
    pub fn latency_histograms(&self) -> Vec<(String, hdrhistogram::Histogram<u64>)> {
        let operation = operation(self.config.mode);
        self.transports
            .iter()
            .filter_map(|t| {
                let histogram = engine::histogram::decode(t.latency_histogram.as_deref()?).ok()?;
                Some((format!("{} {operation}", t.transport.name()), histogram))
            })
            .collect()
    }
}
