//! What the app's live pane needs of a target before its first event: the
//! lanes' plan (rounds, items and work planned, the parts a round has) and
//! how the lanes read their figures, as the target's report will show them.
//! The target gives it (`LanePlan`); the app draws any target from it.

use crate::plan::TransportKind;
use std::sync::Arc;
use units::{MIB, format_size};

/// What a run's unit of work is: the events count bytes uploaded or read
/// (GCS, shown in MiB/s), requests answered (etcd, shown in ops/s) or
/// calls answered (any service, shown in calls/s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Work {
    #[default]
    Uploads,
    Downloads,
    /// GCS ranges: each item a reader's many ranges of one object.
    RangedReads,
    /// w1r3: each round uploads, then reads what it wrote.
    WritesThenReads,
    Requests,
    /// Calls of any service's method (`grpc run`).
    Calls,
    /// Watch events delivered (etcd's watch mode).
    Events,
}

impl Work {
    /// Units of work per unit of rate: MiB, or one request.
    pub fn scale(self) -> f64 {
        match self {
            Work::Uploads | Work::Downloads | Work::RangedReads | Work::WritesThenReads => MIB as f64,
            Work::Requests | Work::Calls | Work::Events => 1.0,
        }
    }

    /// `2.50 GiB` or `12000 ops`.
    pub fn amount(self, units: u64) -> String {
        match self {
            Work::Uploads | Work::Downloads | Work::RangedReads | Work::WritesThenReads => format_size(units),
            Work::Requests | Work::Calls | Work::Events => format!("{units} {}", self.counted()),
        }
    }

    /// What one timed piece of work is called: `upload`, `request`.
    pub fn one(self) -> &'static str {
        match self {
            Work::Uploads => "upload",
            Work::Downloads => "download",
            Work::RangedReads => "read",
            Work::WritesThenReads => "transfer",
            Work::Requests => "request",
            Work::Calls => "call",
            Work::Events => "event",
        }
    }

    /// What the progress counts: `ops`, `calls`, `events`.
    pub fn counted(self) -> &'static str {
        match self {
            Work::Uploads | Work::Downloads | Work::RangedReads | Work::WritesThenReads => "bytes",
            Work::Requests => "ops",
            Work::Calls => "calls",
            Work::Events => "events",
        }
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
