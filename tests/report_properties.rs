//! Properties of every report, whatever happened in the run: any workload
//! (uploads, reads, w1r3), uploads and reads that failed, retried or
//! resumed, rounds cut off, any outcome (setup failed included), one host
//! or a fleet of two merged. Each ratio divides figures of the same work,
//! nothing unmeasured is shown as a number, and a winner is named only from
//! 3 or more complete pairs. Expected figures are worked out here from the
//! generated rounds and objects.

#[path = "report_properties/plan.rs"]
mod plan;

use gcs_speed_tui::engine::compare::MIN_PAIRS;
use gcs_speed_tui::engine::report::RunOutcome;
use gcs_speed_tui::gcs::report::RunReport;
use gcs_speed_tui::gcs::stats::{ObjectSample, RoundSample, TransportSummary};
use plan::{OBJECT, Slots};
use proptest::prelude::*;
use std::time::{Duration, SystemTime};

/// A row's figures against its own rounds and objects. `fleet`: its
/// throughput is the fleet's in the common window, checked apart.
fn assert_row_covers_its_work(report: &RunReport, t: &TransportSummary, fleet: bool) -> Result<(), TestCaseError> {
    let mine = |transport, operation| transport == t.transport && operation == t.operation;
    let complete: Vec<&RoundSample> = report.rounds.iter().filter(|r| mine(r.transport, r.operation) && r.ok).collect();
    let bytes: u64 = complete.iter().map(|r| r.bytes).sum();
    let time: f64 = complete.iter().map(|r| r.elapsed_s).sum();
    prop_assert_eq!(t.runs, complete.len());
    match (t.throughput_mib_s, fleet) {
        (Some(rate), false) => prop_assert!((rate - bytes as f64 / OBJECT as f64 / time).abs() < 1e-9),
        (Some(_), true) => prop_assert!(!complete.is_empty(), "a fleet rate from no complete round"),
        (None, _) => prop_assert!(complete.is_empty() || fleet),
    }
    // CPU and wire bytes of the same complete rounds as the bytes they are divided by.
    let cpu: f64 = complete.iter().map(|r| r.cpu_s).sum();
    let wire: u64 = complete.iter().map(|r| r.wire_bytes).sum();
    prop_assert!((t.cpu_s - cpu).abs() < 1e-9);
    prop_assert_eq!(t.wire_bytes, wire);
    prop_assert_eq!(t.wire_retransmitted_bytes, complete.iter().map(|r| r.retransmitted_bytes).sum::<u64>());
    match (t.cpu_s_per_gib, t.wire_ratio) {
        (Some(per_gib), Some(ratio)) => {
            prop_assert!((per_gib - cpu * (1u64 << 30) as f64 / bytes as f64).abs() < 1e-6);
            prop_assert!((ratio - wire as f64 / bytes as f64).abs() < 1e-9);
        }
        (None, None) => prop_assert!(bytes == 0),
        other => prop_assert!(false, "cpu and wire measured over different work: {:?}", other),
    }
    let objects: Vec<&ObjectSample> = report.samples.iter().filter(|s| mine(s.transport, s.operation)).collect();
    let finished: Vec<&&ObjectSample> = objects.iter().filter(|s| s.ok).collect();
    prop_assert_eq!(t.objects, finished.len());
    prop_assert_eq!(t.p50_s.is_some(), !finished.is_empty());
    if let (Some(p99), Some(slowest)) = (t.p99_s, finished.iter().map(|s| s.elapsed_s).reduce(f64::max)) {
        prop_assert!(p99 <= slowest, "p99 {} beyond the slowest {}", p99, slowest);
    }
    if let Some(rate) = t.per_object_mib_s {
        let time: f64 = finished.iter().map(|s| s.elapsed_s).sum();
        prop_assert!((rate - finished.len() as f64 / time).abs() < 1e-9);
    }
    // Objects per second: the objects of the complete rounds over their time.
    let in_complete = |s: &ObjectSample| s.ok && complete.iter().any(|r| r.round == s.round && r.span.host == s.host);
    if let (Some(per_s), false) = (t.objects_per_s, fleet) {
        let counted = objects.iter().filter(|s| in_complete(s)).count();
        prop_assert!((per_s - counted as f64 / time).abs() < 1e-9);
    }
    // Every failed object counted once, by kind; retries and resumes of all of them.
    prop_assert_eq!(t.errors, objects.len() - finished.len());
    prop_assert_eq!(t.error_kinds.values().map(|&n| n as usize).sum::<usize>(), t.errors);
    prop_assert_eq!(t.retries, objects.iter().map(|s| s.retries as u64).sum::<u64>());
    prop_assert_eq!(t.resumes, objects.iter().map(|s| s.resumes as u64).sum::<u64>());
    prop_assert_eq!(t.resent_bytes, objects.iter().map(|s| s.resent_bytes).sum::<u64>());
    Ok(())
}

/// What the table and the verdict say, against what was measured.
fn assert_report_says_only_what_was_measured(report: &RunReport) -> Result<(), TestCaseError> {
    let text = report.to_table();
    if report.never_started() {
        // No table of dashes: why, and the cleanup.
        prop_assert!(report.transports.iter().all(|t| t.objects == 0 && t.errors == 0), "{}", text);
        prop_assert!(text.contains("nothing was measured"), "{}", text);
        return Ok(());
    }
    for t in report.transports.iter().filter(|t| t.objects == 0) {
        let noun = format!("no completed {}s", t.operation.name());
        let said = text.lines().any(|l| l.contains(t.transport.name()) && l.contains(&noun));
        prop_assert!(said && !text.contains(&format!("{} x payload", t.transport.name())), "{}\n{}", noun, text);
    }
    // (A whole word "0.00": "100.00 MiB/s" is a measured figure.)
    let rounded_to_zero = text.split(|c: char| c.is_whitespace() || c == '(').any(|w| w == "0.00" || w == "0.000x");
    prop_assert!(!rounded_to_zero, "{}", text);
    // Every ratio quoted beside an interval is inside it (its own estimate).
    for figure in report.ratios() {
        if let (Some(ratio), Some((low, high))) = (figure.ratio, figure.interval) {
            let inside = low <= ratio * (1.0 + 1e-12) && ratio <= high * (1.0 + 1e-12);
            prop_assert!(inside, "{}: {} outside {} to {}", figure.name, ratio, low, high);
        }
    }
    for verdict in &report.verdicts {
        let c = &verdict.comparison;
        if let (Some(percent), Some(low), Some(high)) = (c.percent, c.ci_low, c.ci_high) {
            prop_assert!(low <= percent + 1e-9 && percent <= high + 1e-9, "{} outside {} to {}", percent, low, high);
        }
    }
    // A winner only from enough complete pairs, for every operation.
    for verdict in &report.verdicts {
        prop_assert_eq!(verdict.comparison.faster.is_some(), verdict.comparison.pairs >= MIN_PAIRS);
    }
    // From enough pairs: a winner, no significant difference, or an
    // interval too wide to read, which then quotes no percentage.
    // (Lines indented under a verdict are its cautions.)
    for line in report.verdict_lines().iter().filter(|l| !l.starts_with(' ')) {
        let operation = report.verdicts.iter().find(|v| line.starts_with(&format!("{}s: ", v.operation.name())));
        let Some(verdict) = operation.or(report.verdicts.first()) else { continue };
        let judged = ["faster than", "no significant", "no verdict yet"].iter().any(|s| line.contains(s));
        prop_assert_eq!(judged, verdict.comparison.pairs >= MIN_PAIRS, "{}", line);
        if line.contains("too wide to read") {
            prop_assert_eq!(line.matches('%').count(), 1, "only '95%': {}", line);
        }
    }
    Ok(())
}

fn assert_outcome_says_what_happened(report: &RunReport, asked: RunOutcome) -> Result<(), TestCaseError> {
    let failed = report.samples.iter().any(|s| !s.ok);
    let expected = match asked {
        RunOutcome::Completed if failed => RunOutcome::CompletedWithErrors,
        other => other,
    };
    prop_assert_eq!(report.outcome, expected);
    prop_assert_eq!(report.succeeded(), report.outcome == RunOutcome::Completed);
    if asked == RunOutcome::SetupFailed {
        prop_assert!(report.rounds.is_empty() && report.transports.iter().all(|t| t.throughput_mib_s.is_none()));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn every_ratio_covers_one_body_of_work(
        workload in plan::workload(),
        (concurrency, hosts) in (1usize..4).prop_flat_map(|c| (Just(c), [plan::host_plan(c), plan::host_plan(c)])),
        outcomes in [plan::outcome(), plan::outcome()],
        skew_ms in 0u64..3000,
        fleet in prop::bool::weighted(0.3),
    ) {
        let zero = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let [a, b]: &[Vec<Slots>; 2] = &hosts;
        let first = plan::build(workload, concurrency, a, outcomes[0], zero);
        let report = if fleet {
            let second = plan::build(workload, concurrency, b, outcomes[1], zero + Duration::from_millis(skew_ms));
            plan::fleet([(first, "host-a"), (second, "host-b")])
        } else {
            assert_outcome_says_what_happened(&first, outcomes[0])?;
            first
        };
        prop_assert_eq!(report.transports.len(), 2 * plan::operations(workload).len());
        for t in &report.transports {
            assert_row_covers_its_work(&report, t, fleet)?;
        }
        assert_report_says_only_what_was_measured(&report)?;
    }
}
