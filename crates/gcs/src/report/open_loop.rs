//! An open-loop GCS run's latency figures and verdict, one per operation
//! (w1r3 has uploads and reads): each round's latencies from intended start
//! come from its items, its pacing from the round.

use crate::config::BenchConfig;
use crate::stats::{ObjectSample, Operation, RoundSample};
use engine::open_loop::{OpenLoopSummary, RoundLatency, latency_histogram, micros, summarize};
use hdrhistogram::Histogram;
use std::time::Duration;

/// Every operation's summary, when the run was open-loop.
pub fn open_loop_summaries(
    config: &BenchConfig,
    rounds: &[RoundSample],
    samples: &[ObjectSample],
) -> Vec<OpenLoopSummary> {
    let Some(offered) = &config.open_loop else { return Vec::new() };
    let latencies: Vec<(&RoundSample, Histogram<u64>)> =
        rounds.iter().filter(|r| r.paced.is_some()).map(|r| (r, round_latency(r, samples))).collect();
    Operation::of(config.workload)
        .iter()
        .map(|&operation| {
            let paced: Vec<RoundLatency> = latencies
                .iter()
                .filter(|(r, _)| r.operation == operation)
                .filter_map(|(r, latency)| {
                    Some(RoundLatency {
                        host: &r.span.host,
                        transport: r.transport,
                        round: r.round,
                        ok: r.ok,
                        latency,
                        paced: r.paced.as_ref()?,
                    })
                })
                .collect();
            summarize(operation.name(), offered, &config.transports, &paced)
        })
        .collect()
}

/// The round's finished items' latencies from intended start, µs.
fn round_latency(round: &RoundSample, samples: &[ObjectSample]) -> Histogram<u64> {
    let mut histogram = latency_histogram();
    samples
        .iter()
        .filter(|s| {
            s.ok && s.transport == round.transport
                && s.operation == round.operation
                && s.round == round.round
                && s.host == round.span.host
        })
        .for_each(|s| histogram.saturating_record(micros(Duration::from_secs_f64(s.latency_s()))));
    histogram
}
