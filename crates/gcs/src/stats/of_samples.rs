//! Rounds tallied from samples: reports written before tallies (which kept
//! every object), and tests that make their rounds of objects.

use super::{Accounting, ObjectSample, Operation, RoundSample, Tally, TransportSummary, summarize};
use crate::config::TransportKind;

/// Gives each round without a tally (a report written before tallies, a
/// test's rounds) the tally of its samples: those of its host, transport,
/// operation and round.
pub fn tally_from_samples(rounds: &mut [RoundSample], samples: &[ObjectSample]) {
    for round in rounds.iter_mut().filter(|r| r.items.is_none()) {
        let of_round = |s: &&ObjectSample| {
            s.transport == round.transport
                && s.operation == round.operation
                && s.round == round.round
                && s.host == round.span.host
        };
        round.items = Some(Tally::of(samples.iter().filter(of_round)));
    }
}

/// `summarize` of rounds and their samples (rounds without a tally are
/// given theirs; samples of no round count as a cut-off round's): for
/// reports made of samples, and tests.
pub fn summarize_samples(
    transport: TransportKind,
    operation: Operation,
    bytes_per_run: u64,
    rounds: &[RoundSample],
    samples: &[ObjectSample],
    accounting: Accounting,
) -> TransportSummary {
    let mut rounds = rounds.to_vec();
    tally_from_samples(&mut rounds, samples);
    let in_a_round = |s: &ObjectSample| {
        rounds.iter().any(|r| {
            (r.transport, r.operation, r.round, r.span.host.as_str())
                == (s.transport, s.operation, s.round, s.host.as_str())
        })
    };
    let loose: Vec<&ObjectSample> = samples.iter().filter(|s| !in_a_round(s)).collect();
    let cut_off: Vec<RoundSample> = loose
        .first()
        .map(|s| RoundSample {
            transport: s.transport,
            operation: s.operation,
            round: s.round,
            elapsed_s: 0.0,
            bytes: 0,
            ok: false,
            cpu_s: 0.0,
            wire_bytes: 0,
            retransmitted_bytes: 0,
            host_cpu: None,
            span: Default::default(),
            paced: None,
            items: Some(Tally::of(
                loose.iter().copied().filter(|o| (o.transport, o.operation) == (transport, operation)),
            )),
            rounds_held: 1,
        })
        .into_iter()
        .collect();
    summarize(transport, operation, bytes_per_run, &rounds, &cut_off, accounting)
}
