//! What the app's live pane needs of a target before its first event: the
//! lanes' plan (rounds, items and work planned, the parts a round has) and
//! how the lanes read their figures, as the target's report will show them.
//! The target gives it (`LanePlan`); the app draws any target from it.

use crate::plan::TransportKind;
use std::sync::Arc;
use units::{MIB, format_size};

/// What a lane's work is, in its target's words: weighed in bytes (GCS,
/// shown in MiB/s) or counted (requests, calls, events, shown per second),
/// what one piece and its progress are called, what a lane is doing in each
/// part of a round, and what its items are. Each target says its own
/// (`gcs::live`, `etcd::live`, `grpc_service::config`); the app draws them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Work {
    /// Counted in bytes, each item timed (else counted, with the latencies
    /// of each round's histogram).
    pub weighed: bool,
    /// One timed piece: `upload`, `request`, `call`.
    pub one: &'static str,
    /// What the progress counts: `bytes`, `ops`, `calls`, `events`.
    pub counted: &'static str,
    /// What a lane is doing in a round's first part and in its second
    /// (w1r3 uploads, then reads): `"uploading "`.
    pub doing: [&'static str; 2],
    /// A weighed lane's items, counted one by one: `objects`, `reads`.
    pub items: &'static str,
}

/// Before any plan: items, doing nothing in particular.
impl Default for Work {
    fn default() -> Self {
        Work { weighed: false, one: "item", counted: "items", doing: ["running "; 2], items: "items" }
    }
}

impl Work {
    /// Units of work per unit of rate: MiB, or one request.
    pub fn scale(self) -> f64 {
        if self.weighed { MIB as f64 } else { 1.0 }
    }

    /// `2.50 GiB` or `12000 ops`.
    pub fn amount(self, units: u64) -> String {
        if self.weighed { format_size(units) } else { format!("{units} {}", self.counted) }
    }

    /// What a lane is doing in part `part` of its round.
    pub fn doing(self, part: usize) -> &'static str {
        self.doing[part.min(1)]
    }
}

/// How a target's live figures read, computed by its report's own
/// functions so that a lane shows what the report row will.
pub trait LiveReading: Send + Sync + std::fmt::Debug {
    /// A rate without its unit: `12.50`, `4.000`.
    fn rate_number(&self, rate: f64) -> String;
    /// The rate's unit: `MiB/s`, `objects/s`, `ops/s`.
    fn rate_name(&self) -> &'static str;
    /// Items are counted rather than weighed: rates in items per second.
    fn per_item(&self) -> bool {
        false
    }
    /// p50, p90 and p99 of items' seconds, as the report's table prints
    /// them; `None` before any, or for targets that send latencies whole.
    fn item_percentiles(&self, _seconds: &[f64]) -> Option<[String; 3]> {
        None
    }
    /// p50, p90 and p99 of whole rounds' request latencies (µs).
    fn round_percentiles(&self, _micros: &hdrhistogram::Histogram<u64>) -> Option<[String; 3]> {
        None
    }
}

/// What one transport's lane plans, and how the run's figures read.
#[derive(Clone, Debug)]
pub struct LanePlan {
    pub transports: Vec<TransportKind>,
    pub rounds: u32,
    /// Items (objects, or none for targets that count requests) over all rounds.
    pub items: u32,
    /// Work (bytes or requests) over all rounds.
    pub amount: u64,
    pub work: Work,
    /// The operations a round has, in report order (w1r3: upload, download).
    pub parts: Vec<&'static str>,
    /// Set when the run goes on for a time rather than a number of rounds.
    pub duration_s: Option<f64>,
    pub reading: Arc<dyn LiveReading>,
    /// Open loop: the arrivals offered per second (each transport's), whose
    /// latency from intended start the pane draws against time.
    pub open_rate: Option<f64>,
}
