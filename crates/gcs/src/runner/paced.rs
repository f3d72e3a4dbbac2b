//! Open loop for GCS: a round's objects (`--concurrency` of them, or one
//! read of each object of the read set) arrive at `--rate` instead of all
//! at once. Every item's task is spawned at once and waits at its gate; a
//! dispatcher hands each the engine's ticket when the pacer releases it.

use super::failed::Failed;
use crate::transport::Recovery;
use engine::open_loop::{OpenLoop, PacedRound, Pacer, Turn, latency_histogram, micros, pace};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::time::Instant;

/// The name the pacer's thread takes: not one of the client's
/// (`CLIENT_THREAD_NAME`), so its CPU is the tool's pacing, not the
/// transport's; the items' tasks waiting out its lead run on the client's
/// threads and are counted (docs/performance.md, "What the client's CPU counts").
const PACER_THREAD: &str = "gcs-pacer";

/// A batch's pacing: the pacer, and each item's intended start once known.
pub(super) struct Paced {
    pacer: Pacer,
    stop: Arc<AtomicBool>,
    intended_s: IntendedStarts,
}

/// Each item's intended start, in seconds of the run's clock, once known.
type IntendedStarts = Arc<Vec<OnceLock<f64>>>;

/// An item's wait for its turn: closed loop goes at once.
pub(super) struct Gate {
    due: Option<(oneshot::Receiver<engine::open_loop::Ticket>, IntendedStarts, Instant)>,
    worker: usize,
}

impl Gate {
    /// Waits for the item's turn; `Ok(None)` in closed loop; `Err` (an item
    /// not sent) when the pacer dropped it or the round stopped first.
    pub(super) async fn wait(self) -> Result<Option<Turn>, Failed> {
        let Some((due, intended, clock)) = self.due else { return Ok(None) };
        let ticket = due.await.map_err(|_| Failed::short(NOT_SENT, "not sent: dropped or stopped".into()))?;
        let offset = ticket.intended.saturating_duration_since(clock.into_std());
        let _ = intended[self.worker].set(offset.as_secs_f64());
        Ok(Some(ticket.start().await))
    }
}

/// The kind of an item the open loop never sent (not a failure).
pub(super) const NOT_SENT: &str = "not sent";

/// Gates for `count` items: paced by `open` (seeded by `seed`, the same for
/// both transports' round), or all open at once when `open` is `None`.
pub(super) fn gates(open: Option<&OpenLoop>, count: usize, seed: u64, clock: Instant) -> (Option<Paced>, Vec<Gate>) {
    let Some(open) = open else {
        return (None, (0..count).map(|worker| Gate { due: None, worker }).collect());
    };
    let stop = Arc::new(AtomicBool::new(false));
    let intended_s: IntendedStarts = Arc::new((0..count).map(|_| OnceLock::new()).collect());
    let (mut senders, gates): (Vec<_>, Vec<_>) = (0..count)
        .map(|worker| {
            let (send, due) = oneshot::channel();
            (Some(send), Gate { due: Some((due, intended_s.clone(), clock)), worker })
        })
        .unzip();
    // The pacer's thread wakes the item's task itself, a lead before the
    // instant: the task waits the rest out awake and starts on time.
    let pacer = pace(open, open.offsets(count, seed), stop.clone(), PACER_THREAD, move |ticket| {
        if let Some(send) = senders[ticket.index].take() {
            // An item cut off has no gate left: its ticket's drop frees its place.
            let _ = send.send(ticket);
        }
    });
    (Some(Paced { pacer, stop, intended_s }), gates)
}

impl Paced {
    /// The item's intended start (run seconds), once its turn came.
    pub(super) fn intended_s(&self, worker: u32) -> Option<f64> {
        self.intended_s.get(worker as usize).and_then(|at| at.get().copied())
    }

    /// Ends the pacing (a stop ends it early) and tallies it, with the
    /// items' service times.
    pub(super) fn finish(self, service_s: impl Iterator<Item = f64>) -> PacedRound {
        self.stop.store(true, Ordering::Relaxed);
        let mut service = latency_histogram();
        service_s.for_each(|s| {
            let _ = service.record(micros(Duration::from_secs_f64(s.max(0.0))));
        });
        PacedRound::of(self.pacer.finish(), service)
    }
}

/// Runs one item once its gate opens: (worker, start, elapsed, result) in
/// run seconds, as a batch collects them; an item never sent says so.
pub(super) async fn timed<T>(
    gate: Gate,
    worker: u32,
    clock: Instant,
    work: impl Future<Output = Result<T, Failed>>,
) -> (u32, f64, f64, Result<T, Failed>) {
    let turn = match gate.wait().await {
        Ok(turn) => turn,
        Err(not_sent) => return (worker, clock.elapsed().as_secs_f64(), 0.0, Err(not_sent)),
    };
    let start = clock.elapsed().as_secs_f64();
    let result = work.await;
    drop(turn);
    (worker, start, clock.elapsed().as_secs_f64() - start, result)
}

/// One batch's results, the items the open loop never sent taken out (they
/// are not the round's work), with each item's intended start and the
/// round's pacing; `expected` is how many items a complete batch answers.
/// One item as a batch collects it: worker, start, elapsed, result, recovery.
type Collected<T> = (u32, f64, f64, Result<T, Failed>, Recovery);

pub(super) struct Settled<T> {
    pub(super) results: Vec<Collected<T>>,
    pub(super) intended_s: Vec<Option<f64>>,
    pub(super) paced: Option<PacedRound>,
    pub(super) expected: usize,
}

pub(super) fn settle<T>(paced: Option<Paced>, mut results: Vec<Collected<T>>, count: usize) -> Settled<T> {
    results.retain(|(.., result, _)| !matches!(result, Err(e) if e.kind == NOT_SENT));
    let intended_s = (0..count as u32).map(|w| paced.as_ref().and_then(|p| p.intended_s(w))).collect();
    let paced = paced.map(|p| p.finish(results.iter().filter(|r| r.3.is_ok()).map(|r| r.2)));
    let expected = count - paced.as_ref().map_or(0, |p| p.dropped as usize);
    Settled { results, intended_s, paced, expected }
}

impl super::Runner {
    /// The shortest a paced round of `operation` lasts: its slice of the
    /// schedule (w1r3's reads: a slice per pass), so that a round whose last
    /// answer came early is still rated over the time its arrivals were
    /// offered in; 0 in closed loop.
    pub(super) fn paced_floor_s(&self, operation: crate::stats::Operation) -> f64 {
        let Some(open) = &self.config.open_loop else { return 0.0 };
        let reads_of_w1r3 =
            operation == crate::stats::Operation::Download && self.config.workload == crate::config::Workload::W1r3;
        let passes = if reads_of_w1r3 { crate::config::W1R3_READS } else { 1 };
        open.round_floor().as_secs_f64() * f64::from(passes)
    }
}
