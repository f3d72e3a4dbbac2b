//! What the app's live pane plans for an etcd run, and how its lanes read
//! their figures: requests (or watch events) per second, and request
//! latencies that come whole with each complete round, quantiled and
//! rounded as the report's table does.

use crate::options::{EtcdConfig, Mode};
use crate::report::format_ms;
use crate::rounds::quantiles;
use engine::live::{LanePlan, LiveReading, Work};
use std::sync::Arc;
use units::RateUnit;

#[derive(Debug)]
struct EtcdReading {
    unit: RateUnit,
}

impl LiveReading for EtcdReading {
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

impl EtcdConfig {
    /// The live pane's plan: requests instead of bytes, ops/s (events/s
    /// for watch), no per-request items (latencies come per round).
    pub fn lane_plan(&self) -> LanePlan {
        let schedule = &self.schedule;
        let watch = self.mode == Mode::Watch;
        let per_round = self.clients as u64 * self.requests as u64;
        LanePlan {
            transports: schedule.transports.clone(),
            rounds: schedule.iterations,
            items: 0,
            amount: per_round * schedule.iterations as u64,
            work: if watch { Work::Events } else { Work::Requests },
            parts: vec![match self.mode {
                Mode::Put => "put",
                Mode::Range => "range",
                Mode::Watch => "watch",
            }],
            duration_s: schedule.duration.map(|d| d.as_secs_f64()),
            reading: Arc::new(EtcdReading { unit: self.round_words().unit }),
            open_rate: schedule.open_loop.as_ref().map(|open| open.rate),
        }
    }
}
