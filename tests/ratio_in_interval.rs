//! Every ratio quoted beside an interval is that interval's own point
//! estimate, whatever the rounds were: uneven, failed, missing, of several
//! parts, from several hosts, paced with drops. The throughput verdict (GCS,
//! etcd, grpc and fleets all take it from `compare_rates`), its gRPC/JSON
//! figure, and the open-loop latency ratios are checked against the
//! geometric mean of the paired ratios worked out here from the rounds.

use gcs_speed_tui::engine::compare::{Comparison, MIN_PAIRS, OpsRates, PairedRound, compare_rates};
use gcs_speed_tui::engine::fleet::{FleetRound, Row, fleet};
use gcs_speed_tui::engine::open_loop::{OpenLoop, PacedRound, RoundLatency, Spacing, latency_histogram, summarize};
use gcs_speed_tui::engine::plan::TransportKind::{self, Grpc, Json};
use gcs_speed_tui::engine::timeline::Span;
use proptest::prelude::*;
use std::time::{Duration, SystemTime};

/// A round as generated: its transport, index, part, rate (`None`: failed).
#[derive(Clone, Debug)]
struct Generated {
    transport: TransportKind,
    index: u32,
    part: u8,
    rate: Option<f64>,
    span: Span,
}

impl PairedRound for Generated {
    fn transport(&self) -> TransportKind {
        self.transport
    }
    fn index(&self) -> u32 {
        self.index
    }
    fn part(&self) -> u8 {
        self.part
    }
    fn rate(&self) -> Option<f64> {
        self.rate
    }
}

impl FleetRound for Generated {
    fn span(&self) -> &Span {
        &self.span
    }
    fn amount(&self) -> f64 {
        self.rate.unwrap_or(0.0)
    }
}

/// A generated round: whether it ran, its rate (`None`: failed), its start.
type Drawn = (bool, Option<f64>, f64);

/// Up to 8 round indexes, each with a round of each transport (or not),
/// rates spread over three orders of magnitude, some failed.
fn rounds(part: u8) -> impl Strategy<Value = Vec<Generated>> {
    let one = (prop::bool::weighted(0.9), prop::option::weighted(0.85, 1.0f64..1000.0), 0.0f64..50.0);
    prop::collection::vec((one.clone(), one), 0..8).prop_map(move |pairs| generated(pairs, part))
}

fn generated(pairs: Vec<(Drawn, Drawn)>, part: u8) -> Vec<Generated> {
    let zero = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let mut rounds = Vec::new();
    for (index, pair) in pairs.into_iter().enumerate() {
        for (transport, (ran, rate, at)) in [(Json, pair.0), (Grpc, pair.1)] {
            if ran {
                let wall = |s: f64| gcs_speed_tui::units::rfc3339_micros(zero + Duration::from_secs_f64(s));
                let span = Span {
                    started_at: wall(at),
                    ended_at: wall(at + 1.0),
                    start_s: at,
                    end_s: at + 1.0,
                    ..Span::default()
                };
                rounds.push(Generated { transport, index: index as u32, part, rate, span });
            }
        }
    }
    rounds
}

/// ln(gRPC / JSON) of each index (and part) both completed, worked out here.
fn paired_logs(rounds: &[Generated]) -> Vec<f64> {
    let mut logs = Vec::new();
    for grpc in rounds.iter().filter(|r| r.transport == Grpc) {
        let json = rounds.iter().find(|r| r.transport == Json && r.index == grpc.index && r.part == grpc.part);
        if let (Some(g), Some(j)) = (grpc.rate, json.and_then(|j| j.rate)) {
            logs.push((g / j).ln());
        }
    }
    logs
}

fn pooled(rounds: &[Generated], kind: TransportKind) -> Option<f64> {
    let rates: Vec<f64> = rounds.iter().filter(|r| r.transport == kind).filter_map(|r| r.rate).collect();
    (!rates.is_empty()).then(|| rates.iter().sum::<f64>() / rates.len() as f64)
}

/// The verdict's percent and its gRPC/JSON figure lie in their intervals,
/// and both are the geometric mean of `logs`; a verdict exactly when both
/// transports were rated and 3 or more pairs completed.
fn assert_quoted_inside(comparison: &Comparison<OpsRates>, logs: &[f64], rated: bool) -> Result<(), TestCaseError> {
    prop_assert_eq!(comparison.pairs, logs.len());
    let expected = rated && logs.len() >= MIN_PAIRS;
    prop_assert_eq!(comparison.percent.is_some(), expected);
    prop_assert_eq!(comparison.ci_low.is_some() && comparison.ci_high.is_some(), expected);
    let (ratio, interval) = comparison.grpc_over_json();
    let (Some(percent), Some(low), Some(high)) = (comparison.percent, comparison.ci_low, comparison.ci_high) else {
        prop_assert_eq!(ratio, None, "a ratio with no interval to be the estimate of");
        return Ok(());
    };
    prop_assert!(low <= percent + 1e-9 && percent <= high + 1e-9, "{} outside {} to {}", percent, low, high);
    let (ratio, (r_low, r_high)) = (ratio.unwrap(), interval.unwrap());
    prop_assert!(
        r_low <= ratio * (1.0 + 1e-12) && ratio <= r_high * (1.0 + 1e-12),
        "{ratio} outside {r_low}..{r_high}"
    );
    let geomean = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
    prop_assert!((ratio / geomean - 1.0).abs() < 1e-9, "ratio {} is not the pairs' geometric mean {}", ratio, geomean);
    Ok(())
}

/// Two hosts' rounds of one shape (3 to 8 indexes, nearly all run): the
/// fleet's pairs are common, so its interval is checked often.
fn two_hosts() -> impl Strategy<Value = (Vec<Generated>, Vec<Generated>)> {
    let one = (prop::bool::weighted(0.97), prop::option::weighted(0.9, 1.0f64..1000.0), 0.0f64..50.0);
    (3usize..8).prop_flat_map(move |n| {
        let host = prop::collection::vec((one.clone(), one.clone()), n);
        (host.clone(), host).prop_map(|(a, b)| (generated(a, 0), generated(b, 0)))
    })
}

/// The fleet's round i worked out here: the sum of both hosts' rates when
/// both completed it, failed when either ran it and did not.
fn fleet_sums(a: &[Generated], b: &[Generated]) -> Vec<Generated> {
    let rate = |host: &[Generated], t, i| host.iter().find(|r| r.transport == t && r.index == i).map(|r| r.rate);
    let mut summed = Vec::new();
    for index in 0..8u32 {
        for transport in [Json, Grpc] {
            let (x, y) = (rate(a, transport, index), rate(b, transport, index));
            if x.is_none() && y.is_none() {
                continue;
            }
            let rate = match (x.flatten(), y.flatten()) {
                (Some(x), Some(y)) => Some(x + y),
                _ => None,
            };
            summed.push(Generated { transport, index, part: 0, rate, span: Span::default() });
        }
    }
    summed
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn a_throughput_verdict_quotes_its_intervals_own_estimate(single in rounds(0)) {
        let measured = [(Json, pooled(&single, Json)), (Grpc, pooled(&single, Grpc))];
        let comparison: Comparison<OpsRates> = compare_rates(measured, &single).unwrap();
        let rated = measured.iter().all(|(_, rate)| rate.is_some());
        assert_quoted_inside(&comparison, &paired_logs(&single), rated)?;
    }

    #[test]
    fn a_fleets_verdict_quotes_its_intervals_own_estimate((a, b) in two_hosts()) {
        let rows = [Row { transport: Json, part: 0, operation: "call" }, Row { transport: Grpc, part: 0, operation: "call" }];
        let (fleet, pairs) = fleet(&[("host-a", a.as_slice()), ("host-b", b.as_slice())], &rows);
        let window = |kind| fleet.rows.iter().find(|r| r.transport == kind).and_then(|r| r.rate);
        let measured = [(Json, window(Json)), (Grpc, window(Grpc))];
        let comparison: Comparison<OpsRates> = compare_rates(measured, &pairs).unwrap();
        let rated = measured.iter().all(|(_, rate)| rate.is_some());
        assert_quoted_inside(&comparison, &paired_logs(&fleet_sums(&a, &b)), rated)?;
    }

    #[test]
    fn a_verdict_of_several_parts_pairs_part_with_part(write in rounds(0), read in rounds(1)) {
        let both: Vec<Generated> = write.iter().chain(&read).cloned().collect();
        let measured = [(Json, pooled(&both, Json)), (Grpc, pooled(&both, Grpc))];
        let comparison: Comparison<OpsRates> = compare_rates(measured, &both).unwrap();
        let rated = measured.iter().all(|(_, rate)| rate.is_some());
        assert_quoted_inside(&comparison, &paired_logs(&both), rated)?;
    }

    #[test]
    fn an_open_loop_latency_ratio_quotes_its_intervals_own_estimate(
        generated in prop::collection::vec(
            (0usize..2, 0u32..6, prop::bool::weighted(0.8), prop::collection::vec(50u64..200_000, 1..40), 0u64..20),
            0..24,
        ),
    ) {
        let hosts = ["host-a", "host-b"];
        let offer = OpenLoop { rate: 100.0, spacing: Spacing::Poisson, max_in_flight: 10, round_s: Some(1.0) };
        // Each generated round once per (host, transport, index): the first wins.
        let mut seen = std::collections::BTreeSet::new();
        let mut kept = Vec::new();
        for (i, (host, index, ok, latencies, dropped)) in generated.iter().enumerate() {
            let transport = if i % 2 == 0 { Json } else { Grpc };
            if !seen.insert((*host, transport, *index)) {
                continue;
            }
            let mut latency = latency_histogram();
            latencies.iter().for_each(|v| latency.record(*v).unwrap());
            let offered = latencies.len() as u64 + dropped;
            let paced = PacedRound {
                offered,
                started: latencies.len() as u64,
                dropped: *dropped,
                late: 0,
                achieved_rate: Some(95.0),
                lateness: latency_histogram(),
                service: latency.clone(),
            };
            kept.push((hosts[*host], transport, *index, *ok, latency, paced));
        }
        let rounds: Vec<RoundLatency> = kept
            .iter()
            .map(|(host, transport, round, ok, latency, paced)| RoundLatency {
                host,
                transport: *transport,
                round: *round,
                ok: *ok,
                latency,
                paced,
            })
            .collect();
        let summary = summarize("call", &offer, &[Json, Grpc], &rounds);
        let named: Vec<&str> = summary.ratios.iter().map(|r| r.percentile.as_str()).collect();
        prop_assert_eq!(named, ["p50", "p99"]);
        for (ratio, quantile) in summary.ratios.iter().zip([0.5, 0.99]) {
            // JSON's over gRPC's, of each host's complete pairs, worked out here.
            let at = |r: &RoundLatency| r.ok.then(|| r.latency.value_at_quantile(quantile).max(1) as f64);
            let logs: Vec<f64> = rounds
                .iter()
                .filter(|g| g.transport == Grpc)
                .filter_map(|g| {
                    let j = rounds.iter().find(|j| j.transport == Json && j.round == g.round && j.host == g.host)?;
                    Some((at(j)? / at(g)?).ln())
                })
                .collect();
            prop_assert_eq!(ratio.pairs, logs.len());
            match (ratio.json_over_grpc, ratio.ci_low, ratio.ci_high) {
                (Some(value), Some(low), Some(high)) => {
                    prop_assert!(logs.len() >= MIN_PAIRS);
                    prop_assert!(low <= value * (1.0 + 1e-12) && value <= high * (1.0 + 1e-12), "{value} outside {low}..{high}");
                    let geomean = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
                    prop_assert!((value / geomean - 1.0).abs() < 1e-9);
                }
                (value, None, None) => {
                    prop_assert!(logs.len() < MIN_PAIRS, "{} pairs and no interval", logs.len());
                    prop_assert_eq!(value, None, "no ratio without the interval it would be the estimate of");
                }
                other => prop_assert!(false, "half an interval: {:?}", other),
            }
        }
    }
}
