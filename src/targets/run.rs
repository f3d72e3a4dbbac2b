//! A run the form or the flags planned, for whichever target they chose:
//! what the front ends say of it before it starts, and the one way every
//! front end (headless `run`, `etcd run`, the app) connects and runs it.

use super::Finished;
use crate::config::{BenchConfig, ConfigError, Environment, FormOptions, Target};
use crate::etcd::options::EtcdConfig;
use engine::events::{RoundWords, RunEvent};
use engine::live::LanePlan;
use engine::outlet::Outlets;
use grpc_service::config::ServiceConfig;
use std::time::SystemTime;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// A valid plan: the run it describes, for the target chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum Planned {
    Gcs(Box<BenchConfig>),
    Etcd(Box<EtcdConfig>),
    Grpc(Box<ServiceConfig>),
}

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
    pub start_at: Option<SystemTime>,
    pub host: Option<String>,
}

impl Planned {
    /// The form's target, validated as that target validates its options.
    pub fn check(options: &FormOptions, env: &Environment) -> Result<Planned, ConfigError> {
        let target = super::registered(&options.target).map_err(|message| ConfigError { field: "target", message })?;
        match target.name {
            "etcd" => options.etcd_run_args().validate().map(|c| Planned::Etcd(Box::new(c))),
            "grpc" => options.grpc_run_args().validate().map(|c| Planned::Grpc(Box::new(c))),
            "gcs" => crate::config::checked(&options.gcs, env).map(|c| Planned::Gcs(Box::new(c))),
            other => unreachable!("{other} is registered and planned above"),
        }
    }

    /// Things said once at the start (a rounded size, a default target).
    pub fn notes(&self) -> &[String] {
        match self {
            Planned::Gcs(c) => &c.notes,
            Planned::Etcd(c) => &c.notes,
            Planned::Grpc(c) => &c.notes,
        }
    }

    /// What a cancel does: how the run stops and what it keeps or deletes.
    pub fn stopping_sentence(&self) -> String {
        match self {
            Planned::Gcs(c) => c.stopping_sentence(),
            Planned::Etcd(c) => c.stopping_sentence(),
            Planned::Grpc(c) => c.stopping_sentence(),
        }
    }

    pub fn round_words(&self) -> RoundWords {
        match self {
            Planned::Gcs(c) => c.round_words(),
            Planned::Etcd(c) => c.round_words(),
            Planned::Grpc(c) => c.round_words(),
        }
    }

    /// What the target is, plainly: nobody should mistake loopback for GCS.
    pub fn where_said(&self) -> String {
        match self {
            Planned::Gcs(config) => match &config.target {
                Target::BuiltIn => "built-in emulator (loopback, not GCS)".into(),
                Target::Endpoint { json_url, grpc_url } => {
                    format!("endpoint {}", json_url.as_deref().or(grpc_url.as_deref()).unwrap_or(""))
                }
                Target::Gcs => format!("gs://{} on GCS", config.bucket),
            },
            Planned::Etcd(config) => format!("etcd at {}", config.reach.endpoints.join(",")),
            Planned::Grpc(config) => format!("{} at {}", config.method_name(), config.reach.grpc_endpoint),
        }
    }

    /// Who the run signs in as, said before it starts.
    pub fn sign_in_said(&self) -> String {
        match self {
            Planned::Gcs(config) if config.target == Target::Gcs => {
                "credentials: looked up when the run starts (Credentials field, GOOGLE_APPLICATION_CREDENTIALS, ..., ADC)"
                    .into()
            }
            Planned::Gcs(_) => "credentials: none needed".into(),
            Planned::Etcd(config) => match &config.reach.user {
                Some((user, _)) => format!("user: {user} (both transports sign in)"),
                None => "user: none (for a cluster with auth on, set User and Password)".into(),
            },
            Planned::Grpc(config) => match config.reach.headers.len() {
                0 => "headers: none".into(),
                n => format!("headers: {n}, on both transports"),
            },
        }
    }

    /// What the app's live pane starts from: lanes, plans and units.
    pub fn lane_plan(&self) -> LanePlan {
        match self {
            Planned::Gcs(config) => config.lane_plan(),
            Planned::Etcd(config) => config.lane_plan(),
            Planned::Grpc(config) => config.lane_plan(),
        }
    }

    /// It goes to the emulator built into this binary.
    pub fn on_built_in_emulator(&self) -> bool {
        matches!(self, Planned::Gcs(c) if c.target == Target::BuiltIn)
    }

    /// A standing fault injected into the built-in emulator, as typed.
    pub fn emulator_fault(&self) -> Option<&str> {
        match self {
            Planned::Gcs(c) => c.emulator_fault.as_deref(),
            Planned::Etcd(_) | Planned::Grpc(_) => None,
        }
    }

    /// Connects (an error here is the user's to fix, and nothing ran), tells
    /// `connected` what an interrupt must name, then runs to the report
    /// unless `connected` refuses (its sentence is the error; nothing ran).
    pub async fn run(
        self,
        start: Start,
        connected: impl FnOnce(Remains) -> Result<(), String>,
    ) -> Result<Finished, String> {
        let Start { events, cancel, start_at, host } = start;
        let label = |report: Finished| match host {
            Some(host) => report.host_labelled(host),
            None => report,
        };
        match self {
            Planned::Gcs(config) => {
                let stopping = config.stopping_sentence();
                let target = super::gcs::connect(&config).await.map_err(|e| e.to_string())?;
                let runner = crate::gcs::runner::Runner::new(*config, &target, events, cancel).starting_at(start_at);
                let ledger = runner.ledger();
                connected(Remains { stopping, nouns: ["object", "objects"], names: Box::new(move || ledger.names()) })?;
                Ok(label(Finished::from(runner.run().await)))
            }
            Planned::Etcd(config) => {
                use crate::etcd::runner::{CLIENT_THREAD_NAME, ClientRuntime, EtcdRunner};
                let stopping = config.stopping_sentence();
                // Small requests cost more in thread hand-offs than in work: the
                // client gets threads of its own (half the CPUs by default,
                // leaving etcd on loopback the rest), whose CPU alone is the client's.
                let client = ClientRuntime::new(config.client_threads, CLIENT_THREAD_NAME)?;
                let runner = client.run(EtcdRunner::connect(*config, cancel)).await.map_err(|e| e.to_string())?;
                let prefix = runner.run_prefix();
                let names = Box::new(move || vec![format!("etcd keys under {prefix}")]);
                connected(Remains { stopping, nouns: ["key prefix", "key prefixes"], names })?;
                Ok(label(Finished::from(client.run(runner.with_events(events).starting_at(start_at).run()).await)))
            }
            Planned::Grpc(config) => {
                use grpc_service::runner::{CLIENT_THREAD_NAME, ClientRuntime, ServiceRunner};
                let stopping = config.stopping_sentence();
                // The calls' effects, named by the run ID their requests
                // carry, with whether a cleanup call was due (a second Ctrl-C
                // may come before it is sent, or before it is answered).
                let cleanup = match config.cleanup_call.is_some() && config.cleanup {
                    true => "the cleanup call may not have been sent or answered",
                    false => "no cleanup call was asked",
                };
                let method = config.method_name();
                let client = ClientRuntime::new(config.client_threads, CLIENT_THREAD_NAME)?;
                let runner = client.run(ServiceRunner::connect(*config, cancel)).await.map_err(|e| e.to_string())?;
                let effects = format!("what {method} calls of run {} made: {cleanup}", runner.run_id());
                let names = Box::new(move || vec![effects.clone()]);
                connected(Remains { stopping, nouns: ["set of call effects", "sets of call effects"], names })?;
                Ok(label(Finished::from(client.run(runner.with_events(events).starting_at(start_at).run()).await)))
            }
        }
    }
}
