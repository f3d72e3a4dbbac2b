//! The schedule: warmup, rounds of `concurrency` uploads per transport (one
//! transport at a time), timeout, cancellation and cleanup. It emits
//! `RunEvent`s and returns the `RunReport`; it knows nothing of screens.

use crate::config::{BenchConfig, TransportKind, W1R3_READS, Workload};
use crate::payload::Payload;
use crate::report::RunReport;
use crate::stats::{ObjectSample, Operation, Recording, RoundSample};
use crate::target::Connected;
use crate::transport::download::ListedObject;
use crate::transport::{CreatedObject, Phases, Recovery, object_name};
use engine::events::{Phase, RunEvent};
use engine::outlet::{Outlet, Outlets};
use engine::timeline::Anchor;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

mod batch;
mod cleanup;
mod delivered;
mod failed;
mod kept;
mod meter;
mod paced;
mod reads;
mod record;
mod summaries;
mod warmup;

use engine::samples::SamplesFile;
use failed::Failed;
use kept::Kept;
use meter::{Meter, Metered};

pub use cleanup::{DELETE_AS_WE_GO, Ledger};
use engine::Stop;
pub use engine::schedule::{idempotency_token, new_run_id, pair_order, schedule};
use units::random_u64;

/// The client's threads (`GcsPlan::connect_on_client_threads`): their CPU,
/// less what measuring took on them, is the client CPU a round reports.
pub const CLIENT_THREAD_NAME: &str = "gcs-client";

/// How often progress is sampled and sent: coarse enough to cost nothing.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(50);

/// Why a run stopped before its schedule was done.
pub struct Runner {
    config: BenchConfig,
    connected: Connected,
    /// Where its events go, its clock and `--start-at`: as every runner's.
    outlet: Outlet,
    cancel: CancellationToken,
    run_id: String,
    /// The outlet's clock on the wall clock too: rounds say when they ran, for fleets.
    anchor: Anchor,
    deadline: Instant,
    created: Vec<(TransportKind, CreatedObject)>,
    /// Objects deleted between rounds (a long run's), and those that would not go.
    deleted_as_we_went: usize,
    left_as_we_went: Vec<String>,
    ledger: Arc<Ledger>,
    /// The rounds, folded in twos past `MOST_ROUNDS` a lane (a long run keeps a bounded list).
    rounds: engine::folded::Folded<RoundSample>,
    /// Rounds cut off before any object finished (their items still count).
    cut_off_rounds: Vec<RoundSample>,
    /// Each lane's round in progress: its items added up as they finish.
    recordings: BTreeMap<(TransportKind, Operation), Recording>,
    /// The objects the report keeps, and the stream of every one (`--samples`).
    kept: Kept,
    samples_file: Option<SamplesFile>,
    /// An item failed (for `--fail-fast`).
    any_failed: bool,
    /// By transport and what its rounds did (w1r3 meters both).
    meters: BTreeMap<(TransportKind, Operation), Meter>,
    /// Uploads cut off by a cancel or the timeout: name and open session.
    cut_off: Vec<(TransportKind, String, Option<String>)>,
    /// Why the timed rounds ended where they did (`--until-stable`, `--duration`).
    stopped_because: Option<String>,
    /// The download workload's objects, by reader.
    read_set: Vec<ListedObject>,
    /// The objects to read could not be had: the rounds never ran.
    setup_failed: bool,
    /// Seeds the ranges of ranged reads (reported with the run).
    read_seed: u64,
}

/// One finished upload: worker, start and duration in run seconds, what came
/// of it, and what it took beyond one clean attempt.
type Finished = (u32, f64, f64, Result<Stored, Failed>, Recovery);

/// An upload the server took: the object, its phases, and whether the
/// server's answer said a size to check it by.
struct Stored {
    object: CreatedObject,
    phases: Phases,
    unchecked: bool,
    /// Append runs: each chunk's time from its first byte to the answer
    /// that it was persisted.
    flushes: Option<Vec<f64>>,
    /// Append runs with `--read-back on`, over gRPC: each flush's time from
    /// its first byte until it was read back.
    read_back: Option<Vec<f64>>,
}

impl Outlets for Runner {
    fn outlet(&mut self) -> &mut Outlet {
        &mut self.outlet
    }
}

impl Runner {
    pub fn new(config: BenchConfig, connected: Connected, cancel: CancellationToken) -> Self {
        let outlet = Outlet::default();
        Self {
            deadline: Instant::from_std(outlet.clock()) + config.timeout,
            anchor: Anchor::of(outlet.clock()),
            outlet,
            config,
            connected,
            cancel,
            run_id: new_run_id(),
            created: Vec::new(),
            deleted_as_we_went: 0,
            left_as_we_went: Vec::new(),
            ledger: Arc::default(),
            rounds: Default::default(),
            cut_off_rounds: Vec::new(),
            recordings: BTreeMap::new(),
            kept: Kept::default(),
            samples_file: None,
            any_failed: false,
            meters: BTreeMap::new(),
            cut_off: Vec::new(),
            stopped_because: None,
            read_set: Vec::new(),
            setup_failed: false,
            read_seed: random_u64(),
        }
    }

    /// What may exist at any moment of the run, for an emergency exit.
    pub fn ledger(&self) -> Arc<Ledger> {
        self.ledger.clone()
    }

    async fn emit(&self, event: RunEvent) {
        self.outlet.emit(event).await;
    }

    fn at_s(&self) -> f64 {
        self.outlet.at_s()
    }

    /// When the run's clock started (the timed rounds', once they begin).
    fn clock(&self) -> Instant {
        Instant::from_std(self.outlet.clock())
    }

    /// Progress, which may be dropped when a front end lags (results never are).
    fn progress(&self, event: RunEvent) {
        if let Some(events) = self.outlet.events() {
            let _ = events.try_send(event);
        }
    }

    pub async fn run(mut self) -> RunReport {
        let started_at = units::rfc3339(std::time::SystemTime::now());
        self.announce().await;
        if let Some(path) = &self.outlet.samples {
            match SamplesFile::create::<crate::stats::ObjectSample>(path) {
                Ok(file) => self.samples_file = Some(file),
                Err(why) => self.emit(RunEvent::Note(why)).await,
            }
        }
        let seed = random_u64();
        // Generated before any clock starts.
        let payload = Payload::new(self.config.object_size, seed);
        let mut stop = self.prepare(&payload, seed).await;
        if stop.is_none() {
            self.emit(RunEvent::Phase(Phase::Measuring)).await;
            self.outlet.restart();
            self.anchor = Anchor::of(self.outlet.clock());
            let plan = self.config.schedule();
            (stop, self.stopped_because) =
                engine::measure(&mut Timed { runner: &mut self, payload: &payload }, &plan).await;
        }
        if let Some(why) = &self.stopped_because {
            self.emit(RunEvent::Note(why.clone())).await;
        }
        self.note_connections();
        let cleanup = self.clean_up().await;
        let outcome = self.outcome(stop);
        let summaries = self.summaries();
        if let Some(mut file) = self.samples_file.take() {
            self.emit(RunEvent::Note(file.finish())).await;
        }
        RunReport::new(
            self.run_id.clone(),
            started_at,
            self.connected.info.clone(),
            self.config.clone(),
            summaries,
            self.kept.take(),
            std::mem::take(&mut self.rounds.rounds),
            outcome,
            cleanup,
        )
        .with_cut_off(std::mem::take(&mut self.cut_off_rounds), self.kept.said())
        .stopped_because(self.stopped_because.take())
        .read_seed((self.config.range_size > 0).then_some(self.read_seed))
        .auth_refreshes(self.connected.auth.refreshes())
    }

    /// Says the run began, and where it goes.
    async fn announce(&self) {
        let target = match &self.config.read_prefix {
            Some(prefix) => format!(
                "{}; reading the objects under {prefix} (read only, never deleted)",
                self.connected.info.describe()
            ),
            None => self.connected.info.describe(),
        };
        let rounds_per_transport = self.config.duration.is_none().then_some(self.config.iterations);
        self.emit(RunEvent::Started { run_id: self.run_id.clone(), target, rounds_per_transport }).await;
    }

    /// What comes before the timed rounds: the objects to read, the warmup
    /// and a synchronized start's wait; why the run stops there, if it does.
    async fn prepare(&mut self, payload: &Payload, seed: u64) -> Option<Stop> {
        // What to read comes first: a prefix with nothing under it fails
        // before anything is written.
        if self.config.workload.reads_prepared_objects()
            && let Some(stop) = self.prepare_reads(payload).await
        {
            return Some(stop);
        }
        // The warmup uploads: a run that only reads existing objects
        // (--read-prefix) writes nothing, so it has none.
        if self.config.warmup {
            self.emit(RunEvent::Phase(Phase::Warmup)).await;
            if self.config.read_prefix.is_none() {
                // No larger than an object: a worker each, so small objects warm small.
                let warmup = Payload::new(self.config.warmup_size.min(self.config.object_size), seed ^ 1);
                if let Some(stop) = self.warm_up(&warmup).await {
                    return Some(stop);
                }
            }
            if self.config.workload.reads_prepared_objects()
                && let Some(stop) = self.warm_up_reads().await
            {
                return Some(stop);
            }
        }
        let at = self.outlet.start_at?;
        match engine::start::begin_at(at, &self.cancel, &mut self.deadline).await {
            Ok(Some(late)) => self.emit(RunEvent::Note(late)).await,
            Ok(None) => {}
            Err(why) => return Some(why),
        }
        None
    }

    /// Uploads a round's objects; returns why the run stops, if it does,
    /// and (by worker) the objects it wrote.
    async fn measure_round(
        &mut self,
        kind: TransportKind,
        round: u32,
        payload: &Payload,
    ) -> (Option<Stop>, Vec<ListedObject>) {
        let Some(uploader) = self.connected.uploader(kind).cloned() else {
            return (None, Vec::new());
        };
        let names: Vec<String> = (0..self.config.concurrency)
            .map(|worker| object_name(&self.config.prefix, &self.run_id, kind, &format!("{:04}", round + 1), worker))
            .collect();
        let meter = self.start_meter((kind, Operation::Upload), uploader.peer_port());
        let delivered = meter.delivered();
        let (results, stop, paced) = self.upload_batch(&uploader, Some(round), names.clone(), payload, delivered).await;
        let settled = paced::settle(paced, results, names.len());
        let (mut results, intended, paced) = (settled.results, settled.intended_s, settled.paced);
        results.sort_by_key(|(worker, ..)| *worker);
        let mut written = Vec::new();
        let mut metered = self.stop_meter(meter);
        metered.paced = paced;
        let round_end = results.iter().map(|(_, start, elapsed, _, _)| start + elapsed).fold(metered.start_s, f64::max);
        let mut bytes = 0;
        let mut all_ok = results.len() == settled.expected;
        for (worker, start, elapsed, result, recovery) in results {
            let (ok, error, phases, unchecked, (flushes, read_back)) = match result {
                Ok(Stored { object, phases, unchecked, flushes, read_back }) => {
                    self.ledger.add(&object.name);
                    written.push(ListedObject { object: object.clone(), size: payload.size() });
                    self.created.push((kind, object));
                    bytes += payload.size();
                    (true, None, phases, unchecked, (flushes, read_back))
                }
                Err(error) => {
                    all_ok = false;
                    // Counted from 1, as rounds are (the CSV's worker column is the 0-based index).
                    self.emit(RunEvent::Note(format!(
                        "{} round {} upload {} of {} failed: {error}",
                        kind.name(),
                        round + 1,
                        worker + 1,
                        self.config.concurrency
                    )))
                    .await;
                    (false, Some(error), Phases::default(), false, (None, None))
                }
            };
            let error_kind = error.as_ref().map(|e| e.kind.clone());
            let sample = ObjectSample {
                host: engine::timeline::this_host().to_string(),
                transport: kind,
                operation: Operation::Upload,
                round,
                worker,
                object: names[worker as usize].clone(),
                bytes: payload.size(),
                start_s: start,
                elapsed_s: elapsed,
                ok,
                error: error.map(|e| e.said),
                error_kind,
                phases,
                retries: recovery.retries,
                resumes: recovery.resumes,
                resent_bytes: recovery.resent_bytes,
                retried_after: recovery.retried_after,
                first_byte_s: None,
                unchecked,
                intended_s: intended[worker as usize],
                ranges: None,
                flushes,
                read_back,
            };
            self.record_item(sample).await;
        }
        let stop = self.record_round((kind, Operation::Upload), round, metered, round_end, bytes, all_ok, stop).await;
        (stop, written)
    }
}

/// The GCS runner's rounds, as the engine's schedule measures them.
struct Timed<'r> {
    runner: &'r mut Runner,
    payload: &'r Payload,
}

impl engine::Rounds for Timed<'_> {
    type Round = RoundSample;

    async fn measure_round(&mut self, kind: TransportKind, round: u32) -> Option<Stop> {
        let seed = self.runner.read_seed;
        let stop = match self.runner.config.workload {
            Workload::Upload | Workload::Append => self.runner.measure_round(kind, round, self.payload).await.0,
            Workload::Download | Workload::Ranges => self.runner.measure_read_round(kind, round, seed, 1).await,
            Workload::W1r3 => {
                let (stop, written) = self.runner.measure_round(kind, round, self.payload).await;
                if stop.is_some() || written.len() < self.runner.config.concurrency as usize {
                    // A round whose uploads did not all finish has nothing whole to read.
                    return stop;
                }
                self.runner.read_set = written;
                self.runner.measure_read_round(kind, round, seed, W1R3_READS).await
            }
        };
        if stop.is_none() {
            self.runner.delete_as_we_go().await;
        }
        stop
    }

    fn rounds(&self) -> &[RoundSample] {
        &self.runner.rounds.rounds
    }

    fn measuring_for(&self) -> std::time::Duration {
        self.runner.clock().elapsed()
    }
}
