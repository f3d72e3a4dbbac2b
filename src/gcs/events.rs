//! What the runner tells its front ends while it works, over a bounded mpsc
//! channel. Progress is coalesced (one event per transport per tick), never
//! per byte, so no front end can slow the measurement down.

use crate::config::TransportKind;
use crate::gcs::report::RunReport;
use crate::gcs::stats::{ObjectSample, RoundSample};

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Phase {
    Connecting,
    Warmup,
    Measuring,
    CleaningUp,
}

#[derive(Clone, Debug)]
pub enum RunEvent {
    /// Said once at the start: where, and what is planned.
    Started {
        run_id: String,
        target: String,
        /// `None` when the run goes on for a time (`--duration`), not a count.
        rounds_per_transport: Option<u32>,
    },
    Phase(Phase),
    /// One transport's round (or warmup, `round: None`) has begun.
    RoundStarted {
        transport: TransportKind,
        round: Option<u32>,
        at_s: f64,
    },
    /// Bytes the server has acknowledged (or, where a transport cannot tell,
    /// bytes the kernel has sent on its sockets) so far in the current round.
    /// The etcd target sends the same events with requests answered in place
    /// of bytes (and `RoundDone` with its requests as `bytes`).
    Progress {
        transport: TransportKind,
        round: Option<u32>,
        bytes: u64,
        bytes_total: u64,
        at_s: f64,
    },
    ObjectDone(ObjectSample),
    RoundDone(RoundSample),
    /// A complete round's request latencies (µs), for targets whose work is
    /// too many requests to send one event each.
    Latencies {
        transport: TransportKind,
        histogram: Box<hdrhistogram::Histogram<u64>>,
    },
    /// Something worth a status line (an upload error, a note).
    Note(String),
    CleanupDone {
        deleted: usize,
        left: Vec<String>,
    },
    /// The run never started: the target could not be reached or set up.
    SetupFailed(String),
    Finished(Box<RunReport>),
}
