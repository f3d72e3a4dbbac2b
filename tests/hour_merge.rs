//! Two hosts' hour-scale reports (128 records a transport of 2,000 objects
//! each, 512,000 objects a host) merge to the percentiles of all their
//! objects' latencies taken together, within the histograms' stated
//! precision (3 significant digits: a quantile is at most 0.1% above the
//! true one, never below it, and never above the slowest).

mod common;

use common::synthetic::host;
use gcs_speed_tui::config::TransportKind::{self, Grpc, Json};
use gcs_speed_tui::engine::histogram::decode;
use gcs_speed_tui::fleet::command::merge_loaded;
use gcs_speed_tui::fleet::inputs::parse;
use gcs_speed_tui::gcs::report::{Cleanup, RunOutcome, RunReport};
use gcs_speed_tui::gcs::stats::{Accounting, Items, ObjectSample, Operation, Tally, summarize};
use std::collections::BTreeMap;

const ROUNDS: usize = 128;
const PER_ROUND: usize = 2_000;

/// Latencies spread log-uniformly from 1 ms to about 1 s (xorshift, so the
/// test is the same every time).
fn latencies(seed: u64, n: usize) -> Vec<f64> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            1e-3 * 1000f64.powf(unit)
        })
        .collect()
}

/// A host whose every round holds `PER_ROUND` objects: each object's
/// latency is added to `all` (by transport) as it is tallied. `folded`: as
/// a long run reports today, each transport's tally kept whole and the
/// records' times coarse; else as reports before, figures from the records.
fn hour_host(
    label: &str,
    seed: u64,
    scale: f64,
    folded: bool,
    all: &mut BTreeMap<TransportKind, Vec<f64>>,
) -> RunReport {
    let base = host(label, 0.0, &[100; ROUNDS], 200, 0.010, "1MiB");
    let template = base.samples[0].clone();
    let mut rounds = base.rounds.clone();
    for (index, round) in rounds.iter_mut().enumerate() {
        // gRPC's three times JSON's, and each host at its own scale: the
        // merged quantiles are those of neither host alone.
        let transport_scale = if round.transport == Grpc { 3.0 } else { 1.0 };
        let times: Vec<f64> = latencies(seed * 1_000 + index as u64 * 2 + round.transport as u64, PER_ROUND)
            .into_iter()
            .map(|t| t * scale * transport_scale)
            .collect();
        let objects: Vec<ObjectSample> = times
            .iter()
            .map(|&elapsed_s| ObjectSample {
                elapsed_s,
                transport: round.transport,
                round: round.round,
                ..template.clone()
            })
            .collect();
        round.items = Some(Tally::of(&objects));
        all.entry(round.transport).or_default().extend(times);
    }
    let whole = |kind| {
        let lane = rounds.iter().filter(|r| r.transport == kind).filter_map(|r| r.items.as_ref());
        lane.fold(Tally::default(), |mut sum, tally| {
            sum.absorb(tally);
            sum
        })
    };
    let wholes = [Json, Grpc].map(|kind| folded.then(|| whole(kind)));
    if folded {
        rounds.iter_mut().filter_map(|r| r.items.as_mut()).for_each(Tally::coarsen);
    }
    let summaries = [Json, Grpc]
        .into_iter()
        .zip(wholes)
        .map(|(kind, items)| {
            summarize(kind, Operation::Upload, 0, &rounds, &[], Accounting { items, ..Accounting::default() })
        })
        .collect();
    let (id, started, target, config) = (base.run_id, base.started_at, base.target, base.config);
    let report = RunReport::new(
        id,
        started,
        target,
        config,
        summaries,
        Vec::new(),
        rounds,
        RunOutcome::Completed,
        Cleanup::default(),
    );
    report.host_label(label.into())
}

/// The `q` quantile of all the values, as HdrHistogram counts it: the
/// ceil(q x n)-th smallest.
fn exact(sorted: &[f64], q: f64) -> f64 {
    sorted[((q * sorted.len() as f64).ceil() as usize).max(1) - 1]
}

#[test]
fn two_hour_scale_hosts_merge_to_the_percentiles_of_all_their_objects() {
    two_hosts_merge(false);
}

/// As a long run reports today: its folded records' times at 2 significant
/// digits (1%), so the 0.1% below holds only if the merge adds up each
/// host's whole tallies.
#[test]
fn hosts_whose_records_are_coarse_merge_from_their_whole_tallies_within_the_same_precision() {
    two_hosts_merge(true);
}

fn two_hosts_merge(folded: bool) {
    let mut all = BTreeMap::new();
    let hosts = [hour_host("a", 1, 1.0, folded, &mut all), hour_host("b", 2, 10.0, folded, &mut all)];
    let digits = |tally: &Tally| decode(&tally.latency.as_ref().unwrap().histogram).unwrap().sigfig();
    let record_digits = hosts.iter().flat_map(|h| &h.rounds).map(|r| digits(r.items.as_ref().unwrap()));
    assert!(record_digits.into_iter().all(|d| d == if folded { 2 } else { 3 }));
    let loaded: Vec<_> =
        hosts.iter().flat_map(|h| parse(&format!("{}.json", h.environment.host), &h.to_json()).unwrap()).collect();
    let started = std::time::Instant::now();
    let merged: serde_json::Value = serde_json::from_str(&merge_loaded(&loaded).unwrap().to_json()).unwrap();
    let merge_s = started.elapsed().as_secs_f64();
    assert_eq!(all.len(), 2, "both transports' objects");
    for (kind, mut values) in all {
        values.sort_by(f64::total_cmp);
        assert_eq!(values.len(), 2 * ROUNDS * PER_ROUND, "{kind:?}");
        let row = merged["transports"].as_array().unwrap().iter().find(|t| t["transport"] == kind.name()).unwrap();
        assert_eq!(row["objects"], 2 * ROUNDS * PER_ROUND, "every object of both hosts counted once");
        let row_digits = decode(row["latency_histogram"].as_str().unwrap()).unwrap().sigfig();
        assert_eq!(row_digits, 3, "{kind:?}: the merged row's latencies whole");
        if folded {
            assert!(row["items"]["latency"]["histogram"].is_string(), "{kind:?}: the hosts' whole tallies merged");
            // The records alone would not do: pooled, they miss the 0.1% at
            // some of the twentieths (one bucket of theirs is up to 1% wide).
            let records = hosts.iter().flat_map(|h| &h.rounds).filter(|r| r.transport == kind);
            let pooled = Items::of(records);
            let missed = (1..20)
                .map(|i| f64::from(i) / 20.0)
                .any(|q| pooled.latency.quantile(q).unwrap() > exact(&values, q) * 1.001 + 0.5e-6);
            assert!(missed, "{kind:?}: these records hold the 0.1% themselves; the test shows nothing");
        }
        for (field, q) in [("p50_s", 0.50), ("p90_s", 0.90), ("p99_s", 0.99)] {
            let (merged, truth) = (row[field].as_f64().unwrap(), exact(&values, q));
            // Recorded in whole µs: half a µs either way, then 0.1% above.
            assert!(
                merged >= truth - 0.5e-6 && merged <= truth * 1.001 + 0.5e-6,
                "{kind:?} {field}: merged {merged} against {truth} from every object"
            );
        }
    }
    assert!(merge_s < 10.0, "two hour-scale reports merged in {merge_s:.2} s");
}
