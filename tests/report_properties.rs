//! Properties of every report, whatever happened in the run (completed,
//! cancelled, timed out, all or some uploads failed): each ratio divides
//! figures of the same work, nothing unmeasured is shown as a number, and a
//! winner is named only from 3 or more complete pairs.

use gcs_speed_tui::config::{Environment, Options, TransportKind};
use gcs_speed_tui::engine::compare::MIN_PAIRS;
use gcs_speed_tui::gcs::report::{Cleanup, RunOutcome, RunReport};
use gcs_speed_tui::gcs::stats::{Accounting, ObjectSample, RoundSample, summarize};
use gcs_speed_tui::gcs::target::TargetInfo;
use gcs_speed_tui::gcs::transport::Phases;
use proptest::prelude::*;

const OBJECT: u64 = 1 << 20;

/// One round of one transport: absent (cut off before it began), or run with
/// each upload's (ok, seconds), plus the CPU and wire bytes measured around it.
type Round = Option<(Vec<(bool, f64)>, f64, u64)>;

fn round_strategy(concurrency: usize) -> impl Strategy<Value = Round> {
    let uploads = prop::collection::vec((prop::bool::weighted(0.8), 0.01f64..5.0), concurrency);
    prop::option::weighted(0.9, (uploads, 0.0f64..3.0, 0u64..(8 * OBJECT)))
}

fn outcome_strategy() -> impl Strategy<Value = RunOutcome> {
    prop_oneof![
        Just(RunOutcome::Completed),
        Just(RunOutcome::Cancelled),
        Just(RunOutcome::TimedOut),
        Just(RunOutcome::FailedFast)
    ]
}

fn build(concurrency: usize, plan: &[(Round, Round)], outcome: RunOutcome) -> RunReport {
    let config = Options { size: "1MiB".into(), concurrency: concurrency.to_string(), ..Options::default() }
        .validate(&Environment::default())
        .unwrap();
    let (mut rounds, mut samples) = (Vec::new(), Vec::new());
    for (index, pair) in plan.iter().enumerate() {
        for (kind, round) in [(TransportKind::Json, &pair.0), (TransportKind::Grpc, &pair.1)] {
            let Some((uploads, cpu_s, wire_bytes)) = round else { continue };
            for (worker, &(ok, elapsed_s)) in uploads.iter().enumerate() {
                samples.push(ObjectSample {
                    host: String::new(),
                    transport: kind,
                    operation: gcs_speed_tui::gcs::stats::Operation::Upload,
                    round: index as u32,
                    worker: worker as u32,
                    object: format!("o-{index}-{worker}"),
                    bytes: OBJECT,
                    start_s: 0.0,
                    elapsed_s,
                    ok,
                    error: (!ok).then(|| "failed".into()),
                    phases: Phases { session_s: 0.0, transfer_s: elapsed_s, finalize_s: 0.0 },
                    retries: 0,
                    resumes: 0,
                    resent_bytes: 0,
                    first_byte_s: None,
                    unchecked: false,
                    error_kind: None,
                    retried_after: Default::default(),
                });
            }
            let finished = uploads.iter().filter(|u| u.0).count() as u64;
            rounds.push(RoundSample {
                transport: kind,
                operation: gcs_speed_tui::gcs::stats::Operation::Upload,
                round: index as u32,
                elapsed_s: uploads.iter().map(|u| u.1).fold(0.0, f64::max),
                bytes: finished * OBJECT,
                ok: uploads.iter().all(|u| u.0),
                cpu_s: *cpu_s,
                wire_bytes: *wire_bytes,
                retransmitted_bytes: *wire_bytes / 16,
                span: Default::default(),
            });
        }
    }
    let summaries = [TransportKind::Json, TransportKind::Grpc]
        .map(|kind| {
            summarize(
                kind,
                gcs_speed_tui::gcs::stats::Operation::Upload,
                OBJECT * concurrency as u64,
                &rounds,
                &samples,
                Accounting::default(),
            )
        })
        .to_vec();
    let target = TargetInfo {
        kind: "emulator".into(),
        json_endpoint: None,
        grpc_endpoint: None,
        bucket: "b-b".into(),
        credentials: "none".into(),
        credential_type: None,
        principal: None,
        emulator_fault: None,
    };
    RunReport::new("id".into(), "t".into(), target, config, summaries, samples, rounds, outcome, Cleanup::default())
}

proptest! {
    #[test]
    fn every_ratio_covers_one_body_of_work(
        concurrency in 1usize..4,
        plan in (1usize..4).prop_flat_map(|c| prop::collection::vec((round_strategy(c), round_strategy(c)), 0..7)),
        outcome in outcome_strategy(),
    ) {
        let concurrency = plan.first().and_then(|p| p.0.as_ref().or(p.1.as_ref())).map_or(concurrency, |r| r.0.len());
        let report = build(concurrency, &plan, outcome);
        for t in &report.transports {
            let complete: Vec<&RoundSample> =
                report.rounds.iter().filter(|r| r.transport == t.transport && r.ok).collect();
            let bytes: u64 = complete.iter().map(|r| r.bytes).sum();
            let time: f64 = complete.iter().map(|r| r.elapsed_s).sum();
            prop_assert_eq!(t.runs, complete.len());
            match t.throughput_mib_s {
                Some(rate) => prop_assert!((rate - bytes as f64 / (1 << 20) as f64 / time).abs() < 1e-9),
                None => prop_assert!(complete.is_empty()),
            }
            // CPU and wire bytes of the same complete rounds as the bytes they are divided by.
            let cpu: f64 = complete.iter().map(|r| r.cpu_s).sum();
            let wire: u64 = complete.iter().map(|r| r.wire_bytes).sum();
            prop_assert!((t.cpu_s - cpu).abs() < 1e-9);
            prop_assert_eq!(t.wire_bytes, wire);
            let retransmitted: u64 = complete.iter().map(|r| r.retransmitted_bytes).sum();
            prop_assert_eq!(t.wire_retransmitted_bytes, retransmitted);
            match (t.cpu_s_per_gib, t.wire_ratio) {
                (Some(per_gib), Some(ratio)) => {
                    prop_assert!((per_gib - cpu * (1u64 << 30) as f64 / bytes as f64).abs() < 1e-6);
                    prop_assert!((ratio - wire as f64 / bytes as f64).abs() < 1e-9);
                }
                (None, None) => prop_assert!(complete.is_empty()),
                other => prop_assert!(false, "cpu and wire measured over different work: {:?}", other),
            }
            let finished: Vec<&ObjectSample> =
                report.samples.iter().filter(|s| s.transport == t.transport && s.ok).collect();
            prop_assert_eq!(t.objects, finished.len());
            prop_assert_eq!(t.p50_s.is_some(), !finished.is_empty());
            if let Some(rate) = t.per_object_mib_s {
                let time: f64 = finished.iter().map(|s| s.elapsed_s).sum();
                prop_assert!((rate - finished.len() as f64 / time).abs() < 1e-9);
            }
        }
        // Nothing unmeasured is printed as a number.
        let text = report.to_table();
        for t in report.transports.iter().filter(|t| t.objects == 0) {
            let line = text.lines().find(|l| l.starts_with(&format!("{}:", t.transport.name()))).unwrap();
            prop_assert!(line.contains("no completed uploads") && !line.contains("x payload"), "{}", line);
        }
        // (A whole word "0.00": "100.00 MiB/s" is a measured figure.)
        let rounded_to_zero = text.split(|c: char| c.is_whitespace() || c == '(').any(|w| w == "0.00" || w == "0.000x");
        prop_assert!(!rounded_to_zero, "{}", text);
        // A winner only from enough complete pairs.
        let comparison = report.comparison.as_ref().unwrap();
        prop_assert_eq!(comparison.faster.is_some(), comparison.pairs >= MIN_PAIRS, "{}", report.summary_line());
        let sentence = report.summary_line();
        // From enough pairs: a winner, no significant difference, or an
        // interval too wide to read, which then quotes no percentage.
        let judged = ["faster than", "no significant", "no verdict yet"].iter().any(|s| sentence.contains(s));
        prop_assert_eq!(judged, comparison.pairs >= MIN_PAIRS, "{}", sentence);
        if sentence.contains("too wide to read") {
            prop_assert_eq!(sentence.matches('%').count(), 1, "only '95%': {}", sentence);
        }
        // The outcome says what happened.
        let failed = report.samples.iter().any(|s| !s.ok);
        if outcome == RunOutcome::Completed {
            let expected = if failed { RunOutcome::CompletedWithErrors } else { RunOutcome::Completed };
            prop_assert_eq!(report.outcome, expected);
        }
        prop_assert_eq!(report.succeeded(), report.outcome == RunOutcome::Completed);
    }
}
