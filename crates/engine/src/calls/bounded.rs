//! A round's work held to the run's limits: it ends early at a cancel or
//! when the run is out of time; then the clients stop between calls and
//! those in flight are answered (within `DRAIN`) before anything else, so
//! no call lands after the cleanup. Meanwhile the live view hears how much
//! of the round is done every 100 ms.

use super::batch::Turns;
use crate::Stop;
use crate::events::RunEvent;
use crate::plan::TransportKind;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How often a round's progress is sent to the live view.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);
/// How long calls in flight at a cancel or timeout may take to be answered.
pub const DRAIN: Duration = Duration::from_secs(10);

/// The run's limits.
pub struct Limits<'a> {
    pub cancel: &'a CancellationToken,
    pub deadline: tokio::time::Instant,
}

/// Where a round's progress goes: its transport and round (`None`: the
/// warmup), on the run's clock.
pub struct Progress<'a> {
    pub events: &'a mpsc::Sender<RunEvent>,
    pub transport: TransportKind,
    pub round: Option<u32>,
    pub clock: Instant,
}

/// Waits for `running` (the future doing `turns`) unless the run is
/// cancelled or out of time first.
pub async fn bounded<T>(
    running: impl Future<Output = T>,
    turns: &Turns,
    limits: Limits<'_>,
    progress: Option<Progress<'_>>,
) -> Result<T, Stop> {
    let mut tick = tokio::time::interval(PROGRESS_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    tokio::pin!(running);
    let stop = loop {
        tokio::select! {
            done = &mut running => return Ok(done),
            () = limits.cancel.cancelled() => break Stop::Cancelled,
            () = tokio::time::sleep_until(limits.deadline) => break Stop::TimedOut,
            _ = tick.tick(), if progress.is_some() => {
                let Some(p) = &progress else { continue };
                let total = turns.clients as u64 * turns.requests as u64;
                let done = turns.done.load(Ordering::Relaxed);
                let at_s = p.clock.elapsed().as_secs_f64();
                let event = RunEvent::Progress { transport: p.transport, round: p.round, done, total, at_s };
                // A front end that went away must not stop the run.
                let _ = p.events.send(event).await;
            }
        }
    };
    turns.stop.store(true, Ordering::Relaxed);
    let _ = tokio::time::timeout(DRAIN, running).await;
    Err(stop)
}
