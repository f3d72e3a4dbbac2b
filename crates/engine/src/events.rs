//! What a target's runner tells the front ends while it works, over a
//! bounded mpsc channel, in the target's own unit of work (bytes uploaded,
//! requests answered, events delivered). Progress is coalesced (one event
//! per transport per tick), never per byte or request, so no front end can
//! slow the measurement down. The finished report is not an event: each
//! runner returns its own.

use crate::plan::TransportKind;

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
    /// Work done so far in the current round, in the target's unit: bytes
    /// the server has acknowledged (or, where a transport cannot tell, bytes
    /// the kernel has sent on its sockets), or requests answered.
    Progress {
        transport: TransportKind,
        round: Option<u32>,
        done: u64,
        total: u64,
        at_s: f64,
    },
    /// One item of a round (an object) finished, or failed.
    ItemDone(ItemDone),
    /// A round ended: complete (`ok`), failed or cut off.
    RoundDone(RoundDone),
    /// The first part of a round that has two (w1r3's uploads) ended: when
    /// `ok`, the round's second part and its `RoundDone` follow; if not, the
    /// round ends here.
    PartDone(RoundDone),
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
}

#[derive(Clone, Debug, PartialEq)]
pub struct ItemDone {
    pub transport: TransportKind,
    pub ok: bool,
    /// How long it took, start to answer.
    pub elapsed_s: f64,
    pub retries: u32,
    pub resumes: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RoundDone {
    pub transport: TransportKind,
    /// 0-based.
    pub round: u32,
    /// Work done, in the target's unit; all of it when `ok`.
    pub done: u64,
    pub elapsed_s: f64,
    /// Every item of the round finished.
    pub ok: bool,
}

/// How a front end words a target's rounds as they end (the headless
/// progress lines): what a round's work is, and how its rate is shown.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundWords {
    pub unit: units::RateUnit,
    /// What `RoundDone::done` counts.
    pub amount: Amount,
    /// Items a round holds and what one is, for "2 of 4 uploads finished".
    pub items: u32,
    pub noun: &'static str,
    /// A round of two parts (w1r3: its upload, then its reads): each part's
    /// name, items and noun; `PartDone` ends the first.
    pub parts: Option<[RoundPart; 2]>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundPart {
    pub name: &'static str,
    pub items: u32,
    pub noun: &'static str,
}

/// What a round's `done` counts: bytes (said as a size, its rate in MiB/s
/// converted to the unit), or operations of a kind (`puts`, at ops/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Amount {
    Bytes,
    Count(&'static str),
}
