//! A GCS run as every front end starts it (`PlannedRun`), with the
//! built-in emulator the binary hands over (`BuiltInServer`) for a run
//! that goes to it.

use crate::config::{BenchConfig, ConfigError, Environment, Options, Target, Workload};
use crate::runner::CLIENT_THREAD_NAME;
use crate::target::{Connected, SetupError};
use engine::built_in::{BuiltInServer, Server};
use engine::calls::runtime::ClientRuntime;
use engine::finished::FinishedRun;
use engine::live::LanePlan;
use engine::outlet::Outlets;
use engine::planned::{PlannedRun, Ran, Remains, Start};

/// A validated GCS run, and the emulator it may go to.
#[derive(Clone)]
pub struct GcsPlan {
    pub config: BenchConfig,
    built_in: &'static dyn BuiltInServer,
}

impl std::fmt::Debug for GcsPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.config.fmt(f)
    }
}

/// Two plans are alike when their runs are: there is one built-in emulator.
impl PartialEq for GcsPlan {
    fn eq(&self, other: &GcsPlan) -> bool {
        self.config == other.config
    }
}

impl GcsPlan {
    /// A configuration already validated, and the emulator it may go to.
    pub fn of(config: BenchConfig, built_in: &'static dyn BuiltInServer) -> GcsPlan {
        GcsPlan { config, built_in }
    }

    /// `options` validated as GCS validates them, and its `--emulator-fault`
    /// by the emulator's own grammar: one sentence for either mistake.
    pub fn check(
        options: &Options,
        env: &Environment,
        built_in: &'static dyn BuiltInServer,
    ) -> Result<GcsPlan, ConfigError> {
        let mut config = options.validate(env)?;
        if let Err(error) = descriptors_fit(&config) {
            match config.open_loop {
                // Open loop's bound is arrivals in flight, seldom reached: said, not refused.
                Some(_) => config.notes.push(format!("note: {}", error.message)),
                None => return Err(error),
            }
        }
        let fault = options.emulator_fault.trim();
        if !fault.is_empty() {
            built_in.check_fault(fault).map_err(engine::plan::flags::flag_error("emulator_fault"))?;
        }
        Ok(GcsPlan { config, built_in })
    }

    /// The built-in emulator when the run goes to it, started (kept alive
    /// by the first value), and its JSON and gRPC URLs.
    pub async fn built_in(&self) -> Result<(Option<Server>, Option<(String, String)>), SetupError> {
        let config = &self.config;
        if config.target != Target::BuiltIn {
            return Ok((None, None));
        }
        // Reads (and appends, read back as they grow) need the bytes back;
        // uploads alone keep memory flat without them.
        let retain = config.workload.reads() || config.workload == Workload::Append;
        let fault = config.emulator_fault.as_deref().unwrap_or_default();
        let (server, json, grpc) = self.built_in.start(fault, retain).await.map_err(SetupError::Emulator)?;
        Ok((Some(server), Some((json, grpc))))
    }

    /// Connected to where the run goes (the built-in emulator started).
    pub async fn connect(&self) -> Result<Connected, SetupError> {
        let (server, urls) = self.built_in().await?;
        let mut connected = crate::target::connect(&self.config, urls).await?;
        connected.server = server;
        Ok(connected)
    }

    /// Connected on threads of the client's own (`CLIENT_THREAD_NAME`, one
    /// per CPU, as tokio's default), where the run must go too
    /// (`ClientRuntime::run`): the transports' connection tasks then run
    /// there, and those threads' CPU is the client's alone, not the app's
    /// drawing, the CLI's printing or the built-in emulator's.
    pub async fn connect_on_client_threads(self) -> Result<(ClientRuntime, Connected), String> {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let client = ClientRuntime::new(threads, CLIENT_THREAD_NAME)?;
        let connected = client.run(async move { self.connect().await }).await.map_err(|e| e.to_string())?;
        Ok((client, connected))
    }
}

/// The connections a run opens fit the process's descriptors: HTTP/JSON
/// one a worker (HTTP/1.1), gRPC its channels, and the built-in emulator
/// the other end of each.
fn descriptors_fit(config: &BenchConfig) -> Result<(), ConfigError> {
    let per_transport = |kind: &crate::config::TransportKind| match kind {
        crate::config::TransportKind::Json => u64::from(config.concurrency),
        _ => u64::from(config.grpc_conn_pool.max(1)),
    };
    let client: u64 = config.transports.iter().map(per_transport).sum();
    let ends = if config.target == Target::BuiltIn { 2 } else { 1 };
    let what = format!(
        "--concurrency {}'s connections{}",
        config.concurrency,
        if ends == 2 { " (both ends: the built-in emulator runs in this process)" } else { "" }
    );
    engine::descriptors::fit(client * ends, &what).map_err(|message| ConfigError { field: "concurrency", message })
}

impl PlannedRun for GcsPlan {
    fn notes(&self) -> &[String] {
        &self.config.notes
    }

    fn stopping_sentence(&self) -> String {
        self.config.stopping_sentence()
    }

    fn round_words(&self) -> engine::events::RoundWords {
        self.config.round_words()
    }

    fn where_said(&self) -> String {
        match &self.config.target {
            Target::BuiltIn => "built-in emulator (loopback, not GCS)".into(),
            Target::Endpoint { json_url, grpc_url } => {
                format!("endpoint {}", json_url.as_deref().or(grpc_url.as_deref()).unwrap_or(""))
            }
            Target::Gcs => format!("gs://{} on GCS", self.config.bucket),
        }
    }

    fn sign_in_said(&self) -> String {
        match self.config.target {
            Target::Gcs => {
                "credentials: looked up when the run starts (Credentials field, GOOGLE_APPLICATION_CREDENTIALS, ..., ADC)"
                    .into()
            }
            _ => "credentials: none needed".into(),
        }
    }

    fn lane_plan(&self) -> LanePlan {
        self.config.lane_plan()
    }

    fn on_built_in_server(&self) -> bool {
        self.config.target == Target::BuiltIn
    }

    fn built_in_fault(&self) -> Option<&str> {
        self.config.emulator_fault.as_deref()
    }

    fn run<'a>(self: Box<Self>, start: Start, connected: engine::planned::Connected<'a>) -> Ran<'a> {
        Box::pin(async move {
            let Start { events, cancel, host, begin } = start;
            let stopping = self.stopping_sentence();
            let config = self.config.clone();
            let (client, target) = self.connect_on_client_threads().await?;
            let runner = crate::runner::Runner::new(config, target, cancel).with_events(events).starting(begin);
            let ledger = runner.ledger();
            connected(Remains { stopping, nouns: ["object", "objects"], names: Box::new(move || ledger.names()) })?;
            let mut report = client.run(runner.run()).await;
            if let Some(host) = host {
                report.label_host(host);
            }
            Ok(Box::new(report) as Box<dyn FinishedRun>)
        })
    }
}
