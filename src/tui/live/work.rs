//! What a run's unit of work is, and how its amounts read.

use crate::units::{MIB, format_size};

/// What a run's unit of work is: the events count bytes uploaded or read
/// (GCS, shown in MiB/s) or requests answered (etcd, shown in ops/s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Work {
    #[default]
    Uploads,
    Downloads,
    /// w1r3: each round uploads, then reads what it wrote.
    WritesThenReads,
    Requests,
    /// Watch events delivered (etcd's watch mode).
    Events,
}

impl Work {
    /// Units of work per unit of rate: MiB, or one request.
    pub(super) fn scale(self) -> f64 {
        match self {
            Work::Uploads | Work::Downloads | Work::WritesThenReads => MIB as f64,
            Work::Requests | Work::Events => 1.0,
        }
    }

    /// `2.50 GiB` or `12000 ops`.
    pub fn amount(self, units: u64) -> String {
        match self {
            Work::Uploads | Work::Downloads | Work::WritesThenReads => format_size(units),
            Work::Requests | Work::Events => format!("{units} {}", self.counted()),
        }
    }

    /// What one timed piece of work is called: `upload`, `request`.
    pub fn one(self) -> &'static str {
        match self {
            Work::Uploads => "upload",
            Work::Downloads => "download",
            Work::WritesThenReads => "transfer",
            Work::Requests => "request",
            Work::Events => "event",
        }
    }

    /// What the progress counts: `ops`, `events`.
    pub fn counted(self) -> &'static str {
        match self {
            Work::Uploads | Work::Downloads | Work::WritesThenReads => "bytes",
            Work::Requests => "ops",
            Work::Events => "events",
        }
    }
}
