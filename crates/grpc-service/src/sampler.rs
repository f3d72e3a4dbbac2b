//! The answers of calls sampled during a round, kept as they arrive and
//! compared with the other transport's same round once both have run (off
//! the clock: comparing costs nothing the round is timed on). About a
//! hundred calls over three rounds, spread over each round's calls.

use crate::compare::{Difference, differences};
use engine::calls::sampled::SampledAnswers;
use engine::plan::TransportKind;
use prost_reflect::DynamicMessage;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// The sampled calls a round keeps at most.
pub const PER_ROUND: u64 = 34;

/// A round's sampled answers, by call number.
type Answers = BTreeMap<u64, Vec<DynamicMessage>>;

/// One round's sampling: which call numbers it keeps, and their answers.
#[derive(Clone)]
pub struct Sampler {
    stride: u64,
    kept: Arc<Mutex<Answers>>,
}

impl Sampler {
    /// For a round of `calls` calls: every `calls / PER_ROUND`th, from call 0.
    pub fn new(calls: u64) -> Self {
        Sampler { stride: (calls / PER_ROUND).max(1), kept: Arc::default() }
    }

    pub fn wants(&self, seq: u64) -> bool {
        seq % self.stride == 0 && seq / self.stride < PER_ROUND
    }

    pub fn keep(&self, seq: u64, answer: Vec<DynamicMessage>) {
        self.kept.lock().expect("not poisoned").insert(seq, answer);
    }

    fn take(&self) -> Answers {
        std::mem::take(&mut *self.kept.lock().expect("not poisoned"))
    }
}

/// The most rounds whose samples wait for the other transport's: in
/// interleaved order one does; in sequential order every round of the first
/// transport would, so past this many the later ones are not kept (their
/// pairs go uncompared) and memory stays flat however long the run.
const MOST_WAITING: usize = 16;

/// Rounds whose samples wait for the other transport's same round.
#[derive(Default)]
pub struct Pairing {
    waiting: HashMap<u32, (TransportKind, Answers)>,
}

impl Pairing {
    /// `kind`'s round `round` is done: compared with the other transport's
    /// same round when that one ran first (the tally), else kept for it.
    pub fn settle(
        &mut self,
        kind: TransportKind,
        round: u32,
        sampler: &Sampler,
        ignored: &[String],
    ) -> Option<SampledAnswers> {
        let mine = sampler.take();
        match self.waiting.remove(&round) {
            Some((other, theirs)) if other != kind => {
                let (grpc, http) = if kind.is_grpc() { (&mine, &theirs) } else { (&theirs, &mine) };
                Some(compare(grpc, http, ignored))
            }
            _ if self.waiting.len() < MOST_WAITING => {
                self.waiting.insert(round, (kind, mine));
                None
            }
            _ => None,
        }
    }
}

/// The calls answered over both, compared field by field: each field
/// that differed is counted, not only the first.
fn compare(grpc: &Answers, http: &Answers, ignored: &[String]) -> SampledAnswers {
    let mut tally = SampledAnswers::default();
    for (seq, over_grpc) in grpc {
        let Some(over_http) = http.get(seq) else { continue };
        tally.compared += 1;
        let found: Vec<Difference> = match over_grpc.len() == over_http.len() {
            true => over_grpc.iter().zip(over_http).flat_map(|(g, h)| differences(g, h, ignored)).collect(),
            false => vec![Difference {
                field: "(messages answered)".into(),
                said: format!("grpc answered {} messages, http-json {}", over_grpc.len(), over_http.len()),
            }],
        };
        let Some(first) = found.first() else { continue };
        tally.differed += 1;
        tally.first.get_or_insert_with(|| format!("sampled call {seq}: {}", first.said));
        let fields: std::collections::BTreeSet<String> = found.into_iter().map(|d| d.field).collect();
        for field in fields {
            *tally.fields.entry(field).or_default() += 1;
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::parse_message;

    #[test]
    fn a_round_samples_a_spread_of_its_calls_and_pairs_with_the_other_transports_same_round() {
        // 1,000 calls: every 29th (1000 / 34), 34 of them, call 0 first.
        let sampler = Sampler::new(1000);
        let wanted: Vec<u64> = (0..1000).filter(|seq| sampler.wants(*seq)).collect();
        assert_eq!(wanted.len(), 34);
        assert_eq!((wanted[0], wanted[1], wanted[33]), (0, 29, 33 * 29));
        // 10 calls: each of them.
        assert_eq!((0..10).filter(|seq| Sampler::new(10).wants(*seq)).count(), 10);

        let pool = crate::testing::compile("syntax = \"proto3\"; package t; message R { bool succeeded = 1; }");
        let reply = pool.get_message_by_name("t.R").unwrap();
        let answer = |json: &str| vec![parse_message(&reply, json).unwrap()];
        let (grpc, http) = (Sampler::new(3), Sampler::new(3));
        // Calls 0 and 2 alike; call 1 took the other branch over HTTP; call 2 only over gRPC.
        for seq in 0..3 {
            grpc.keep(seq, answer(r#"{"succeeded":true}"#));
        }
        http.keep(0, answer(r#"{"succeeded":true}"#));
        http.keep(1, answer(r#"{"succeeded":false}"#));
        let mut pairing = Pairing::default();
        assert_eq!(pairing.settle(TransportKind::Json, 0, &http, &[]), None, "the first of the pair waits");
        let tally = pairing.settle(TransportKind::Grpc, 0, &grpc, &[]).unwrap();
        assert_eq!((tally.compared, tally.differed), (2, 1), "call 2 was answered over one transport only");
        assert_eq!(tally.fields.get("succeeded"), Some(&1));
        assert!(tally.first.as_deref().unwrap().starts_with("sampled call 1: the answers differ at succeeded"));
        assert!(pairing.waiting.is_empty(), "nothing kept once compared");
        // Ignored, the same answers compare alike.
        http.keep(1, answer(r#"{"succeeded":false}"#));
        grpc.keep(1, answer(r#"{"succeeded":true}"#));
        pairing.settle(TransportKind::Json, 1, &http, &[]);
        let ignored = pairing.settle(TransportKind::Grpc, 1, &grpc, &["succeeded".into()]).unwrap();
        assert_eq!((ignored.compared, ignored.differed), (1, 0));
        // Sequential order: every round of one transport before the other's.
        // Past MOST_WAITING rounds waiting, no more are kept.
        let mut sequential = Pairing::default();
        for round in 0..(MOST_WAITING as u32 + 5) {
            http.keep(0, answer(r#"{"succeeded":true}"#));
            sequential.settle(TransportKind::Json, round, &http, &[]);
        }
        assert_eq!(sequential.waiting.len(), MOST_WAITING);
    }
}
