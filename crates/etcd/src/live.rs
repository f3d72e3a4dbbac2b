//! What the app's live pane plans for an etcd run, and how its lanes read
//! their figures: requests (or watch events) per second, and request
//! latencies that come whole with each complete round, quantiled and
//! rounded as the report's table does.

use crate::options::{EtcdConfig, Mode};
use engine::calls::live::CallsReading;
use engine::live::{LanePlan, Work};
use std::sync::Arc;

impl EtcdConfig {
    /// The live pane's plan: requests instead of bytes, ops/s (events/s
    /// for watch), no per-request items (latencies come per round).
    pub fn lane_plan(&self) -> LanePlan {
        let schedule = &self.schedule;
        let watch = self.mode == Mode::Watch;
        let per_round = schedule.calls_per_round(self.clients, self.requests);
        LanePlan {
            transports: schedule.transports.clone(),
            rounds: schedule.iterations,
            items: 0,
            amount: per_round * schedule.iterations as u64,
            work: match watch {
                true => {
                    Work { weighed: false, one: "event", counted: "events", doing: ["running "; 2], items: "events" }
                }
                false => {
                    Work { weighed: false, one: "request", counted: "ops", doing: ["running "; 2], items: "requests" }
                }
            },
            parts: vec![match self.mode {
                Mode::Put => "put",
                Mode::Range => "range",
                Mode::Watch => "watch",
            }],
            duration_s: schedule.duration.map(|d| d.as_secs_f64()),
            reading: Arc::new(CallsReading { unit: self.round_words().unit }),
            open_rate: schedule.open_loop.as_ref().map(|open| open.rate),
        }
    }
}
