//! How a report's figures are shown. Most runs: rates in the report's unit
//! (MiB/s), times in seconds, CPU per GiB, wire bytes as a share of the
//! payload. Objects under `SMALL_OBJECT_BYTES` are latency-bound, not
//! byte-bound: there the rate is objects/s (the verdict's ratio is the same
//! in either unit, both transports moving the same objects), times are in
//! ms or µs, and CPU and wire bytes are per object.

use super::RunReport;
use crate::stats::{Operation, TransportSummary};
use engine::compare::Comparison;
use units::{KIB, RateUnit, format_latency, format_seconds, format_size, significant};

/// Below this, bytes stop being the story: a request's cost dominates.
pub const SMALL_OBJECT_BYTES: u64 = 256 * KIB;

#[derive(Clone, Copy, Debug)]
pub struct Shown {
    pub unit: RateUnit,
    /// Objects are small: counted, not weighed.
    pub small: bool,
    /// A read is a reader's many ranges (`--workload ranges`), not a download.
    pub ranged: bool,
}

impl Shown {
    pub fn of(report: &RunReport) -> Shown {
        Shown::for_config(&report.config)
    }

    /// The same decision from the config alone: the app's live lanes show a
    /// run as its report will.
    pub fn for_config(config: &crate::config::BenchConfig) -> Shown {
        Shown {
            unit: config.rate_unit,
            small: config.object_size < SMALL_OBJECT_BYTES,
            ranged: config.ranges.is_some(),
        }
    }

    /// What one item of `operation` is called: "upload", "download", or a
    /// ranges run's "read".
    pub fn item(&self, operation: Operation) -> &'static str {
        match operation {
            Operation::Download if self.ranged => "read",
            operation => operation.name(),
        }
    }

    /// A time, or "-" when nothing measured it.
    pub fn time(&self, seconds: Option<f64>) -> String {
        match seconds {
            None => "-".into(),
            Some(s) if self.small => format_latency(s),
            Some(s) => format_seconds(s),
        }
    }

    /// The row's rate: MiB/s (or the chosen unit), or objects/s.
    pub fn rate(&self, t: &TransportSummary) -> String {
        let rate = if self.small { t.objects_per_s } else { t.throughput_mib_s };
        rate.map(|r| self.format_rate(r)).unwrap_or_else(|| "-".into())
    }

    /// A rate in the shown unit (objects/s for small objects, else MiB/s
    /// converted to the report's unit), with its unit.
    pub fn format_rate(&self, rate: f64) -> String {
        format!("{} {}", self.rate_number(rate), self.rate_name())
    }

    /// The figure alone, for `now 12.5 · avg 11.9 MiB/s`.
    pub fn rate_number(&self, rate: f64) -> String {
        if self.small { significant(rate, 4) } else { self.unit.number(rate) }
    }

    pub fn rate_name(&self) -> &'static str {
        if self.small { "objects/s" } else { self.unit.name() }
    }

    /// CPU and wire bytes of the complete rounds, per GiB and per byte of
    /// payload, or per object.
    pub fn cost(&self, t: &TransportSummary, wire_resent: &str) -> Option<(String, String)> {
        if self.small {
            let cpu = t.cpu_us_per_object?;
            let wire = match t.wire_bytes_per_object {
                Some(bytes) => format!("wire {} per object{wire_resent}", format_size(bytes.round() as u64)),
                None => super::table::WIRE_UNMEASURED.into(),
            };
            return Some((wire, format!("client CPU {} µs/object", significant(cpu, 3))));
        }
        let cpu = t.cpu_s_per_gib?;
        let wire = match t.wire_ratio {
            Some(ratio) => format!("wire {}x payload{wire_resent}", digits_kept(ratio, 3)),
            None => super::table::WIRE_UNMEASURED.into(),
        };
        Some((wire, format!("client CPU {} s/GiB", digits_kept(cpu, 2))))
    }

    /// The verdict's sentence, its rates in the shown unit.
    pub fn verdict(&self, comparison: &Comparison, rows: &[&TransportSummary]) -> String {
        // Objects per MiB, the same for both transports' rows (the same objects).
        let per_mib = rows.iter().find_map(|t| Some(t.objects_per_s? / t.throughput_mib_s.filter(|r| *r > 0.0)?));
        match (self.small, per_mib) {
            (true, Some(per_mib)) => {
                let said = comparison.sentence_in(&|mib| significant(mib * per_mib, 4), "objects/s");
                format!("{said} · judged on objects/s")
            }
            _ => comparison.sentence(self.unit),
        }
    }
}

/// `decimals` places, or 3 significant digits where those places would
/// round a measured figure to zero (a read's request bytes: 0.000012x);
/// an exact zero is "0", not "0.000".
fn digits_kept(value: f64, decimals: usize) -> String {
    if value == 0.0 {
        "0".into()
    } else if value.abs() < 10f64.powi(-(decimals as i32)) {
        significant(value, 3)
    } else {
        format!("{value:.decimals$}")
    }
}

impl RunReport {
    /// The rows of one operation, for its verdict.
    pub(super) fn rows_of(&self, operation: Operation) -> Vec<&TransportSummary> {
        self.transports.iter().filter(|t| t.operation == operation).collect()
    }
}
