//! Each target's commands as the CLI shows them, from the registry: its
//! subcommand path with its flags and `ReportArgs` on the last step, its
//! `doctor` if it has one, and the app's own flags (the first target's,
//! which prefill the form); and what each asks of the front end.

use super::{Environment, FormOptions, REGISTRY, Target};
use crate::cli::ReportArgs;
use clap::{ArgMatches, Args, Command, FromArgMatches, Subcommand};
use engine::plan::flags::ConfigError;
use target_api::Checks;

/// A target's command as the user typed it.
pub struct TargetCommand {
    target: &'static dyn Target,
    /// Its `doctor` (else its run command).
    doctor: bool,
    /// The matches of the command's last step: its flags.
    matches: ArgMatches,
}

impl std::fmt::Debug for TargetCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.doctor { "doctor" } else { "run" };
        write!(f, "TargetCommand({} {what})", self.target.name())
    }
}

/// What a target's command asks the front end to do.
pub enum Action {
    /// A headless run (or a sweep of runs) of the options as the form
    /// holds them, reported as `ReportArgs` say.
    Run(Box<FormOptions>, ReportArgs),
    /// The target's checks before any work (`doctor`).
    Check(Result<Checks, ConfigError>),
}

/// `target`'s subcommand: its path, its flags and the report's on the last step.
fn run_command(target: &dyn Target) -> Command {
    let path = target.command();
    let (last, steps) = path.split_last().expect("a command has a name");
    // Its help after the flags': an `Args` struct's own doc would be taken as the command's.
    let mut command = ReportArgs::augment_args(target.args(Command::new(last.0))).about(last.1);
    for (depth, (name, about)) in steps.iter().enumerate().rev() {
        let mut group = Command::new(*name).about(*about).subcommand_required(true).arg_required_else_help(true);
        // A grouped target's doctor sits beside its run (`grpc doctor`).
        if depth == steps.len() - 1
            && let Some(doctor) = doctor_command(target)
        {
            group = group.subcommand(doctor);
        }
        command = group.subcommand(command);
    }
    command
}

/// `target`'s doctor command: its flags, without the report's.
fn doctor_command(target: &dyn Target) -> Option<Command> {
    target.doctor().map(|(name, about)| target.args(Command::new(name)).about(about))
}

/// Whether the doctor goes at the top (`doctor`), not beside a grouped run.
fn top_level_doctor(target: &dyn Target) -> bool {
    target.command().len() == 1
}

impl Subcommand for TargetCommand {
    fn augment_subcommands(mut command: Command) -> Command {
        for target in REGISTRY {
            command = command.subcommand(run_command(target));
            if let Some(doctor) = doctor_command(target).filter(|_| top_level_doctor(target)) {
                command = command.subcommand(doctor);
            }
        }
        command
    }

    fn augment_subcommands_for_update(command: Command) -> Command {
        Self::augment_subcommands(command)
    }

    fn has_subcommand(name: &str) -> bool {
        REGISTRY.iter().any(|t| {
            t.command()[0].0 == name || (top_level_doctor(*t) && t.doctor().is_some_and(|(doctor, _)| doctor == name))
        })
    }
}

impl FromArgMatches for TargetCommand {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let missing = || clap::Error::new(clap::error::ErrorKind::MissingSubcommand);
        let (name, mut matches) = matches.subcommand().ok_or_else(missing)?;
        for target in REGISTRY {
            let is_doctor = |name: &str| target.doctor().is_some_and(|(doctor, _)| doctor == name);
            if top_level_doctor(target) && is_doctor(name) {
                return Ok(TargetCommand { target, doctor: true, matches: matches.clone() });
            }
            let path = target.command();
            if path[0].0 != name {
                continue;
            }
            for (step, _) in &path[1..] {
                // Beside the last step: the group's doctor (`grpc doctor`).
                if let Some((doctor, inner)) = matches.subcommand().filter(|(n, _)| is_doctor(n))
                    && doctor != *step
                {
                    return Ok(TargetCommand { target, doctor: true, matches: inner.clone() });
                }
                matches = matches.subcommand_matches(step).ok_or_else(missing)?;
            }
            return Ok(TargetCommand { target, doctor: false, matches: matches.clone() });
        }
        Err(missing())
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl TargetCommand {
    pub fn action(self, env: &Environment) -> Result<Action, clap::Error> {
        if self.doctor {
            return Ok(Action::Check(self.target.check(&self.matches, env)));
        }
        let (form, schedule) = self.target.form_from(&self.matches)?;
        let report = ReportArgs::from_arg_matches(&self.matches)?;
        Ok(Action::Run(Box::new(FormOptions::of(self.target, form, schedule)), report))
    }
}

/// The app's flags, which prefill its form: the first target's run flags.
#[derive(Clone, Debug, Default)]
pub struct AppFlags(Option<ArgMatches>);

impl Args for AppFlags {
    fn augment_args(command: Command) -> Command {
        REGISTRY[0].args(command)
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}

impl FromArgMatches for AppFlags {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        Ok(AppFlags(Some(matches.clone())))
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl AppFlags {
    /// The form the flags give.
    pub fn form(&self) -> Result<FormOptions, clap::Error> {
        let Some(matches) = &self.0 else { return Ok(FormOptions::default()) };
        let (form, schedule) = REGISTRY[0].form_from(matches)?;
        Ok(FormOptions::of(REGISTRY[0], form, schedule))
    }
}
