//! What the report's pictures draw: each complete round's throughput over
//! the run, and each row's latency histogram.

use super::RunReport;
use engine::compare::PairedRound;
use engine::finished::RoundRate;

impl RunReport {
    /// Complete rounds' throughput in the report's unit (bytes/s to it), or
    /// in objects/s where the table says that.
    pub fn round_rates(&self) -> Vec<RoundRate> {
        let unit = self.config.rate_unit;
        // Small objects are judged, and their table shown, in objects/s: so
        // is their picture, each round's finished objects over its time.
        let small = super::shown::Shown::of(self).small;
        self.rounds
            .iter()
            .filter_map(|r| {
                let rate = match small {
                    true => {
                        let objects = r.items.as_ref().map_or(0, |t| t.finished);
                        r.rate().map(|_| objects as f64 / r.elapsed_s)?
                    }
                    false => unit.value(r.rate()? / units::MIB as f64),
                };
                let row = format!("{} {}", r.transport.name(), r.operation.name());
                let row = if self.hosts.len() > 1 { format!("{} {row}", r.span.host) } else { row };
                Some(RoundRate { row, at_s: r.span.start_s, rate })
            })
            .collect()
    }

    /// Each row's latency histogram, µs (the rows without one left out).
    pub fn latency_histograms(&self) -> Vec<(String, hdrhistogram::Histogram<u64>)> {
        self.transports
            .iter()
            .filter_map(|t| {
                let histogram = engine::histogram::decode(t.latency_histogram.as_deref()?).ok()?;
                Some((format!("{} {}", t.transport.name(), t.operation.name()), histogram))
            })
            .collect()
    }
}
