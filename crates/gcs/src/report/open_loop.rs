//! An open-loop GCS run's latency figures and verdict, one per operation
//! (w1r3 has uploads and reads): each round's latencies from intended start
//! come from its items' tally, its pacing from the round.

use crate::config::BenchConfig;
use crate::stats::{Operation, RoundSample};
use engine::open_loop::{OpenLoopSummary, RoundLatency, latency_histogram, summarize};
use hdrhistogram::Histogram;

/// Every operation's summary, when the run was open-loop.
pub fn open_loop_summaries(
    config: &BenchConfig,
    rounds: &[RoundSample],
    _cut_off: &[RoundSample],
) -> Vec<OpenLoopSummary> {
    let Some(offered) = &config.open_loop else { return Vec::new() };
    let latencies: Vec<(&RoundSample, Histogram<u64>)> =
        rounds.iter().filter(|r| r.paced.is_some()).map(|r| (r, round_latency(r))).collect();
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
/// A round's latencies from intended start, µs, from its tally.
fn round_latency(round: &RoundSample) -> Histogram<u64> {
    let mut histogram = latency_histogram();
    let tally = round.items.as_ref().and_then(|t| t.latency.as_ref());
    if let Some(latency) = tally.and_then(|t| engine::histogram::decode(&t.histogram).ok()) {
        histogram.auto(true);
        let _ = histogram.add(&latency);
    }
    histogram
}
