//! One round of one transport: its calls closed or open loop, with the
//! client's CPU and the bytes on the wire read around it; said as it
//! ends, and recorded.

use super::{CLIENT_THREAD_NAME, ServiceRunner};
use crate::call_headers::CallHeaders;
use crate::caller::Caller;
use crate::config::WARMUP_REQUESTS;
use crate::error::ServiceError;
use crate::sampler::Sampler;
use crate::sign_in::{refused, with_token};
use crate::template::Call;
use engine::Stop;
use engine::calls::batch::{Batch, Turns, run_closed, run_open};
use engine::calls::bounded::{Limits, Progress, bounded};
use engine::calls::rounds::CallRound;
use engine::events::{RoundDone, RunEvent};
use engine::open_loop::{PacedRound, latency_histogram, micros};
use engine::plan::TransportKind;
use hdrhistogram::Histogram;
use http::HeaderMap;
use prost_reflect::{DynamicMessage, MethodDescriptor};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What a round's calls send: one message for every call, or the
/// template's call `seq`; and each call's own headers.
#[derive(Clone)]
struct Requests {
    fixed: Option<Arc<Vec<DynamicMessage>>>,
    template: Arc<crate::template::Template>,
    headers: Arc<CallHeaders>,
    method: MethodDescriptor,
    run: Arc<str>,
    transport: &'static str,
    round: u32,
}

impl Requests {
    /// Call `seq`'s messages (one, or a stream's) and its own headers.
    fn message(&self, seq: u64, client: u32) -> Result<(Arc<Vec<DynamicMessage>>, HeaderMap), ServiceError> {
        let call = Call { seq, client, run: &self.run, transport: self.transport, round: self.round };
        let messages = match &self.fixed {
            Some(messages) => messages.clone(),
            None => Arc::new(self.template.messages(&self.method, call)?),
        };
        let headers = self.headers.of(call, messages.first())?;
        Ok((messages, headers))
    }
}

impl ServiceRunner {
    /// The requests of `kind`'s round (`None`: the warmup, round 0 to `{{round}}`).
    fn requests(&self, kind: TransportKind, round: Option<u32>) -> Requests {
        let (calling, run) = (&self.config.calling, &self.run_id);
        let (method, transport, round) = (calling.method.clone(), kind.name(), round.map_or(0, |r| r + 1));
        let call = Call { seq: 0, client: 0, run, transport, round };
        // Checked when the flags were: a fixed request builds.
        let fixed = calling.request.is_fixed().then(|| calling.request.messages(&method, call).ok()).flatten();
        Requests {
            fixed: fixed.map(Arc::new),
            template: Arc::new(calling.request.clone()),
            headers: Arc::new(self.config.call_headers.clone()),
            method,
            run: run.as_str().into(),
            transport,
            round,
        }
    }

    /// A timed round's sampler when two transports run: its answers are
    /// compared with the other's same round.
    fn sampler(&self, round: Option<u32>, turns: &Turns) -> Option<Sampler> {
        let calls = self.config.schedule.calls_per_round(turns.clients, turns.requests);
        (round.is_some() && self.callers.len() > 1).then(|| Sampler::new(calls))
    }

    /// One round of `kind` (`None`: the untimed warmup, not recorded).
    pub(super) async fn round(&mut self, kind: TransportKind, round: Option<u32>) -> Result<(), Stop> {
        let caller = self.callers[&kind].clone();
        let requests = match round {
            Some(_) => self.config.requests,
            None => WARMUP_REQUESTS.min(self.config.requests),
        };
        let log = round.zip(self.log.as_ref()).map(|(round, log)| log.round(kind, round, self.measuring_since));
        let turns = Turns { clients: self.config.clients, requests, log, ..Turns::default() };
        self.wire.claim(engine::calls::meter::Owner::Tool);
        self.wire.sample(kind);
        let cpu = engine::host_cpu::RoundCpu::start(CLIENT_THREAD_NAME);
        self.outlet.emit(RunEvent::RoundStarted { transport: kind, round, at_s: self.outlet.at_s() }).await;
        let sampler = self.sampler(round, &turns);
        let started = Instant::now();
        let (batch, paced, message_latency) = self.calls(caller, &turns, (kind, round), sampler.clone()).await?;
        // A paced round lasts at least its slice of the schedule.
        let floor = self.config.schedule.open_loop.map(|open| open.round_floor()).filter(|_| round.is_some());
        let elapsed = started.elapsed().max(floor.unwrap_or_default());
        let cpu = cpu.stop();
        let wire = self.wire.sample(kind);
        let sampled = match (round, &sampler) {
            (Some(round), Some(sampler)) => self.pairing.settle(kind, round, sampler, &self.config.ignore_fields),
            _ => None,
        };
        let name = match round {
            Some(round) => format!("{} round {}", kind.name(), round + 1),
            None => format!("{} warmup", kind.name()),
        };
        if let Some(error) = &batch.failures.first {
            let said = format!("{name}: {} failed, the first: {error}", batch.failures.count);
            self.outlet.say(said.clone()).await;
            self.notes.push(said);
        }
        let Some(round) = round else { return Ok(()) };
        let ok = batch.failures.count == 0 && batch.ops > 0;
        let elapsed_s = elapsed.as_secs_f64();
        self.outlet
            .emit(RunEvent::RoundDone(RoundDone { transport: kind, round, done: batch.ops, elapsed_s, ok }))
            .await;
        if ok {
            let histogram = Box::new(batch.latency.clone());
            self.outlet.emit(RunEvent::Latencies { transport: kind, histogram }).await;
        }
        let anchor = engine::timeline::Anchor::of(self.measuring_since);
        self.rounds.push(CallRound {
            transport: kind,
            round,
            elapsed_s,
            ops: batch.ops,
            errors: batch.failures.count,
            error_kinds: batch.failures.kinds,
            ok,
            cpu_s: cpu.client_s,
            host_cpu: Some(cpu.host),
            server_cpu_s: None,
            wire_sent_bytes: wire.sent,
            wire_received_bytes: wire.received,
            latency: batch.latency,
            message_latency,
            span: anchor.span(anchor.offset_s(started), anchor.offset_s(started + elapsed)),
            paced,
            sampled,
            rounds_held: 1,
        });
        Ok(())
    }

    /// The round's calls, closed or open loop, until done or stopped:
    /// client `c`'s `n`th call is call `n * clients + c` of the template.
    async fn calls(
        &self,
        caller: Arc<Caller>,
        turns: &Turns,
        (kind, round): (TransportKind, Option<u32>),
        sampler: Option<Sampler>,
    ) -> Result<(Batch<ServiceError>, Option<PacedRound>, Histogram<u64>), Stop> {
        let (requests, clients, auth) = (self.requests(kind, round), turns.clients, self.auth.clone());
        // A bidi stream's answers, each timed from its call's start.
        let method = &self.config.calling.method;
        let answers = Arc::new(Mutex::new(latency_histogram()));
        let timed = (method.is_client_streaming() && method.is_server_streaming()).then(|| answers.clone());
        let call = move |client: u32, n: u64| {
            let seq = n * clients as u64 + client as u64;
            let (caller, message) = (caller.clone(), requests.message(seq, client));
            // Most calls are not sampled: they clone nothing.
            let sampler = sampler.as_ref().filter(|s| s.wants(seq)).cloned();
            let (auth, timed) = (auth.clone(), timed.clone());
            async move {
                let (messages, headers) = message?;
                let headers = with_token(headers, auth.as_deref()).await?;
                let answer = caller.call(&messages, &headers).await.inspect_err(|e| refused(e, auth.as_deref()))?;
                if let Some(timed) = timed {
                    let mut timed = timed.lock().unwrap();
                    for arrival in &answer.arrivals {
                        let _ = timed.record(micros(*arrival));
                    }
                }
                if let Some(sampler) = sampler {
                    sampler.keep(seq, answer.messages);
                }
                Ok(())
            }
        };
        let limits = Limits { cancel: &self.cancel, deadline: self.deadline };
        let progress =
            self.outlet.events().map(|events| Progress { events, transport: kind, round, clock: self.outlet.clock() });
        let (batch, paced) = match &self.config.schedule.open_loop {
            Some(open) => {
                // Both transports' round N get the same arrival schedule.
                let seed = round.map_or(0, |r| r as u64 + 1);
                let running = run_open(turns, open, (seed, CLIENT_THREAD_NAME), call);
                let (batch, paced) = bounded(running, turns, limits, progress).await?;
                (batch, Some(paced))
            }
            None => (bounded(run_closed(turns, call), turns, limits, progress).await?, None),
        };
        let answers = std::mem::replace(&mut *answers.lock().unwrap(), latency_histogram());
        Ok((batch, paced, answers))
    }
}
