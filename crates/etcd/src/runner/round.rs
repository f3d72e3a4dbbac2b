//! One round of one transport: its work, with the client's CPU, the bytes
//! on the wire and etcd's CPU read around it; said as it ends, and recorded.

use super::EtcdRunner;
use crate::client::Kv;
use crate::meter::{Owner, Wire};
use crate::open_batch::run_open;
use crate::options::{Mode, WARMUP_REQUESTS};
use crate::rounds::EtcdRound;
use crate::watch::{OpenWatch, PacedPuts, run_watch_round};
use crate::workload::{Failures, Work, latency_histogram, run_batch};
use engine::Stop;
use engine::events::{RoundDone, RunEvent};
use engine::host_cpu::{RoundCpu, RoundCpuTaken};
use engine::open_loop::PacedRound;
use engine::plan::TransportKind;
use hdrhistogram::Histogram;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a round's work did, whatever the mode.
struct Measured {
    /// Requests answered (watch: events delivered).
    ops: u64,
    failures: Failures,
    latency: Histogram<u64>,
    elapsed: Duration,
    /// Lost, duplicated or reordered watch events, as one sentence.
    broken: Option<String>,
    /// Open loop: how the arrivals were paced.
    paced: Option<PacedRound>,
}

/// What the round cost beside its requests.
struct Costs {
    cpu: RoundCpuTaken,
    server_cpu_s: Option<f64>,
    wire: Wire,
}

impl EtcdRunner {
    /// One round of `kind` (`None`: the untimed warmup, not recorded).
    pub(super) async fn round(&mut self, kind: TransportKind, round: Option<u32>) -> Result<(), Stop> {
        let kv = self.kvs[&kind].clone();
        let requests = if round.is_some() { self.config.requests } else { WARMUP_REQUESTS.min(self.config.requests) };
        let below = match round {
            Some(round) => format!("{}/{:04}/", kind.name(), round + 1),
            None => format!("{}/warmup/", kind.name()),
        };
        let keys = match self.config.mode {
            Mode::Watch => self.keys(&below),
            _ => self.keys(""),
        };
        let mut work = self.work(keys, self.config.clients, requests);
        work.log = round.zip(self.log.as_ref()).map(|(round, log)| log.round(kind, round, self.measuring_since));
        let server_before = self.server_cpu.seconds().await.ok().flatten();
        self.wire.claim(Owner::Tool);
        self.wire.sample(kind);
        let cpu = RoundCpu::start(super::CLIENT_THREAD_NAME);
        self.outlet.emit(RunEvent::RoundStarted { transport: kind, round, at_s: self.outlet.at_s() }).await;
        let started = Instant::now();
        let (mut measured, open_watch) = self.work_of(kv, &work, (kind, round), started).await?;
        let cpu = cpu.stop();
        // Before the watch closes: an HTTP watch's socket goes with it.
        let wire = self.wire.sample(kind);
        if let Some(open) = open_watch
            && let Some(error) = open.close().await
        {
            measured.failures.add(error);
        }
        let server_after = self.server_cpu.seconds().await.ok().flatten();
        // The counter has 10 ms steps: microseconds are more than enough.
        let server_cpu_s =
            server_before.zip(server_after).map(|(before, after)| ((after - before) * 1e6).round() / 1e6);
        self.record(kind, round, measured, Costs { cpu, server_cpu_s, wire }, started).await;
        Ok(())
    }

    /// The round's requests (or watched events), until done or stopped.
    async fn work_of(
        &self,
        kv: Arc<dyn Kv>,
        work: &Work,
        (kind, round): (TransportKind, Option<u32>),
        started: Instant,
    ) -> Result<(Measured, Option<OpenWatch>), Stop> {
        if self.config.mode != Mode::Watch {
            // Both transports' round N get the same arrival schedule.
            let seed = round.map_or(0, |r| r as u64 + 1);
            let (batch, paced) = match &self.config.schedule.open_loop {
                Some(open) => {
                    let running = run_open(kv, self.config.mode, work, open, (seed, super::CLIENT_THREAD_NAME));
                    let (batch, paced) = self.bounded(running, work, Some((kind, round))).await?;
                    (batch, Some(paced))
                }
                None => (self.bounded(run_batch(kv, self.config.mode, work), work, Some((kind, round))).await?, None),
            };
            let (ops, failures, latency) = (batch.ops, batch.failures, batch.latency);
            let elapsed = started.elapsed().max(self.paced_floor(round));
            return Ok((Measured { ops, failures, latency, elapsed, broken: None, paced }, None));
        }
        let tally = Arc::default();
        let paced = self.config.schedule.open_loop.as_ref().map(|open| PacedPuts {
            open,
            seed: round.map_or(0, |r| r as u64 + 1),
            thread: super::CLIENT_THREAD_NAME,
            tally: Arc::clone(&tally),
        });
        let watching = run_watch_round(&*kv, self.tool.clone(), work, paced);
        Ok(match self.bounded(watching, work, Some((kind, round))).await? {
            Ok((w, open)) => {
                let (ops, failures, latency, broken) = (w.events, w.failures, w.delay, w.broken);
                let elapsed = w.elapsed.max(self.paced_floor(round));
                let paced = tally.lock().unwrap().take();
                (Measured { ops, failures, latency, elapsed, broken, paced }, Some(open))
            }
            Err(error) => {
                let mut failures = Failures::default();
                failures.add(error);
                let latency = latency_histogram();
                (Measured { ops: 0, failures, latency, elapsed: started.elapsed(), broken: None, paced: None }, None)
            }
        })
    }

    /// A paced round lasts at least its slice of the schedule (a warmup,
    /// or a closed-loop round, has no floor).
    fn paced_floor(&self, round: Option<u32>) -> Duration {
        let open = self.config.schedule.open_loop.filter(|_| round.is_some());
        open.map(|open| open.round_floor()).unwrap_or_default()
    }

    /// Says how the round went, sends it to the live view, and keeps it
    /// (a timed round only).
    async fn record(&mut self, kind: TransportKind, round: Option<u32>, m: Measured, costs: Costs, started: Instant) {
        let name = match round {
            Some(round) => format!("{} round {}", kind.name(), round + 1),
            None => format!("{} warmup", kind.name()),
        };
        if let Some(error) = &m.failures.first {
            let said = format!("{name}: {} failed, the first: {error}", m.failures.count);
            self.outlet.say(said.clone()).await;
            self.notes.push(said);
        }
        if let Some(broken) = &m.broken {
            let said = format!("{name}: {broken}");
            self.outlet.say(said.clone()).await;
            self.broken.get_or_insert(said);
        }
        let Some(round) = round else { return };
        let ok = m.failures.count == 0 && m.broken.is_none() && m.ops > 0;
        let elapsed_s = m.elapsed.as_secs_f64();
        let done = RoundDone { transport: kind, round, done: m.ops, elapsed_s, ok };
        self.outlet.emit(RunEvent::RoundDone(done)).await;
        if ok {
            // The complete rounds' latencies, as the report merges them.
            self.outlet.emit(RunEvent::Latencies { transport: kind, histogram: Box::new(m.latency.clone()) }).await;
        }
        let anchor = engine::timeline::Anchor::of(self.measuring_since);
        self.rounds.push(EtcdRound {
            transport: kind,
            round,
            elapsed_s,
            ops: m.ops,
            errors: m.failures.count,
            error_kinds: m.failures.kinds,
            ok,
            cpu_s: costs.cpu.client_s,
            host_cpu: Some(costs.cpu.host),
            server_cpu_s: costs.server_cpu_s,
            wire_sent_bytes: costs.wire.sent,
            wire_received_bytes: costs.wire.received,
            latency: m.latency,
            message_latency: latency_histogram(),
            span: anchor.span(anchor.offset_s(started), anchor.offset_s(started + m.elapsed)),
            paced: m.paced,
            sampled: None,
            rounds_held: 1,
        });
    }
}
