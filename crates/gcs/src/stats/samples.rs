//! What a run records as it goes: each round of each transport, and each
//! object (upload or read) in it, as the JSON and CSV keep them.

use super::Operation;
use crate::config::TransportKind;
use crate::transport::Phases;
use engine::error_kinds::ErrorKinds;

/// One round of one transport: `concurrency` objects uploaded at once.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct RoundSample {
    pub transport: TransportKind,
    /// What the round did (w1r3 rounds come in two parts: the upload, then
    /// the reads, each its own sample).
    #[serde(default)]
    pub operation: Operation,
    /// 1-based in every output, as in object names and notes.
    #[serde(serialize_with = "one_based", deserialize_with = "from_one_based")]
    pub round: u32,
    /// Wall time from the round's first upload start to its last upload's end.
    pub elapsed_s: f64,
    /// Bytes of the objects that finished.
    pub bytes: u64,
    /// Every object of the round finished.
    pub ok: bool,
    /// Client CPU (user + system) and bytes sent on the transport's sockets
    /// while the round ran, cut-off or failed uploads included.
    pub cpu_s: f64,
    pub wire_bytes: u64,
    /// Of `wire_bytes`, those TCP sent more than once.
    #[serde(default)]
    pub retransmitted_bytes: u64,
    /// The host's CPU and the tool's process's over the round (`None` in
    /// reports written before rounds kept it): how much the client had to
    /// spare, which the verdict's caution on the clients' cost reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_cpu: Option<engine::host_cpu::HostCpu>,
    /// When the round ran (both clocks) and on which host.
    #[serde(flatten)]
    pub span: Span,
    /// Open loop: how the round's items were paced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paced: Option<engine::open_loop::PacedRound>,
    /// What its items came to (every figure is made of these). Reports
    /// written before tallies have none, and are given them from their
    /// samples as they load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<super::Tally>,
    /// Consecutive rounds this record holds: 1, or more once a long run's
    /// rounds were folded in twos (`engine::folded`).
    #[serde(default = "engine::folded::one", skip_serializing_if = "engine::folded::is_one")]
    pub rounds_held: u32,
}

/// A round as the paired-rounds verdict reads it: its rate, when complete.
impl engine::compare::PairedRound for RoundSample {
    fn transport(&self) -> TransportKind {
        self.transport
    }

    fn index(&self) -> u32 {
        self.round
    }

    fn part(&self) -> u8 {
        self.operation as u8
    }

    fn rate(&self) -> Option<f64> {
        (self.ok && self.elapsed_s > 0.0).then(|| self.bytes as f64 / self.elapsed_s)
    }
}

impl engine::folded::Folds for RoundSample {
    fn absorb(&mut self, later: Self) {
        self.elapsed_s += later.elapsed_s;
        self.bytes += later.bytes;
        self.ok &= later.ok;
        self.cpu_s += later.cpu_s;
        self.wire_bytes += later.wire_bytes;
        self.retransmitted_bytes += later.retransmitted_bytes;
        // Both or neither: a share never covers part of the rounds it is said of.
        self.host_cpu = self.host_cpu.zip(later.host_cpu).map(|(a, b)| a.plus(b));
        (self.span.ended_at, self.span.end_s) = (later.span.ended_at, later.span.end_s);
        self.paced = engine::folded::joined(self.paced.take(), later.paced, |a, b| a.absorb(b));
        self.items = engine::folded::joined(self.items.take(), later.items, |a, b| a.absorb(&b));
        self.rounds_held += later.rounds_held;
    }

    fn set_index(&mut self, index: u32) {
        self.round = index;
    }

    fn rounds_held(&self) -> u32 {
        self.rounds_held
    }

    /// A closed-loop record's times at 2 significant digits: the run's
    /// figures come from each transport's own tally. An open-loop run's
    /// latency figures are pooled from its records, which stay whole.
    fn coarsen(&mut self) {
        if let (Some(items), None) = (&mut self.items, &self.paced) {
            items.coarsen();
        }
    }
}

use engine::report::{from_one_based, one_based};
use engine::timeline::Span;

impl From<&RoundSample> for engine::events::RoundDone {
    fn from(r: &RoundSample) -> Self {
        Self { transport: r.transport, round: r.round, done: r.bytes, elapsed_s: r.elapsed_s, ok: r.ok }
    }
}

impl From<&ObjectSample> for engine::events::ItemDone {
    fn from(o: &ObjectSample) -> Self {
        Self { transport: o.transport, ok: o.ok, elapsed_s: o.latency_s(), retries: o.retries, resumes: o.resumes }
    }
}

/// One object upload.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ObjectSample {
    /// The host that ran it (`--host-label`), as its round says.
    #[serde(default)]
    pub host: String,
    pub transport: TransportKind,
    #[serde(default)]
    pub operation: Operation,
    #[serde(serialize_with = "one_based", deserialize_with = "from_one_based")]
    pub round: u32,
    pub worker: u32,
    pub object: String,
    pub bytes: u64,
    /// Start, in seconds since the run's measurement began.
    pub start_s: f64,
    /// The whole upload as its caller waits for it: every attempt, retry and back-off.
    pub elapsed_s: f64,
    pub ok: bool,
    pub error: Option<String>,
    /// The error's kind (`HTTP 503`, `UNAVAILABLE`, `reset`), counted by the summary.
    #[serde(default)]
    pub error_kind: Option<String>,
    #[serde(flatten)]
    pub phases: Phases,
    /// Requests tried again, sessions resumed, and bytes sent more than once.
    pub retries: u32,
    pub resumes: u32,
    pub resent_bytes: u64,
    /// What the retries followed, by kind.
    #[serde(default)]
    pub retried_after: ErrorKinds,
    /// Reads: from the request to the first byte of the body (the rest is
    /// `transfer_s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_byte_s: Option<f64>,
    /// A finished read whose whole-object crc32c was asked for but not sent
    /// by the server, or an upload whose answer said no size: not checked.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unchecked: bool,
    /// Open loop: when the item was due to start, in run seconds (it
    /// started at `start_s`); its latency counts from here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intended_s: Option<f64>,
    /// Ranges workload: each range's first byte and completion, from the
    /// moment the reader wanted them all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranges: Option<Vec<crate::transport::ranges::RangeTimes>>,
    /// Append workload: each flush's time from its first byte to the answer
    /// that it was persisted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flushes: Option<Vec<f64>>,
    /// Append workload over gRPC: each flush's time from its first byte
    /// until a second stream had read its bytes back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_back: Option<Vec<f64>>,
}

impl ObjectSample {
    /// Its latency: from its start, or in open loop from its intended
    /// start (a stall delays the items due during it, and that counts).
    pub fn latency_s(&self) -> f64 {
        let waited = self.intended_s.map_or(0.0, |due| (self.start_s - due).max(0.0));
        self.elapsed_s + waited
    }
}
