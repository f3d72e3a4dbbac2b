//! What a target gives the front ends (`Target`): its form's fields over
//! its own options, its flags, its welcome, its plan and how its reports
//! are read back. Each target crate implements it once; the binary's
//! registry is a list of them, and nothing else in the front ends names a
//! target.

pub mod flags;
pub mod form;
pub mod schedule;

use engine::finished::FinishedRun;
use engine::plan::flags::ConfigError;
use engine::planned::PlannedRun;
use form::{FieldRef, TargetForm};
use schedule::ScheduleArgs;
use std::collections::BTreeMap;

pub trait Target: Sync {
    /// As the Target field, `--open` and a report's `target` spell it.
    fn name(&self) -> &'static str;
    /// What it benchmarks, for the Target field's help: `gcs (uploads)`.
    fn said(&self) -> &'static str;
    /// Its form's lines, in the order the form shows them.
    fn fields(&self) -> Vec<FieldRef>;
    /// How many of `fields` show before the advanced group.
    fn essentials(&self) -> usize;
    /// Its subcommand's path (`["etcd", "run"]`), with each step's help.
    fn command(&self) -> &'static [(&'static str, &'static str)];
    /// Its flags (the schedule's among them), added to its subcommand.
    fn args(&self, command: clap::Command) -> clap::Command;
    /// Its own options and the schedule, as the flags in `matches` give them.
    fn form_from(&self, matches: &clap::ArgMatches) -> Result<(Box<dyn TargetForm>, ScheduleArgs), clap::Error>;
    /// Its own options at their defaults.
    fn new_form(&self) -> Box<dyn TargetForm>;
    /// Where a remembered form keeps its options: under this key, or (none)
    /// beside the schedule's (GCS's, as forms were first remembered).
    fn remembered_under(&self) -> Option<&'static str>;
    /// Its options read back from a remembered form's JSON (what is missing
    /// takes its default).
    fn read_form(&self, remembered: serde_json::Value) -> Result<Box<dyn TargetForm>, String>;
    /// What the live pane says before the first run of its form.
    fn welcome(&self, form: &dyn TargetForm, schedule: &ScheduleArgs) -> Welcome;
    /// Its form's run, validated as the target validates its options.
    fn plan(
        &self,
        form: &dyn TargetForm,
        schedule: &ScheduleArgs,
        env: &Environment,
    ) -> Result<Box<dyn PlannedRun>, ConfigError>;
    /// How its reports say where they ran.
    fn report_names(&self) -> ReportNames;
    /// Its report read back from JSON.
    fn read_report(&self, value: serde_json::Value) -> Result<Box<dyn FinishedRun>, String>;
    /// A check of its options before any work (`doctor`): the command's
    /// name and help, if it has one.
    fn doctor(&self) -> Option<(&'static str, &'static str)> {
        None
    }
    /// Runs its checks of the flags in `matches`; the exit code says whether
    /// all passed, or the sentence says why they could not start.
    fn check(&self, matches: &clap::ArgMatches, env: &Environment) -> Result<Checks, ConfigError> {
        let _ = (matches, env);
        unreachable!("{} has no doctor", self.name())
    }
}

/// What a target writes: its types and words, its fields, how its flags
/// split into its own options and the schedule, its welcome and its plan.
/// Every `Target` method follows from these (`impl<T: FormTarget> Target`).
pub trait FormTarget: Sync {
    /// Its options as the form holds them (text as typed).
    type Options: Clone
        + PartialEq
        + Default
        + std::fmt::Debug
        + serde::Serialize
        + serde::de::DeserializeOwned
        + Send
        + Sync
        + 'static;
    /// Its flags, the schedule's among them.
    type Args: clap::Args + clap::FromArgMatches;
    type Report: FinishedRun + serde::de::DeserializeOwned;
    const NAME: &'static str;
    /// What it benchmarks, for the Target field's help.
    const SAID: &'static str;
    /// Its subcommand's path, with each step's help.
    const COMMAND: &'static [(&'static str, &'static str)];
    /// How many fields show before the advanced group.
    const ESSENTIALS: usize;
    /// Where a remembered form keeps its options (none: at the top).
    const REMEMBERED_UNDER: Option<&'static str> = Some(Self::NAME);
    const REPORT_NAMES: ReportNames = ReportNames::Target;
    fn slots() -> &'static [form::Slot<Self::Options>];
    /// Its flags as its own options and the schedule.
    fn split(args: Self::Args) -> (Self::Options, ScheduleArgs);
    fn welcome(options: &Self::Options, schedule: &ScheduleArgs) -> Welcome;
    fn plan(
        &self,
        options: &Self::Options,
        schedule: &ScheduleArgs,
        env: &Environment,
    ) -> Result<Box<dyn PlannedRun>, ConfigError>;
    /// `Target::doctor`.
    fn doctor(&self) -> Option<(&'static str, &'static str)> {
        None
    }
    /// `Target::check`, over its own options and the schedule's (which
    /// transports to check).
    fn check(&self, options: Self::Options, schedule: ScheduleArgs, env: &Environment) -> Result<Checks, ConfigError> {
        let _ = (options, schedule, env);
        unreachable!("{} has no doctor", Self::NAME)
    }
    /// A report read back, brought up to date (a report of an earlier
    /// version given what this one computes from).
    fn read_report(value: serde_json::Value) -> Result<Self::Report, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }
}

impl<T: FormTarget> Target for T {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn said(&self) -> &'static str {
        T::SAID
    }

    fn fields(&self) -> Vec<FieldRef> {
        T::slots().iter().flat_map(form::Slot::field_refs).collect()
    }

    fn essentials(&self) -> usize {
        T::ESSENTIALS
    }

    fn command(&self) -> &'static [(&'static str, &'static str)] {
        T::COMMAND
    }

    fn args(&self, command: clap::Command) -> clap::Command {
        <T::Args as clap::Args>::augment_args(command)
    }

    fn form_from(&self, matches: &clap::ArgMatches) -> Result<(Box<dyn TargetForm>, ScheduleArgs), clap::Error> {
        let (options, schedule) = T::split(<T::Args as clap::FromArgMatches>::from_arg_matches(matches)?);
        Ok((Box::new(form::OwnForm::new(options, T::slots())), schedule))
    }

    fn new_form(&self) -> Box<dyn TargetForm> {
        Box::new(form::OwnForm::new(T::Options::default(), T::slots()))
    }

    fn remembered_under(&self) -> Option<&'static str> {
        T::REMEMBERED_UNDER
    }

    fn read_form(&self, remembered: serde_json::Value) -> Result<Box<dyn TargetForm>, String> {
        let options: T::Options = serde_json::from_value(remembered).map_err(|e| e.to_string())?;
        Ok(Box::new(form::OwnForm::new(options, T::slots())))
    }

    fn welcome(&self, form: &dyn TargetForm, schedule: &ScheduleArgs) -> Welcome {
        T::welcome(form::own(form), schedule)
    }

    fn plan(
        &self,
        form: &dyn TargetForm,
        schedule: &ScheduleArgs,
        env: &Environment,
    ) -> Result<Box<dyn PlannedRun>, ConfigError> {
        FormTarget::plan(self, form::own(form), schedule, env)
    }

    fn report_names(&self) -> ReportNames {
        T::REPORT_NAMES
    }

    fn read_report(&self, value: serde_json::Value) -> Result<Box<dyn FinishedRun>, String> {
        Ok(Box::new(<T as FormTarget>::read_report(value)?))
    }

    fn doctor(&self) -> Option<(&'static str, &'static str)> {
        FormTarget::doctor(self)
    }

    fn check(&self, matches: &clap::ArgMatches, env: &Environment) -> Result<Checks, ConfigError> {
        let args = <T::Args as clap::FromArgMatches>::from_arg_matches(matches)
            .map_err(|e| ConfigError { field: "doctor", message: e.to_string() })?;
        let (options, schedule) = T::split(args);
        FormTarget::check(self, options, schedule, env)
    }
}

/// A doctor's checks, run to their exit code.
pub type Checks = std::pin::Pin<Box<dyn std::future::Future<Output = u8> + Send>>;

/// How a target's report says where it ran: by the target's name, or (GCS,
/// as its reports always have) by an object saying the place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportNames {
    Target,
    Place,
}

/// The process's environment variables that a target reads (set and not
/// blank), taken once so that tests can give their own.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Environment(BTreeMap<String, String>);

/// The variables' names alone: their values may be secrets (ETCD_PASSWORD).
impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

impl Environment {
    pub fn from_process() -> Self {
        Environment(std::env::vars().filter(|(_, value)| !value.trim().is_empty()).collect())
    }

    /// `vars` as the environment: `[("STORAGE_EMULATOR_HOST", "...")]`.
    pub fn of<'a>(vars: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Environment(vars.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    pub fn var(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

/// What the app's live pane says of the form's run before the first one:
/// what pressing r does, what the run will do, and what to set next.
pub struct Welcome {
    /// Between "Press r" and the place: " to upload to ", " to run against ".
    pub verb: &'static str,
    /// The place is a thing ("the built-in emulator"), not a name said whole.
    pub article: bool,
    /// What the run does, in a sentence or two.
    pub what: String,
    /// What to set next.
    pub hint: &'static str,
}

impl Welcome {
    /// The place the run goes, as the first line says it: "the built-in
    /// emulator", "the endpoint ...", but "gs://b on GCS".
    pub fn place(&self, label: String) -> String {
        match label {
            label if !self.article || label.starts_with("gs://") => label,
            label => format!("the {label}"),
        }
    }
}
