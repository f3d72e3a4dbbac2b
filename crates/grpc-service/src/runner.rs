//! A `grpc run`: connect both transports, send call 0 over each and compare
//! the answers before any clock starts, warm up, the engine's paired
//! rounds, then the cleanup call (after a cancel or an error too).

use crate::caller::Caller;
use crate::config::ServiceConfig;
use crate::error::{Result, ServiceError};
use crate::grpc::GrpcCaller;
use crate::http::HttpCaller;
use crate::report::{CleanupCall, GrpcReport};
use crate::sign_in::with_token;
use crate::template::Call;
use engine::Stop;
use engine::calls::drive::{CallsRunner, run_rounds};
use engine::calls::meter::{Owner, WireMeter};
use engine::calls::rounds::{CallRound, summarize};
use engine::events::{Phase, RunEvent};
use engine::plan::{Schedule, TransportKind};
use engine::report::RunOutcome;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

use engine::calls::logged::CallLog;
pub use engine::calls::runtime::ClientRuntime;
use engine::outlet::{Outlet, Outlets};

mod round;

/// The threads a run's client runs on, and whose CPU is its client CPU.
pub const CLIENT_THREAD_NAME: &str = "grpc-client";

pub struct ServiceRunner {
    config: ServiceConfig,
    run_id: String,
    callers: BTreeMap<TransportKind, Arc<Caller>>,
    /// The cleanup method's own channel (the tool's traffic, not a transport's).
    cleaner: Option<GrpcCaller>,
    wire: WireMeter,
    cancel: CancellationToken,
    deadline: tokio::time::Instant,
    measuring_since: Instant,
    /// Folded in twos past `MOST_ROUNDS` a transport: a long run keeps a bounded list.
    rounds: engine::folded::Folded<CallRound>,
    notes: Vec<String>,
    /// Why the check before the rounds failed: nothing was measured.
    check_failed: Option<String>,
    /// Sampled answers of rounds waiting for the other transport's.
    pairing: crate::sampler::Pairing,
    /// `--samples`: every call of the timed rounds.
    log: Option<CallLog>,
    /// `--auth google`: the credentials whose tokens sign each call in.
    auth: Option<Arc<google_sign_in::Auth>>,
    /// The live feed for the app, the run's clock and `--start-at`.
    outlet: Outlet,
}

impl Outlets for ServiceRunner {
    fn outlet(&mut self) -> &mut Outlet {
        &mut self.outlet
    }
}

impl ServiceRunner {
    /// Connects each transport; an error here is the user's to fix (wrong
    /// URL, not this service, TLS) and nothing ran.
    pub async fn connect(config: ServiceConfig, cancel: CancellationToken) -> Result<Self> {
        let auth = match &config.sign_in {
            Some(sign_in) => Some(Arc::new(sign_in.signed_in().await?)),
            None => None,
        };
        let reach = &config.reach;
        let ports = [&reach.grpc_endpoint, &reach.http_endpoint]
            .iter()
            .filter_map(|e| engine::calls::meter::port_of(e))
            .collect();
        let mut wire = WireMeter::new(ports);
        let method = &config.calling.method;
        let mut callers = BTreeMap::new();
        for &kind in &config.schedule.transports {
            let caller = match kind {
                TransportKind::Json => {
                    let mapping = config.mapping.clone().expect("a mapping is chosen when HTTP/JSON runs");
                    let caller = HttpCaller::new(reach, method, mapping)?;
                    caller.reachable().await?;
                    Caller::Http(caller)
                }
                _ => Caller::Grpc(GrpcCaller::connect(reach, method).await?),
            };
            wire.claim(Owner::Transport(kind));
            callers.insert(kind, Arc::new(caller));
        }
        let cleaner = match &config.cleanup_call {
            Some(cleanup) => {
                let reach = crate::reach::Reach { conns: 1, ..reach.clone() };
                Some(GrpcCaller::connect(&reach, &cleanup.method).await?)
            }
            None => None,
        };
        wire.claim(Owner::Tool);
        let deadline = tokio::time::Instant::now() + config.schedule.timeout;
        Ok(ServiceRunner {
            config,
            run_id: engine::schedule::new_run_id(),
            callers,
            cleaner,
            wire,
            cancel,
            deadline,
            measuring_since: Instant::now(),
            rounds: Default::default(),
            notes: Vec::new(),
            check_failed: None,
            pairing: Default::default(),
            log: None,
            auth,
            outlet: Outlet::default(),
        })
    }

    pub fn run_id(&self) -> &str {
        &self.run_id
    }

    pub async fn run(mut self) -> GrpcReport {
        let started_at = units::rfc3339(std::time::SystemTime::now());
        self.log = CallLog::opened(&self.outlet).await;
        let (stop, because) = run_rounds(&mut self).await;
        if let Some(log) = self.log.take() {
            self.outlet.say(log.finish()).await;
        }
        let cleanup = self.clean_up().await;
        let check_failed = self.check_failed.take();
        let failures = self.rounds.rounds.iter().any(|r| !r.ok);
        let outcome = RunOutcome::ended(stop, failures, check_failed.is_some());
        let summaries = self
            .callers
            .iter()
            .map(|(kind, caller)| summarize(*kind, caller.protocol(), caller.connections(), &self.rounds.rounds))
            .collect();
        let run =
            crate::report::Ran { run_id: self.run_id, started_at, outcome, stopped_because: check_failed.or(because) };
        let mut settings = crate::report::GrpcSettings::of(&self.config);
        if let Some(auth) = &self.auth {
            settings.sign_in = format!("{}: {}", settings.sign_in, auth.describe());
        }
        GrpcReport::new(run, settings, summaries, self.rounds.rounds, cleanup).with_notes(self.notes)
    }

    /// The check (call 0 over each transport, answers compared), then the warmup.
    async fn before_rounds(&mut self) -> Option<Stop> {
        // With one transport there is nothing to compare call 0 with, and
        // an uncounted call would only add to what the run does.
        if self.config.check && self.callers.len() > 1 {
            // A server that never answers is held to the run's limits too.
            let (cancel, deadline) = (self.cancel.clone(), self.deadline);
            let checked = tokio::select! {
                checked = self.check() => checked,
                () = cancel.cancelled() => return Some(Stop::Cancelled),
                () = tokio::time::sleep_until(deadline) => return Some(Stop::TimedOut),
            };
            if let Err(error) = checked {
                // Said as why the run stopped before any round, with the report.
                let said = format!("the check before the rounds failed: {error}");
                self.outlet.say(said.clone()).await;
                self.check_failed = Some(said);
                return Some(Stop::FailFast);
            }
        }
        if self.config.warmup {
            self.outlet.emit(RunEvent::Phase(Phase::Warmup)).await;
            for kind in self.config.schedule.transports.clone() {
                if let Err(stop) = self.round(kind, None).await {
                    return Some(stop);
                }
            }
        }
        None
    }

    /// Call 0 over each transport: each must answer, and the same, but for
    /// `--ignore-field`.
    async fn check(&mut self) -> Result<()> {
        let mut answers = Vec::new();
        for (kind, caller) in &self.callers {
            let call = Call { seq: 0, client: 0, run: &self.run_id, transport: kind.name(), round: 0 };
            let messages = self.config.calling.request.messages(&self.config.calling.method, call)?;
            let headers =
                with_token(self.config.call_headers.of(call, messages.first())?, self.auth.as_deref()).await?;
            let answer = caller.call(&messages, &headers).await.map_err(|e| match e {
                ServiceError::Server { kind: code, message } => {
                    ServiceError::Server { kind: code, message: format!("{message} (over {})", kind.name()) }
                }
                other => other,
            })?;
            // The socket an HTTP client opened for the check is the
            // transport's (its rounds reuse it), not the tool's.
            self.wire.claim(Owner::Transport(*kind));
            answers.push((*kind, answer.messages));
        }
        let answer = |kind| answers.iter().find(|(k, _)| *k == kind).map(|(_, a)| a);
        let (Some(grpc), Some(http)) = (answer(TransportKind::Grpc), answer(TransportKind::Json)) else {
            return Ok(());
        };
        if grpc.len() != http.len() {
            let said = format!("grpc answered {} messages, http-json {}", grpc.len(), http.len());
            return Err(ServiceError::Own { kind: crate::error::MISMATCH, message: said });
        }
        for (over_grpc, over_http) in grpc.iter().zip(http) {
            // `difference` takes the gRPC answer first, and says so.
            if let Some(field) = crate::compare::difference(over_grpc, over_http, &self.config.ignore_fields) {
                return Err(ServiceError::Own {
                    kind: crate::error::MISMATCH,
                    message: format!("call 0 over grpc and http-json: {field}"),
                });
            }
        }
        Ok(())
    }

    /// The cleanup method, once, over gRPC: after a cancel or an error too.
    async fn clean_up(&mut self) -> CleanupCall {
        let Some(cleanup) = &self.config.cleanup_call else { return CleanupCall::none() };
        let method = format!("{}/{}", cleanup.method.parent_service().full_name(), cleanup.method.name());
        if !self.config.cleanup {
            return CleanupCall { method, called: false, error: None };
        }
        let Some(cleaner) = &self.cleaner else { return CleanupCall::none() };
        self.outlet.emit(RunEvent::Phase(Phase::CleaningUp)).await;
        let call = Call { seq: 0, client: 0, run: &self.run_id, transport: TransportKind::Grpc.name(), round: 0 };
        let calling = async {
            let messages = cleanup.request.messages(&cleanup.method, call)?;
            // The cleanup method's request is not the run's: no routing of the run's method.
            let headers = with_token(self.config.call_headers.of(call, None)?, self.auth.as_deref()).await?;
            cleaner.call(&messages, &headers).await
        };
        let error = match tokio::time::timeout(Duration::from_secs(60), calling).await {
            Ok(Ok(_)) => None,
            Ok(Err(error)) => Some(error.to_string()),
            Err(_) => Some("no answer within 60 s".into()),
        };
        let said = match &error {
            None => format!("cleanup: {method} answered"),
            Some(error) => format!("cleanup: {method} failed: {error}"),
        };
        self.outlet.say(said).await;
        CleanupCall { method, called: true, error }
    }
}

impl CallsRunner for ServiceRunner {
    engine::calls_runner_fields!();

    fn announced(&self) -> String {
        format!("{} at {}", self.config.method_name(), self.config.reach.grpc_endpoint)
    }

    fn schedule(&self) -> &Schedule {
        &self.config.schedule
    }

    async fn prepare(&mut self) -> Option<Stop> {
        self.before_rounds().await
    }
}

engine::rounds_of_calls!(ServiceRunner, CallRound);
