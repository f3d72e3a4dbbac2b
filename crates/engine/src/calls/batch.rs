//! A round's calls, closed loop or open: `clients` tasks each sending its
//! `requests` one after another (as the study's clients did), or every
//! arrival sent at its intended instant by the pacer; each call's latency
//! into a histogram, each failure counted by kind. The call itself is the
//! target's (an etcd put, any service's method).

use crate::calls::logged::{RoundLog, Timed};
use crate::error_kinds::ErrorKinds;
use crate::open_loop::{OpenLoop, PacedRound, latency_histogram, micros, run_paced};
use hdrhistogram::Histogram;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;
use tokio::task::JoinSet;

/// A failed call, as a report counts and says it.
pub trait CallError: std::fmt::Display + Send + 'static {
    /// The kind it is counted under (`HTTP 400`, `UNAVAILABLE`).
    fn kind(&self) -> String;
    /// A server that refused this refuses the rest too: the client stops
    /// (a key that was not found is that key's alone).
    fn ends_client(&self) -> bool {
        true
    }
}

/// The calls that failed: how many, by kind, and the first (said in the notes).
#[derive(Clone, Debug)]
pub struct Failures<E> {
    pub count: u64,
    pub kinds: ErrorKinds,
    pub first: Option<E>,
}

impl<E> Default for Failures<E> {
    fn default() -> Self {
        Failures { count: 0, kinds: ErrorKinds::new(), first: None }
    }
}

impl<E: CallError> Failures<E> {
    pub fn add(&mut self, error: E) {
        self.count += 1;
        *self.kinds.entry(error.kind()).or_default() += 1;
        self.first.get_or_insert(error);
    }

    /// Another client's failures into these (the first seen stays first).
    pub fn absorb(&mut self, other: Failures<E>) {
        self.count += other.count;
        for (kind, count) in other.kinds {
            *self.kinds.entry(kind).or_default() += count;
        }
        self.first = self.first.take().or(other.first);
    }
}

/// What one batch of calls did.
pub struct Batch<E> {
    pub ops: u64,
    pub failures: Failures<E>,
    pub latency: Histogram<u64>,
}

impl<E> Batch<E> {
    pub fn new() -> Self {
        Batch { ops: 0, failures: Failures::default(), latency: latency_histogram() }
    }
}

impl<E> Default for Batch<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// A round's shape: `clients` x `requests`; `done` counts what has been
/// answered, for the live view; `stop` ends it between calls (a call
/// dropped in flight could still reach the server after the cleanup);
/// `log` takes every call's record (`--samples`).
#[derive(Clone, Debug, Default)]
pub struct Turns {
    pub clients: u32,
    pub requests: u32,
    pub done: Arc<AtomicU64>,
    pub stop: Arc<AtomicBool>,
    pub log: Option<RoundLog>,
}

impl Turns {
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Closed loop: each client's calls one after another, `call(client, n)`.
pub async fn run_closed<E, F, Fut>(turns: &Turns, call: F) -> Batch<E>
where
    E: CallError,
    F: Fn(u32, u64) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = Result<(), E>> + Send,
{
    let mut tasks = JoinSet::new();
    for client in 0..turns.clients {
        let (turns, call) = (turns.clone(), call.clone());
        tasks.spawn(async move {
            let mut batch = Batch::new();
            let mut gathered = turns.log.as_ref().map(RoundLog::gatherer);
            for n in 0..turns.requests as u64 {
                if turns.stopped() {
                    break;
                }
                let started = Instant::now();
                let result = call(client, n).await;
                let latency = started.elapsed();
                if let Some(gathered) = &mut gathered {
                    let error = result.as_ref().err().map(ToString::to_string);
                    gathered.add((client, n), Timed { started, latency, service: None }, error);
                }
                match result {
                    Ok(()) => {
                        batch.ops += 1;
                        turns.done.fetch_add(1, Ordering::Relaxed);
                        let _ = batch.latency.record(micros(latency));
                    }
                    Err(error) => {
                        let ends = error.ends_client();
                        batch.failures.add(error);
                        if ends {
                            break;
                        }
                    }
                }
            }
            batch
        });
    }
    let mut total = Batch::new();
    while let Some(done) = tasks.join_next().await {
        let Ok(batch) = done else { continue };
        total.ops += batch.ops;
        total.failures.absorb(batch.failures);
        total.latency.add(&batch.latency).expect("same histogram bounds");
    }
    total
}

/// Open loop: the round's arrivals (`--rate` x `--round-time`) at `open`'s
/// rate, arrival `i` being the call client `i % clients` sends as its
/// `i / clients`th in a closed round. Latency counts from the intended
/// start; service time from the actual one.
pub async fn run_open<E, F, Fut>(
    turns: &Turns,
    open: &OpenLoop,
    (seed, pacer_thread): (u64, &str),
    call: F,
) -> (Batch<E>, PacedRound)
where
    E: CallError,
    F: Fn(u32, u64) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<(), E>> + Send,
{
    let clients = turns.clients as u64;
    let count = open.per_round() as usize;
    let done = turns.done.clone();
    let arrival = move |ticket: crate::open_loop::Ticket| {
        let (call, done) = (call.clone(), done.clone());
        async move {
            let turn = ticket.start().await;
            let n = turn.index as u64;
            let result = call((n % clients) as u32, n / clients).await;
            let (latency, service) = turn.finished();
            if result.is_ok() {
                done.fetch_add(1, Ordering::Relaxed);
            }
            (result, Timed { started: turn.intended, latency, service: Some(service) }, n)
        }
    };
    let offsets = open.offsets(count, seed);
    let (answers, tally) = run_paced(open, offsets, turns.stop.clone(), pacer_thread, arrival).await;
    let mut batch = Batch::new();
    let mut service_times = latency_histogram();
    let mut gathered = turns.log.as_ref().map(RoundLog::gatherer);
    for (result, timed, n) in answers {
        let (latency, service) = (timed.latency, timed.service.unwrap_or_default());
        if let Some(gathered) = &mut gathered {
            let error = result.as_ref().err().map(ToString::to_string);
            gathered.add(((n % clients) as u32, n / clients), timed, error);
        }
        match result {
            Ok(()) => {
                batch.ops += 1;
                let _ = batch.latency.record(micros(latency));
                let _ = service_times.record(micros(service));
            }
            Err(error) => batch.failures.add(error),
        }
    }
    (batch, PacedRound::of(tally, service_times))
}
