//! Reports built from generated plans: any workload (uploads, reads, w1r3),
//! objects that finish or fail after retries and resumes, rounds cut off,
//! any outcome (setup failed included), one host or a fleet of two.

use gcs_speed_tui::config::{Environment, Options, TransportKind};
use gcs_speed_tui::engine::report::RunOutcome;
use gcs_speed_tui::engine::timeline::Span;
use gcs_speed_tui::gcs::report::{Cleanup, RunReport};
use gcs_speed_tui::gcs::stats::{Accounting, ObjectSample, Operation, RoundSample, summarize_samples};
use gcs_speed_tui::gcs::target::TargetInfo;
use gcs_speed_tui::gcs::transport::Phases;
use proptest::prelude::*;
use std::time::{Duration, SystemTime};

pub const OBJECT: u64 = 1 << 20;

/// One object: finished or not, its seconds, its retries and resumes.
pub type Object = (bool, f64, u32, u32);
/// One round of one transport and operation: absent (cut off before it
/// began), or its objects and the CPU and wire bytes measured around it.
pub type Round = Option<(Vec<Object>, f64, u64)>;
/// A round index's slots: JSON and gRPC of the first operation, then of
/// the second (w1r3's reads; unused by the other workloads).
pub type Slots = Vec<Round>;

fn object() -> impl Strategy<Value = Object> {
    (prop::bool::weighted(0.8), 0.01f64..5.0, prop::sample::select(vec![0u32, 0, 0, 1, 3]), 0u32..2)
}

fn round(concurrency: usize) -> impl Strategy<Value = Round> {
    let objects = prop::collection::vec(object(), concurrency);
    prop::option::weighted(0.9, (objects, 0.0f64..3.0, 0u64..(8 * OBJECT)))
}

/// A host's rounds: up to 6 indices of 4 slots each.
pub fn host_plan(concurrency: usize) -> impl Strategy<Value = Vec<Slots>> {
    prop::collection::vec(prop::collection::vec(round(concurrency), 4), 0..7)
}

pub fn outcome() -> impl Strategy<Value = RunOutcome> {
    prop_oneof![
        Just(RunOutcome::Completed),
        Just(RunOutcome::Cancelled),
        Just(RunOutcome::TimedOut),
        Just(RunOutcome::FailedFast),
        Just(RunOutcome::SetupFailed),
    ]
}

pub fn workload() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["upload", "download", "w1r3"])
}

pub fn operations(workload: &str) -> &'static [Operation] {
    match workload {
        "upload" => &[Operation::Upload],
        "download" => &[Operation::Download],
        _ => &[Operation::Upload, Operation::Download],
    }
}

fn sample(kind: TransportKind, operation: Operation, index: usize, worker: usize, object: &Object) -> ObjectSample {
    let &(ok, elapsed_s, retries, resumes) = object;
    ObjectSample {
        host: String::new(),
        transport: kind,
        operation,
        round: index as u32,
        worker: worker as u32,
        object: format!("o-{index}-{worker}"),
        bytes: OBJECT,
        start_s: 0.0,
        elapsed_s,
        ok,
        error: (!ok).then(|| "failed".into()),
        phases: Phases { session_s: None, transfer_s: elapsed_s, finalize_s: 0.0 },
        retries,
        resumes,
        resent_bytes: u64::from(resumes) * OBJECT / 4,
        first_byte_s: (operation == Operation::Download).then_some(elapsed_s / 10.0),
        unchecked: false,
        intended_s: None,
        ranges: None,
        flushes: None,
        read_back: None,
        error_kind: (!ok).then(|| "HTTP 503".into()),
        retried_after: if retries > 0 { [("HTTP 503".to_string(), retries)].into() } else { Default::default() },
    }
}

/// A wall-clock span `from` seconds after `zero`, `seconds` long.
fn span(zero: SystemTime, from: f64, seconds: f64) -> Span {
    let at = |s: f64| gcs_speed_tui::units::rfc3339_micros(zero + Duration::from_secs_f64(s));
    Span {
        host: String::new(),
        started_at: at(from),
        ended_at: at(from + seconds),
        start_s: from,
        end_s: from + seconds,
    }
}

/// One host's report; its rounds one after another from `zero`.
pub fn build(workload: &str, concurrency: usize, plan: &[Slots], outcome: RunOutcome, zero: SystemTime) -> RunReport {
    let options = Options {
        size: "1MiB".into(),
        concurrency: concurrency.to_string(),
        workload: workload.into(),
        ..Options::default()
    };
    let config = options.validate(&Environment::default()).unwrap();
    let operations = operations(workload);
    let (mut rounds, mut samples, mut clock) = (Vec::new(), Vec::new(), 0.0);
    // A setup that failed measured nothing.
    let plan = if outcome == RunOutcome::SetupFailed { &[][..] } else { plan };
    for (index, slots) in plan.iter().enumerate() {
        let kinds = [TransportKind::Json, TransportKind::Grpc];
        let slotted = operations.iter().flat_map(|&op| kinds.map(|kind| (kind, op)));
        for (n, ((kind, operation), slot)) in slotted.zip(slots).enumerate() {
            let Some((objects, cpu_s, wire_bytes)) = slot else { continue };
            // w1r3 reads what its round wrote: no reads without the uploads.
            if n >= 2 && slots[n - 2].is_none() {
                continue;
            }
            samples.extend(objects.iter().enumerate().map(|(w, o)| sample(kind, operation, index, w, o)));
            let elapsed_s = objects.iter().map(|o| o.1).fold(0.0, f64::max);
            rounds.push(RoundSample {
                transport: kind,
                operation,
                round: index as u32,
                elapsed_s,
                bytes: objects.iter().filter(|o| o.0).count() as u64 * OBJECT,
                ok: objects.iter().all(|o| o.0),
                cpu_s: *cpu_s,
                wire_bytes: *wire_bytes,
                retransmitted_bytes: *wire_bytes / 16,
                host_cpu: None,
                span: span(zero, clock, elapsed_s),
                paced: None,
                items: None,
                rounds_held: 1,
            });
            clock += elapsed_s;
        }
    }
    let summaries = operations
        .iter()
        .flat_map(|&op| [TransportKind::Json, TransportKind::Grpc].map(move |kind| (kind, op)))
        .map(|(kind, op)| {
            summarize_samples(kind, op, OBJECT * concurrency as u64, &rounds, &samples, Accounting::default())
        })
        .collect();
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

/// Two hosts' reports, the second started `skew_s` later, merged.
pub fn fleet(hosts: [(RunReport, &str); 2]) -> RunReport {
    let labelled: Vec<RunReport> = hosts.into_iter().map(|(r, host)| r.host_label(host.into())).collect();
    let runs = labelled.iter().flat_map(RunReport::host_runs).collect();
    gcs_speed_tui::gcs::report::merge::merge(runs, &labelled[0])
}
