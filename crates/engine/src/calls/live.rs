//! How the app's live lanes read a run of calls: calls (or events) per
//! second, and latencies that come whole with each complete round,
//! quantiled and rounded as the report's table does.

use super::rounds::quantiles;
use super::said::format_ms;
use crate::live::LiveReading;
use units::RateUnit;

#[derive(Debug)]
pub struct CallsReading {
    pub unit: RateUnit,
}

impl LiveReading for CallsReading {
    fn rate_number(&self, rate: f64) -> String {
        self.unit.number(rate)
    }

    fn rate_name(&self) -> &'static str {
        self.unit.name()
    }

    fn round_percentiles(&self, micros: &hdrhistogram::Histogram<u64>) -> Option<[String; 3]> {
        let l = quantiles(micros);
        Some([l.p50_ms?, l.p90_ms?, l.p99_ms?].map(format_ms))
    }
}
