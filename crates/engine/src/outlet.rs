//! Where a runner's events go, when its clock began and when its timed
//! rounds may start: the part of every target's runner that is not its own.

use crate::events::RunEvent;
use std::path::PathBuf;
use std::time::{Instant, SystemTime};
use tokio::sync::mpsc;

pub struct Outlet {
    events: Option<mpsc::Sender<RunEvent>>,
    clock: Instant,
    /// `--start-at`: the timed rounds wait for it after the warmup.
    pub start_at: Option<SystemTime>,
    /// `--samples FILE`: every object's or call's record goes there.
    pub samples: Option<PathBuf>,
}

impl Default for Outlet {
    fn default() -> Self {
        Outlet { events: None, clock: Instant::now(), start_at: None, samples: None }
    }
}

impl Outlet {
    /// Sends `event` to the front end, if one listens.
    pub async fn emit(&self, event: RunEvent) {
        if let Some(events) = &self.events {
            // A front end that went away must not stop the run.
            let _ = events.send(event).await;
        }
    }

    /// A line for the front end to show.
    pub async fn say(&self, line: String) {
        self.emit(RunEvent::Note(line)).await;
    }

    /// The run's clock starts now.
    pub fn restart(&mut self) {
        self.clock = Instant::now();
    }

    pub fn clock(&self) -> Instant {
        self.clock
    }

    /// Seconds since the run's clock started.
    pub fn at_s(&self) -> f64 {
        self.clock.elapsed().as_secs_f64()
    }

    pub fn events(&self) -> Option<&mpsc::Sender<RunEvent>> {
        self.events.as_ref()
    }
}

/// A runner with an outlet: how a front end points it at itself.
pub trait Outlets: Sized {
    fn outlet(&mut self) -> &mut Outlet;

    /// Sends progress, rounds and latencies to a front end as they happen.
    fn with_events(mut self, events: mpsc::Sender<RunEvent>) -> Self {
        self.outlet().events = Some(events);
        self
    }

    /// Begin the timed rounds at `start_at` (after the warmup); stream
    /// every record to `samples`.
    fn starting(mut self, begin: crate::planned::Begin) -> Self {
        self.outlet().start_at = begin.start_at;
        self.outlet().samples = begin.samples;
        self
    }
}
