//! One round of calls as measured (etcd's puts, any service's calls), and a
//! transport's figures over its complete rounds: every ratio divides figures of the same rounds, and what was not
//! measured is `None` (shown "-", JSON null).

use crate::compare::PairedRound;
use crate::error_kinds::{ErrorKinds, count_kinds};
use crate::plan::TransportKind;
use hdrhistogram::Histogram;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct CallRound {
    pub transport: TransportKind,
    #[serde(serialize_with = "crate::report::one_based", deserialize_with = "crate::report::from_one_based")]
    pub round: u32,
    pub elapsed_s: f64,
    /// Requests answered (watch: events delivered).
    pub ops: u64,
    pub errors: u64,
    /// The failed requests by kind (`{"HTTP 400": 4}`); they sum to `errors`.
    #[serde(default)]
    pub error_kinds: ErrorKinds,
    /// Every request answered (watch: every event delivered, once, in order).
    pub ok: bool,
    /// Client CPU (user + system) during the round.
    pub cpu_s: f64,
    /// The server's own CPU during the round (etcd: all members, from /metrics).
    pub server_cpu_s: Option<f64>,
    /// The host's CPU and the tool's process's over the round (`None` in
    /// reports written before rounds kept it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_cpu: Option<crate::host_cpu::HostCpu>,
    pub wire_sent_bytes: u64,
    pub wire_received_bytes: u64,
    /// Request latency (watch: put acknowledged -> event received), µs:
    /// HdrHistogram V2 compressed, base64, in the JSON.
    #[serde(
        rename = "latency_histogram",
        default = "crate::open_loop::latency_histogram",
        with = "crate::histogram::as_text"
    )]
    #[schemars(with = "String")]
    pub latency: Histogram<u64>,
    /// A bidi stream's answers, each from the call's start (when its whole
    /// stream is sent) to its arrival, µs; empty for other calls.
    #[serde(
        rename = "message_latency_histogram",
        default = "crate::open_loop::latency_histogram",
        with = "crate::histogram::as_text",
        skip_serializing_if = "Histogram::is_empty"
    )]
    #[schemars(with = "String")]
    pub message_latency: Histogram<u64>,
    /// When the round ran (both clocks) and on which host.
    #[serde(flatten)]
    pub span: crate::timeline::Span,
    /// Open loop: how the round's arrivals were paced (its latency above
    /// counts from each one's intended start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paced: Option<crate::open_loop::PacedRound>,
    /// Sampled calls compared with the other transport's same round, on
    /// the round that completed the pair.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<super::sampled::SampledAnswers>,
    /// Consecutive rounds this record holds: 1, or more once a long run's
    /// rounds were folded in twos (`crate::folded`).
    #[serde(default = "crate::folded::one", skip_serializing_if = "crate::folded::is_one")]
    pub rounds_held: u32,
}

impl crate::folded::Folds for CallRound {
    fn absorb(&mut self, later: Self) {
        self.elapsed_s += later.elapsed_s;
        self.ops += later.ops;
        self.errors += later.errors;
        for (kind, count) in later.error_kinds {
            *self.error_kinds.entry(kind).or_default() += count;
        }
        self.ok &= later.ok;
        self.cpu_s += later.cpu_s;
        self.server_cpu_s = self.server_cpu_s.zip(later.server_cpu_s).map(|(a, b)| a + b);
        // Both or neither: a share never covers part of the rounds it is said of.
        self.host_cpu = self.host_cpu.zip(later.host_cpu).map(|(a, b)| a.plus(b));
        self.wire_sent_bytes += later.wire_sent_bytes;
        self.wire_received_bytes += later.wire_received_bytes;
        let _ = self.latency.add(&later.latency);
        let _ = self.message_latency.add(&later.message_latency);
        (self.span.ended_at, self.span.end_s) = (later.span.ended_at, later.span.end_s);
        self.paced = crate::folded::joined(self.paced.take(), later.paced, |a, b| a.absorb(b));
        self.sampled = crate::folded::joined(self.sampled.take(), later.sampled, |a, b| a.absorb(&b));
        self.rounds_held += later.rounds_held;
    }

    fn set_index(&mut self, index: u32) {
        self.round = index;
    }

    fn rounds_held(&self) -> u32 {
        self.rounds_held
    }
}

impl crate::fleet::FleetRound for CallRound {
    fn span(&self) -> &crate::timeline::Span {
        &self.span
    }

    fn amount(&self) -> f64 {
        self.ops as f64
    }
}

impl PairedRound for CallRound {
    fn transport(&self) -> TransportKind {
        self.transport
    }

    fn index(&self) -> u32 {
        self.round
    }

    fn rate(&self) -> Option<f64> {
        (self.ok && self.elapsed_s > 0.0 && self.ops > 0).then(|| self.ops as f64 / self.elapsed_s)
    }
}

/// Latency quantiles in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Latency {
    pub p50_ms: Option<f64>,
    pub p90_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub p999_ms: Option<f64>,
    /// `[upper bound ms, count]`, doubling from 0.1 ms.
    pub histogram: Vec<(f64, u64)>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct CallSummary {
    pub transport: TransportKind,
    pub protocol: String,
    /// Complete rounds, and requests (events) in them.
    pub runs: usize,
    pub ops: u64,
    /// Failed requests in any round.
    pub errors: u64,
    /// Those by kind (`{"UNAVAILABLE": 3}`); they sum to `errors`.
    #[serde(default)]
    pub error_kinds: ErrorKinds,
    /// ops / time over the complete rounds.
    pub ops_per_s: Option<f64>,
    pub latency: Latency,
    pub connections: u64,
    pub wire_sent_per_op: Option<f64>,
    pub wire_received_per_op: Option<f64>,
    pub client_cpu_us_per_op: Option<f64>,
    /// None when a round's server CPU could not be read.
    pub server_cpu_us_per_op: Option<f64>,
    /// The share busy, 0 to 1, of the CPU available to the tool during the
    /// complete rounds (`crate::host_cpu::HostCpu::busy_share`); pooled
    /// over a fleet's hosts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_cpu_busy: Option<f64>,
    /// The complete rounds' latencies in microseconds: HdrHistogram's V2
    /// compressed encoding in base64, so that reports merge.
    #[serde(default)]
    pub latency_histogram: Option<String>,
    /// A bidi stream's answers over the complete rounds, each from the
    /// call's start to its arrival (`CallRound::message_latency`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_latency: Option<Latency>,
    /// Answers those latencies count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<u64>,
}

pub fn summarize(kind: TransportKind, protocol: String, connections: u64, rounds: &[CallRound]) -> CallSummary {
    let mine = || rounds.iter().filter(move |r| r.transport == kind);
    let complete: Vec<&CallRound> = mine().filter(|r| r.ok).collect();
    let ops: u64 = complete.iter().map(|r| r.ops).sum();
    let time: f64 = complete.iter().map(|r| r.elapsed_s).sum();
    let per_op = |total: f64| (ops > 0).then(|| total / ops as f64);
    let server: Option<f64> = complete.iter().map(|r| r.server_cpu_s).sum();
    let (mut latency, mut messages) = (crate::open_loop::latency_histogram(), crate::open_loop::latency_histogram());
    for round in &complete {
        latency.add(&round.latency).expect("same histogram bounds");
        messages.add(&round.message_latency).expect("same histogram bounds");
    }
    CallSummary {
        transport: kind,
        protocol,
        runs: complete.len(),
        ops,
        errors: mine().map(|r| r.errors).sum(),
        error_kinds: count_kinds(mine().flat_map(|r| r.error_kinds.iter().map(|(k, n)| (k.as_str(), *n)))),
        ops_per_s: (ops > 0 && time > 0.0).then(|| ops as f64 / time),
        latency: quantiles(&latency),
        connections,
        wire_sent_per_op: per_op(complete.iter().map(|r| r.wire_sent_bytes as f64).sum()),
        wire_received_per_op: per_op(complete.iter().map(|r| r.wire_received_bytes as f64).sum()),
        client_cpu_us_per_op: per_op(complete.iter().map(|r| r.cpu_s * 1e6).sum()),
        server_cpu_us_per_op: server.and_then(|s| per_op(s * 1e6)),
        host_cpu_busy: crate::host_cpu::HostCpu::total(complete.iter().map(|r| r.host_cpu.as_ref()))
            .and_then(|cpu| cpu.busy_share()),
        latency_histogram: (!latency.is_empty()).then(|| crate::histogram::encode(&latency)),
        message_latency: (!messages.is_empty()).then(|| quantiles(&messages)),
        messages: (!messages.is_empty()).then(|| messages.len()),
    }
}

pub fn quantiles(histogram: &Histogram<u64>) -> Latency {
    if histogram.is_empty() {
        return Latency::default();
    }
    let at = |q: f64| Some(histogram.value_at_quantile(q) as f64 / 1000.0);
    let histogram = histogram
        .iter_log(100, 2.0)
        .filter(|step| step.count_since_last_iteration() > 0)
        .map(|step| (step.value_iterated_to() as f64 / 1000.0, step.count_since_last_iteration()))
        .collect();
    Latency { p50_ms: at(0.50), p90_ms: at(0.90), p99_ms: at(0.99), p999_ms: at(0.999), histogram }
}

#[cfg(test)]
mod tests {
    use super::*;
    use TransportKind::Json;

    #[test]
    fn an_event_that_came_before_its_answer_is_a_delay_of_0_as_the_note_says() {
        let mut delays = crate::open_loop::latency_histogram();
        for micros in [0, 0, 0, 250] {
            delays.record(micros).unwrap();
        }
        let latency = quantiles(&delays);
        assert_eq!((latency.p50_ms, latency.p999_ms), (Some(0.0), Some(0.25)), "0, not the histogram's 1 µs floor");
    }

    fn round(index: u32, ops: u64, elapsed_s: f64, ok: bool) -> CallRound {
        let mut latency = crate::open_loop::latency_histogram();
        for micros in 1..=ops {
            latency.record(micros * 10).unwrap();
        }
        CallRound {
            transport: Json,
            round: index,
            elapsed_s,
            ops,
            errors: u64::from(!ok),
            error_kinds: if ok { ErrorKinds::new() } else { [("HTTP 503".to_string(), 1)].into() },
            ok,
            cpu_s: ops as f64 * 1e-5,
            server_cpu_s: Some(ops as f64 * 4e-5),
            host_cpu: None,
            wire_sent_bytes: ops * 300,
            wire_received_bytes: ops * 100,
            latency,
            message_latency: crate::open_loop::latency_histogram(),
            span: Default::default(),
            paced: None,
            sampled: None,
            rounds_held: 1,
        }
    }

    #[test]
    fn figures_cover_the_complete_rounds_only() {
        // A failed round of 10 ops in 100 s would drag ops/s down and CPU per op up if counted.
        let rounds = [round(0, 1000, 1.0, true), round(1, 10, 100.0, false), round(2, 1000, 3.0, true)];
        let s = summarize(Json, "HTTP/1.1".into(), 10, &rounds);
        assert_eq!((s.runs, s.ops, s.errors), (2, 2000, 1));
        assert_eq!(s.error_kinds, [("HTTP 503".to_string(), 1)].into(), "the failed round's errors, by kind");
        assert_eq!(s.ops_per_s, Some(500.0));
        assert!((s.client_cpu_us_per_op.unwrap() - 10.0).abs() < 1e-9);
        assert!((s.server_cpu_us_per_op.unwrap() - 40.0).abs() < 1e-9);
        assert_eq!((s.wire_sent_per_op, s.wire_received_per_op), (Some(300.0), Some(100.0)));
        let p50 = s.latency.p50_ms.unwrap();
        assert!((p50 - 5.0).abs() < 0.01, "half of the 2000 latencies are under 5 ms: {p50}");
        assert_eq!(s.latency.histogram.iter().map(|b| b.1).sum::<u64>(), 2000);
    }

    #[test]
    fn nothing_measured_is_none() {
        let s = summarize(Json, String::new(), 0, &[round(0, 10, 1.0, false)]);
        assert_eq!((s.ops_per_s, s.client_cpu_us_per_op, s.latency.p50_ms), (None, None, None));
        let unread = CallRound { server_cpu_s: None, ..round(0, 10, 1.0, true) };
        assert_eq!(summarize(Json, String::new(), 0, &[unread]).server_cpu_us_per_op, None);
    }

    #[test]
    fn the_busy_share_is_of_the_complete_rounds_and_folded_rounds_keep_their_readings() {
        use crate::folded::Folds;
        use crate::host_cpu::HostCpu;
        let cpu = |busy_s: f64| HostCpu { busy_s, all_s: 4.0, process_s: 0.4, process_allowed_s: 4.0 };
        let first = CallRound { host_cpu: Some(cpu(3.0)), ..round(0, 10, 1.0, true) };
        let second = CallRound { host_cpu: Some(cpu(2.0)), ..round(1, 10, 1.0, true) };
        let failed = CallRound { host_cpu: Some(cpu(0.0)), ..round(2, 10, 1.0, false) };
        let rounds = [first.clone(), second.clone(), failed];
        // (3 + 2) of 8 CPU-s busy on the host; the process's 0.8 of 8 is less.
        assert_eq!(summarize(Json, String::new(), 0, &rounds).host_cpu_busy, Some(0.625));
        let mut folded = first.clone();
        folded.absorb(second);
        assert_eq!(folded.host_cpu.map(|c| c.busy_s), Some(5.0), "two rounds held as one add up");
        let mut partly = first;
        partly.absorb(CallRound { host_cpu: None, ..round(1, 10, 1.0, true) });
        assert_eq!(partly.host_cpu, None, "a reading of part of the rounds held is none");
    }
}
