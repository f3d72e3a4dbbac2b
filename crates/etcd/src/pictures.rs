//! What the report's pictures draw: each complete round's rate over the
//! run, and each transport's latency histogram.

use super::merge::operation;
use super::report::EtcdReport;
use engine::calls::said;
use engine::finished::RoundRate;

impl EtcdReport {
    /// Complete rounds' ops (or events) per second.
    pub fn round_rates(&self) -> Vec<RoundRate> {
        said::round_rates(&self.rounds, operation(self.config.mode), self.hosts.len() > 1)
    }

    /// Each transport's latency histogram, µs (the rows without one left out).
    pub fn latency_histograms(&self) -> Vec<(String, hdrhistogram::Histogram<u64>)> {
        said::latency_histograms(&self.transports, operation(self.config.mode))
    }
}
