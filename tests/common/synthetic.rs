//! Reports made up with known rounds and latencies, for the merge's tests
//! and its bench: what each figure must come to can be worked out by hand.

use TransportKind::{Grpc, Json};
use gcs_speed_tui::config::{Environment, Options, TransportKind};
use gcs_speed_tui::engine::timeline::Span;
use gcs_speed_tui::gcs::report::{Cleanup, RunOutcome, RunReport};
use gcs_speed_tui::gcs::stats::{Accounting, ObjectSample, Operation, RoundSample, summarize_samples};
use gcs_speed_tui::gcs::target::TargetInfo;
use gcs_speed_tui::gcs::transport::Phases;
use gcs_speed_tui::units::MIB;

/// 2026-12-01T18:30:00Z in microseconds since the epoch.
pub const T0: i64 = 1_796_149_800_000_000;

pub fn at(micros: i64) -> String {
    gcs_speed_tui::units::rfc3339_micros(std::time::UNIX_EPOCH + std::time::Duration::from_micros(micros as u64))
}

/// A round's span from `now` for `seconds`, in a run that began at `start_s`.
fn span_of(now: f64, start_s: f64, seconds: f64) -> Span {
    let micros = |s: f64| T0 + (s * 1e6).round() as i64;
    Span {
        host: String::new(),
        started_at: at(micros(now)),
        ended_at: at(micros(now + seconds)),
        start_s: now - start_s,
        end_s: now - start_s + seconds,
    }
}

/// A host's report: pairs of rounds back to back from `start_s` (JSON
/// rounds of 1 s moving `json_mib[k]`, gRPC rounds of 0.5 s moving
/// `grpc_mib`), one object a round, each object taking `latency_s`.
pub fn host(label: &str, start_s: f64, json_mib: &[u64], grpc_mib: u64, latency_s: f64, size: &str) -> RunReport {
    let config = Options { size: size.into(), ..Options::default() }.validate(&Environment::default()).unwrap();
    let (mut rounds, mut samples) = (Vec::new(), Vec::new());
    let mut now = start_s;
    for (k, &json) in (0u32..).zip(json_mib) {
        for (transport, seconds, mib) in [(Json, 1.0, json), (Grpc, 0.5, grpc_mib)] {
            let span = span_of(now, start_s, seconds);
            rounds.push(RoundSample {
                transport,
                operation: Operation::Upload,
                round: k,
                elapsed_s: seconds,
                bytes: mib * MIB,
                ok: true,
                cpu_s: 0.1,
                wire_bytes: mib * MIB,
                retransmitted_bytes: 0,
                host_cpu: None,
                span,
                paced: None,
                items: None,
                rounds_held: 1,
            });
            samples.push(ObjectSample {
                host: String::new(),
                transport,
                operation: Operation::Upload,
                round: k,
                worker: 0,
                object: format!("{label}-{}-{k}", transport.name()),
                bytes: mib * MIB,
                start_s: now - start_s,
                elapsed_s: latency_s,
                ok: true,
                error: None,
                phases: Phases { session_s: None, transfer_s: latency_s, finalize_s: 0.0 },
                retries: 0,
                resumes: 0,
                resent_bytes: 0,
                first_byte_s: None,
                unchecked: false,
                intended_s: None,
                ranges: None,
                flushes: None,
                read_back: None,
                error_kind: None,
                retried_after: Default::default(),
            });
            now += seconds;
        }
    }
    let summaries = [Json, Grpc]
        .map(|kind| summarize_samples(kind, Operation::Upload, 0, &rounds, &samples, Accounting::default()))
        .to_vec();
    let target = TargetInfo {
        kind: "endpoint".into(),
        json_endpoint: Some("http://127.0.0.1:1".into()),
        grpc_endpoint: Some("127.0.0.1:2".into()),
        bucket: "fleet".into(),
        credentials: "none".into(),
        credential_type: None,
        principal: None,
        emulator_fault: None,
    };
    let run_id = format!("run-{label}");
    RunReport::new(
        run_id,
        at(T0),
        target,
        config,
        summaries,
        samples,
        rounds,
        RunOutcome::Completed,
        Cleanup::default(),
    )
    .host_label(label.into())
}
