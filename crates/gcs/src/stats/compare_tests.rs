//! The engine's paired comparison, tried through GCS's summaries and
//! verdicts (the engine itself knows no target).

use crate::config::TransportKind;
use crate::stats::{RoundSample, TransportSummary, compare};
use TransportKind::{Grpc, Json};
use engine::compare::*;
use units::RateUnit;

fn round(transport: TransportKind, round: u32, elapsed_s: f64) -> RoundSample {
    RoundSample {
        transport,
        operation: crate::stats::Operation::Upload,
        round,
        elapsed_s,
        bytes: 1 << 20,
        ok: true,
        cpu_s: 0.0,
        wire_bytes: 0,
        retransmitted_bytes: 0,
        host_cpu: None,
        span: Default::default(),
        paced: None,
        items: None,
        rounds_held: 1,
    }
}

fn summary(transport: TransportKind, rounds: &[RoundSample]) -> TransportSummary {
    crate::stats::summarize(transport, crate::stats::Operation::Upload, 1 << 20, rounds, &[], Default::default())
}

fn first(verdicts: Vec<crate::stats::Verdict>) -> Comparison {
    verdicts.into_iter().next().expect("a verdict").comparison
}

fn compared(json: &[f64], grpc: &[f64]) -> Comparison {
    let mut rounds: Vec<RoundSample> = json.iter().enumerate().map(|(i, &t)| round(Json, i as u32, t)).collect();
    rounds.extend(grpc.iter().enumerate().map(|(i, &t)| round(Grpc, i as u32, t)));
    first(compare(&[summary(Json, &rounds), summary(Grpc, &rounds)], &rounds))
}

#[test]
fn a_known_interval() {
    // Log ratios 0.1, 0.2, 0.3: mean 0.2, sd 0.1, se 0.0577, t(2) 4.303.
    let values = [0.1, 0.2, 0.3];
    let (low, high) = t_interval(&values).unwrap();
    let half = 4.303 * 0.1 / 3f64.sqrt();
    assert!((low - (0.2 - half)).abs() < 1e-12 && (high - (0.2 + half)).abs() < 1e-12);
}

#[test]
fn a_consistent_difference_is_significant() {
    let (json, grpc) = ([2.0, 2.1, 1.9, 2.0, 2.05], [1.0, 1.02, 0.98, 1.01, 1.0]);
    let c = compared(&json, &grpc);
    assert_eq!((c.faster, c.pairs), (Some(Grpc), 5));
    assert!(c.significant);
    let (low, high) = (c.ci_low.unwrap(), c.ci_high.unwrap());
    // The headline is the geometric mean of the pairs' ratios (equal bytes:
    // JSON's time over gRPC's), the interval's own estimate.
    let logs: Vec<f64> = json.iter().zip(grpc).map(|(j, g)| (j / g).ln()).collect();
    let geomean = (logs.iter().sum::<f64>() / 5.0).exp();
    let percent = c.percent.unwrap();
    assert!((percent - (geomean - 1.0) * 100.0).abs() < 1e-9, "{percent} against {geomean}");
    assert!(low > 80.0 && high < 120.0 && low < percent && percent < high, "{low} {percent} {high}");
    // Pooled: 5 MiB over each one's summed times, 5.01 s and 10.05 s.
    let sentence = c.sentence(RateUnit::MiB);
    let expected = format!("grpc was {:.1}% faster than http-json (95% CI +", (geomean - 1.0) * 100.0);
    assert!(sentence.starts_with(&expected), "{sentence}");
    assert!(sentence.ends_with("5 pairs; pooled rates 1.00 vs 0.50 MiB/s)"), "{sentence}");
}

#[test]
fn noise_around_zero_is_no_significant_difference() {
    let c = compared(&[1.0, 1.2, 0.9, 1.1], &[1.1, 0.95, 1.15, 1.0]);
    assert!(!c.significant);
    assert!(c.ci_low.unwrap() < 0.0 && c.ci_high.unwrap() > 0.0);
    assert!(c.sentence(RateUnit::MiB).starts_with("no significant difference: "), "{}", c.sentence(RateUnit::MiB));
}

#[test]
fn two_pairs_are_too_few_and_name_no_winner() {
    let c = compared(&[2.0, 2.0], &[1.0, 1.0]);
    assert_eq!((c.pairs, c.faster, c.percent, c.ci_low, c.significant), (2, None, None, None, false));
    assert_eq!(
        c.sentence(RateUnit::MiB),
        "no verdict (http-json 0.50 MiB/s, grpc 1.00 MiB/s): 2 paired rounds are too few for a confidence interval: use 3 or more iterations (or a longer --duration)"
    );
}

#[test]
fn failed_rounds_are_said_to_have_failed() {
    let mut rounds: Vec<RoundSample> = (0..3).map(|i| round(Json, i, 1.0)).collect();
    rounds.extend((0..3).map(|i| RoundSample { ok: i == 0, ..round(Grpc, i, 1.0) }));
    let c = first(compare(&[summary(Json, &rounds), summary(Grpc, &rounds)], &rounds));
    assert_eq!((c.pairs, c.pairs_attempted, c.faster), (1, 3, None));
    assert!(
        c.sentence(RateUnit::MiB).contains("only 1 of 3 paired rounds completed on both transports"),
        "{}",
        c.sentence(RateUnit::MiB)
    );
}

#[test]
fn rounds_pair_by_index_and_failed_rounds_drop_out() {
    let mut rounds = vec![round(Json, 0, 1.0), round(Grpc, 0, 2.0), round(Json, 1, 1.0), round(Grpc, 2, 1.0)];
    rounds.push(RoundSample { ok: false, ..round(Grpc, 1, 1.0) });
    let ratios = paired_log_ratios(&rounds, Json, Grpc);
    assert_eq!(ratios.len(), 1);
    assert!((ratios[0] - 2f64.ln()).abs() < 1e-12);
}

#[test]
fn no_comparison_without_two_transports_and_no_verdict_without_rounds() {
    let json = summary(Json, &[]);
    assert!(compare(std::slice::from_ref(&json), &[]).is_empty());
    let grpc = TransportSummary { transport: Grpc, throughput_mib_s: Some(5.0), ..json.clone() };
    let c = first(compare(&[json, grpc], &[]));
    assert_eq!(c.faster, None);
    assert_eq!(
        c.sentence(RateUnit::MiB),
        "no verdict (http-json no rate, grpc 5.00 MiB/s): http-json completed no round"
    );
}

#[test]
fn no_verdict_names_the_transport_without_rounds_and_where_they_were_counted() {
    let json_rounds = [round(Json, 0, 1.0), round(Json, 1, 1.0), round(Json, 2, 1.0)];
    let fleet: Comparison =
        compare_rates_in([(Json, Some(4.0)), (Grpc, None)], &json_rounds, NO_ROUND_IN_FLEET_WINDOW).unwrap();
    assert_eq!(fleet.no_verdict.as_deref(), Some("grpc: a host completed no round inside the fleet's common window"));
    let neither: Comparison = compare_rates([(Json, None), (Grpc, None)], &json_rounds[..0]).unwrap();
    assert_eq!(neither.no_verdict.as_deref(), Some("http-json and grpc completed no round"));
}

#[test]
fn t_quantiles_match_tables() {
    assert_eq!(t_975(4), 2.776);
    assert!((t_975(40) - 2.021).abs() < 0.001);
    assert!((t_975(120) - 1.980).abs() < 0.001);
    assert!((t_975(100_000) - 1.960).abs() < 0.001);
    assert!(interval_width(&[0.1, 0.1]).is_none());
}

#[test]
fn the_stable_width_is_the_width_the_verdict_quotes() {
    // JSON over gRPC in three pairs: gRPC 2.0x, 2.1x and 1.9x as fast.
    let json_over_grpc = [(1.0f64 / 2.0).ln(), (1.0f64 / 2.1).ln(), (1.0f64 / 1.9).ln()];
    // The verdict quotes gRPC over JSON: its logs, their mean and sample
    // deviation, t(2 df) = 4.303, each end back to a percentage.
    let logs = [2.0f64.ln(), 2.1f64.ln(), 1.9f64.ln()];
    let mean = logs.iter().sum::<f64>() / 3.0;
    let sd = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    let half = 4.303 * sd / 3f64.sqrt();
    let quoted = ((mean + half).exp() - (mean - half).exp()) * 100.0;
    let width = interval_width(&json_over_grpc).unwrap();
    assert!((width - quoted).abs() < 1e-9, "{width} points, the verdict quotes {quoted}");
    // The same pairs taken the other way round give the same width.
    assert!((interval_width(&logs).unwrap() - quoted).abs() < 1e-9);
}
