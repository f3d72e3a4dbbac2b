//! A run planned for some target, as every front end starts it: what they
//! say of it before it starts, and how it connects and runs to its report.
//! Each target implements `PlannedRun` for its validated configuration; the
//! front ends hold a `Box<dyn PlannedRun>` and never ask which target it is.

use crate::events::{RoundWords, RunEvent};
use crate::finished::FinishedRun;
use crate::live::LanePlan;
use std::future::Future;
use std::pin::Pin;
use std::time::SystemTime;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What a second interrupt must name: how the run stops, and what of it
/// may remain (read when that interrupt comes).
pub struct Remains {
    pub stopping: String,
    /// What may remain, as one and as many: `["object", "objects"]`.
    pub nouns: [&'static str; 2],
    pub names: Box<dyn Fn() -> Vec<String> + Send>,
}

/// How a run is started: where its events go, what cancels it, when its
/// timed rounds begin (`--start-at`) and the host label its report gets.
pub struct Start {
    pub events: mpsc::Sender<RunEvent>,
    pub cancel: CancellationToken,
    pub host: Option<String>,
    pub begin: Begin,
}

/// When the timed rounds begin and where their records go.
#[derive(Clone, Debug, Default)]
pub struct Begin {
    /// `--start-at`: the timed rounds wait for it after the warmup.
    pub start_at: Option<SystemTime>,
    /// `--samples FILE` (checked): every object's or call's record.
    pub samples: Option<std::path::PathBuf>,
}

/// Told, once the run has connected, what an interrupt must name; its
/// error stops the run before any work (the sentence is the run's error).
pub type Connected<'a> = Box<dyn FnOnce(Remains) -> Result<(), String> + Send + 'a>;

/// A finished run, or the sentence that says why there is none.
pub type Ran<'a> = Pin<Box<dyn Future<Output = Result<Box<dyn FinishedRun>, String>> + Send + 'a>>;

/// What every plan does alike, for any plan that is `Clone`.
pub trait PlanObject: Send + Sync + 'static {
    /// The same plan, boxed (a plan is kept while its run goes).
    fn boxed(&self) -> Box<dyn PlannedRun>;
    /// The plan as its target's own type, for tests that read its fields.
    fn as_any(&self) -> &dyn std::any::Any;
    /// The same plan, field for field.
    fn same_plan(&self, other: &dyn PlannedRun) -> bool;
}

impl<T: PlannedRun + Clone + PartialEq> PlanObject for T {
    fn boxed(&self) -> Box<dyn PlannedRun> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn same_plan(&self, other: &dyn PlannedRun) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
}

impl PartialEq for dyn PlannedRun {
    fn eq(&self, other: &dyn PlannedRun) -> bool {
        self.same_plan(other)
    }
}

pub trait PlannedRun: PlanObject + std::fmt::Debug {
    /// Things said once at the start (a rounded size, a default target).
    fn notes(&self) -> &[String];
    /// What a cancel does: how the run stops and what it keeps or deletes.
    fn stopping_sentence(&self) -> String;
    fn round_words(&self) -> RoundWords;
    /// What the target is, plainly: nobody should mistake loopback for GCS.
    fn where_said(&self) -> String;
    /// Who the run signs in as, said before it starts.
    fn sign_in_said(&self) -> String;
    /// What the app's live pane starts from: lanes, plans and units.
    fn lane_plan(&self) -> LanePlan;
    /// It goes to a server built into this binary.
    fn on_built_in_server(&self) -> bool {
        false
    }
    /// A standing fault injected into the built-in server, as typed.
    fn built_in_fault(&self) -> Option<&str> {
        None
    }
    /// Connects (an error here is the user's to fix, and nothing ran), tells
    /// `connected` what an interrupt must name, then runs to the report
    /// unless `connected` refuses (its sentence is the error; nothing ran).
    fn run<'a>(self: Box<Self>, start: Start, connected: Connected<'a>) -> Ran<'a>;
}

impl Clone for Box<dyn PlannedRun> {
    fn clone(&self) -> Self {
        self.boxed()
    }
}
