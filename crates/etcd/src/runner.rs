//! An etcd run: connect both transports (each checked against the cluster
//! before any clock starts), seed keys for range, warm up, the engine's
//! paired rounds, then delete exactly the run's prefix.

use super::client::{EtcdError, Kv};
use super::gateway::{GatewayKv, http_client};
use super::grpc::GrpcKv;
use super::meter::{Owner, WireMeter};
use super::metrics::ServerCpu;
use super::options::{EtcdConfig, Mode};
use super::report::{EtcdReport, EtcdSettings, KeysCleanup, Ran};
use super::rounds::{EtcdRound, summarize};
use super::workload::{Keys, Work, run_batch};
use engine::Stop;
use engine::calls::bounded::{Limits, Progress, bounded};
use engine::calls::drive::{CallsRunner, run_rounds};
use engine::events::{Phase, RunEvent};
use engine::plan::Schedule;
use engine::plan::TransportKind;
use engine::report::RunOutcome;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

use engine::calls::logged::CallLog;
pub use engine::calls::runtime::ClientRuntime;
use engine::outlet::{Outlet, Outlets};

/// The threads an etcd run's client runs on, and whose CPU is its client CPU.
pub const CLIENT_THREAD_NAME: &str = "etcd-client";

mod round;

pub struct EtcdRunner {
    config: EtcdConfig,
    run_id: String,
    kvs: BTreeMap<TransportKind, Arc<dyn Kv>>,
    /// gRPC, for the watch load, seeding and cleanup (the tool's own traffic).
    tool: Arc<dyn Kv>,
    server_cpu: ServerCpu,
    wire: WireMeter,
    cancel: CancellationToken,
    deadline: tokio::time::Instant,
    measuring_since: Instant,
    /// Folded in twos past `MOST_ROUNDS` a transport: a long run keeps a bounded list.
    rounds: engine::folded::Folded<EtcdRound>,
    value: Arc<Vec<u8>>,
    /// Why a round broke the watch check, first seen.
    broken: Option<String>,
    notes: Vec<String>,
    /// `--samples`: every call of the timed rounds.
    log: Option<CallLog>,
    /// The live feed for the app, the run's clock and `--start-at`.
    outlet: Outlet,
}

impl Outlets for EtcdRunner {
    fn outlet(&mut self) -> &mut Outlet {
        &mut self.outlet
    }
}

impl EtcdRunner {
    /// Connects and checks each transport against the cluster; an error here
    /// is the user's to fix (wrong URL, not etcd, auth, TLS) and nothing ran.
    pub async fn connect(config: EtcdConfig, cancel: CancellationToken) -> Result<Self, EtcdError> {
        let ports = config.reach.endpoints.iter().filter_map(|e| engine::calls::meter::port_of(e)).collect();
        let mut wire = WireMeter::new(ports);
        let scraper = http_client(&config.reach)?.build().map_err(|e| super::gateway::build_error(&e))?;
        let server_cpu = ServerCpu::new(scraper, config.reach.endpoints.clone());
        let mut kvs: BTreeMap<TransportKind, Arc<dyn Kv>> = BTreeMap::new();
        for &kind in &config.schedule.transports {
            let kv: Arc<dyn Kv> = match kind {
                TransportKind::Json => Arc::new(GatewayKv::connect(&config.reach).await?),
                // (grpc-read-object is refused for etcd when options are checked.)
                TransportKind::Grpc | TransportKind::GrpcReadObject => Arc::new(GrpcKv::connect(&config.reach).await?),
            };
            wire.claim(Owner::Transport(kind));
            kvs.insert(kind, kv);
        }
        let tool_reach = super::client::Reach { conns: 1, ..config.reach.clone() };
        let tool: Arc<dyn Kv> = Arc::new(GrpcKv::connect(&tool_reach).await?);
        let run_id = engine::schedule::new_run_id();
        let probe = format!("{}/{run_id}/probe", config.prefix).into_bytes();
        for kv in kvs.values().chain([&tool]) {
            // Auth and permissions (every mode writes and deletes its keys) show
            // here, before any clock starts; the probe key is the run's own.
            kv.put(probe.clone(), Vec::new()).await?;
            kv.range(probe.clone()).await?;
            kv.delete_prefix(probe.clone()).await?;
        }
        server_cpu.seconds().await?;
        wire.claim(Owner::Tool);
        let value = Arc::new((0..config.value_size).map(|i| b'a' + (i % 26) as u8).collect());
        let deadline = tokio::time::Instant::now() + config.schedule.timeout;
        Ok(Self {
            config,
            run_id,
            kvs,
            tool,
            server_cpu,
            wire,
            cancel,
            deadline,
            measuring_since: Instant::now(),
            rounds: Default::default(),
            value,
            broken: None,
            notes: Vec::new(),
            log: None,
            outlet: Outlet::default(),
        })
    }

    fn work(&self, keys: Arc<Keys>, clients: u32, requests: u32) -> Work {
        let (done, stop) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicBool::new(false)));
        Work { keys, value: self.value.clone(), clients, requests, done, stop, log: None }
    }

    /// `PREFIX/RUN-ID/`: every key of the run is under it, and only those.
    pub fn run_prefix(&self) -> String {
        format!("{}/{}/", self.config.prefix, self.run_id)
    }

    fn keys(&self, below: &str) -> Arc<Keys> {
        Arc::new(Keys {
            prefix: format!("{}{below}", self.run_prefix()).into_bytes(),
            key_size: self.config.key_size,
            key_space: self.config.key_space,
            sequential: self.config.sequential_keys,
        })
    }

    pub async fn run(mut self) -> EtcdReport {
        let started_at = units::rfc3339(std::time::SystemTime::now());
        self.log = match self.config.mode {
            Mode::Watch if self.outlet.samples.is_some() => {
                let why = "--samples: watch mode measures events, which are not written; no samples file was made";
                self.outlet.say(why.into()).await;
                None
            }
            _ => CallLog::opened(&self.outlet).await,
        };
        let (stop, because) = run_rounds(&mut self).await;
        if let Some(log) = self.log.take() {
            self.outlet.say(log.finish()).await;
        }
        self.outlet.emit(RunEvent::Phase(Phase::CleaningUp)).await;
        let cleanup = self.clean_up().await;
        let left = if cleanup.error.is_some() { vec![cleanup.prefix.clone()] } else { Vec::new() };
        self.outlet.emit(RunEvent::CleanupDone { deleted: cleanup.deleted as usize, left }).await;
        // A broken watch fails the run, in the warmup (not a round) too.
        let failures = self.broken.is_some() || self.rounds.rounds.iter().any(|r| !r.ok);
        let outcome = RunOutcome::ended(stop, failures, false);
        let summaries = self
            .config
            .schedule
            .transports
            .iter()
            .map(|kind| {
                let kv = &self.kvs[kind];
                summarize(*kind, kv.protocol(), kv.connections(), &self.rounds.rounds)
            })
            .collect();
        let stopped_because = self.broken.take().or(because);
        let ran = Ran { run_id: self.run_id, started_at, outcome, stopped_because };
        EtcdReport::new(ran, EtcdSettings::of(&self.config), summaries, self.rounds.rounds, cleanup)
            .with_notes(self.notes)
    }

    /// Range mode reads keys that must exist: the whole key space is put first.
    async fn before_rounds(&mut self) -> Option<Stop> {
        if self.config.mode == Mode::Range {
            self.outlet.say(format!("writing the {} keys of the key space for range", self.config.key_space)).await;
            let keys = Arc::new(Keys { sequential: true, ..(*self.keys("")).clone() });
            let clients = self.config.clients.min(self.config.key_space);
            let work = self.work(keys, clients, self.config.key_space.div_ceil(clients));
            let batch = match self.bounded(run_batch(self.tool.clone(), Mode::Put, &work), &work, None).await {
                Ok(batch) => batch,
                Err(stop) => return Some(stop),
            };
            if let Some(error) = batch.failures.first {
                self.notes.push(format!("writing the key space failed: {error}"));
                return Some(Stop::FailFast);
            }
        }
        if self.config.warmup {
            self.outlet.emit(RunEvent::Phase(Phase::Warmup)).await;
            for kind in self.config.schedule.transports.clone() {
                let stop = self.round(kind, None).await.err();
                if stop.is_some() {
                    return stop;
                }
            }
        }
        None
    }

    /// Waits for `running` (the future doing `work`) unless the run is
    /// cancelled or out of time first (the engine's `bounded`), saying
    /// meanwhile how much of `round` is done.
    async fn bounded<T>(
        &self,
        running: impl Future<Output = T>,
        work: &Work,
        round: Option<(TransportKind, Option<u32>)>,
    ) -> Result<T, Stop> {
        let limits = Limits { cancel: &self.cancel, deadline: self.deadline };
        let progress = round.zip(self.outlet.events()).map(|((transport, round), events)| Progress {
            events,
            transport,
            round,
            clock: self.outlet.clock(),
        });
        bounded(running, &work.turns(), limits, progress).await
    }

    /// Deletes exactly the run's prefix (or says what is kept).
    async fn clean_up(&mut self) -> KeysCleanup {
        let prefix = self.run_prefix();
        if !self.config.cleanup {
            return KeysCleanup { prefix, deleted: 0, kept: true, error: None };
        }
        let deleting = self.tool.delete_prefix(prefix.clone().into_bytes());
        match tokio::time::timeout(Duration::from_secs(60), deleting).await {
            Ok(Ok(deleted)) => KeysCleanup { prefix, deleted: deleted as u64, kept: false, error: None },
            Ok(Err(error)) => KeysCleanup { prefix, deleted: 0, kept: false, error: Some(error.to_string()) },
            Err(_) => KeysCleanup { prefix, deleted: 0, kept: false, error: Some("no answer within 60 s".into()) },
        }
    }
}

impl CallsRunner for EtcdRunner {
    engine::calls_runner_fields!();

    fn announced(&self) -> String {
        format!("etcd at {} · keys under {}", self.config.reach.endpoints.join(","), self.run_prefix())
    }

    fn schedule(&self) -> &Schedule {
        &self.config.schedule
    }

    async fn prepare(&mut self) -> Option<Stop> {
        self.before_rounds().await
    }
}

engine::rounds_of_calls!(EtcdRunner, EtcdRound);
