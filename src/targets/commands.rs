//! Each target's commands as the CLI shows them (flattened into the
//! command line's subcommands): GCS's `run` and `doctor`, etcd's `etcd run`;
//! and what each asks of the front end.

use super::FormOptions;
use crate::cli::ReportArgs;
use crate::config::{ConfigError, Environment};
use crate::gcs::flags::BenchArgs;
use crate::gcs::planned::GcsPlan;
use clap::{Args, Subcommand};

#[derive(Subcommand, Debug)]
pub enum TargetCommand {
    /// Run the benchmark without the interactive app and print a report.
    Run(Box<RunArgs>),
    /// Check, before any upload, that a run would work: credentials, a
    /// token, the bucket, permission to create and delete objects, and the
    /// gRPC channel; a line per step, with what to do when one fails.
    Doctor(Box<DoctorArgs>),
    /// The same question for etcd: its HTTP gateway against gRPC.
    Etcd(EtcdArgs),
    /// The same question for any gRPC service, from its .proto: its gRPC
    /// path against its HTTP/JSON mapping (google.api.http or Connect).
    Grpc(GrpcArgs),
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub bench: BenchArgs,
    #[command(flatten)]
    pub report: ReportArgs,
}

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// The same target options as `run` (--bucket, --endpoint, --credentials, --auth, --ca-cert, ...).
    #[command(flatten)]
    pub bench: BenchArgs,
}

#[derive(Args, Debug)]
pub struct EtcdArgs {
    #[command(subcommand)]
    pub command: EtcdCommand,
}

#[derive(Subcommand, Debug)]
pub enum EtcdCommand {
    /// Puts, ranges or watches over the HTTP gateway and gRPC; prints a report.
    Run(Box<EtcdRunCommand>),
}

/// `etcd run`: etcd's flags, then how the report is written.
#[derive(Args, Debug)]
pub struct EtcdRunCommand {
    #[command(flatten)]
    pub etcd: crate::etcd::options::EtcdRunArgs,
    #[command(flatten)]
    pub report: ReportArgs,
}

#[derive(Args, Debug)]
pub struct GrpcArgs {
    #[command(subcommand)]
    pub command: GrpcCommand,
}

#[derive(Subcommand, Debug)]
pub enum GrpcCommand {
    /// One method called over gRPC and over its HTTP/JSON mapping; prints a report.
    Run(Box<GrpcRunCommand>),
}

/// `grpc run`: the service's flags, the schedule's, then how the report is written.
#[derive(Args, Debug)]
pub struct GrpcRunCommand {
    #[command(flatten)]
    pub grpc: grpc_service::options::GrpcRunArgs,
    #[command(flatten)]
    pub report: ReportArgs,
}

/// What a target's command asks the front end to do.
pub enum Action {
    /// A headless run (or a sweep of runs) of the options as the form
    /// holds them, reported as `ReportArgs` say.
    Run(Box<FormOptions>, ReportArgs),
    /// The doctor's checks (GCS).
    Check(Result<Doctor, ConfigError>),
}

/// A doctor's checks of a configuration.
pub struct Doctor(Box<GcsPlan>);

impl Doctor {
    /// Runs the checks; the exit code says whether all passed.
    pub async fn check(&self) -> u8 {
        // The emulator lives as long as `_server`: through every check.
        let (_server, built_in) = match self.0.built_in().await {
            Ok((server, urls)) => (server, Ok(urls)),
            Err(error) => (None, Err(error.to_string())),
        };
        crate::gcs::doctor::check(&self.0.config, built_in).await
    }
}

impl TargetCommand {
    pub fn action(self, env: &Environment) -> Action {
        match self {
            TargetCommand::Run(args) => {
                let RunArgs { bench, report } = *args;
                Action::Run(Box::new(bench.to_options().into()), report)
            }
            TargetCommand::Doctor(args) => {
                let checked = GcsPlan::check(&args.bench.to_options(), env, &crate::built_in::BUILT_IN);
                Action::Check(checked.map(|plan| Doctor(Box::new(plan))))
            }
            TargetCommand::Etcd(EtcdArgs { command: EtcdCommand::Run(args) }) => {
                let EtcdRunCommand { etcd, report } = *args;
                Action::Run(Box::new(FormOptions::from_etcd(&etcd)), report)
            }
            TargetCommand::Grpc(GrpcArgs { command: GrpcCommand::Run(args) }) => {
                let GrpcRunCommand { grpc, report } = *args;
                Action::Run(Box::new(FormOptions::from_grpc(&grpc)), report)
            }
        }
    }
}
