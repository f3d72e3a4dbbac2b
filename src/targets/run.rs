//! A run the form or the flags planned, for whichever target they chose:
//! the one way every front end (headless `run`, `etcd run`, the app) gets
//! a run it can describe, start and connect (`engine::planned`).

use super::{Environment, FormOptions};
use engine::plan::flags::ConfigError;
use engine::planned::PlannedRun;

/// A valid plan: the run it describes, for the target chosen.
pub type Planned = Box<dyn PlannedRun>;

/// The form's target, validated as that target validates its options.
pub fn plan(options: &FormOptions, env: &Environment) -> Result<Planned, ConfigError> {
    let target = super::registered(&options.target).map_err(|message| ConfigError { field: "target", message })?;
    target.plan(options.own(), &options.schedule, env)
}
