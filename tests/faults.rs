//! Faults from the emulator, on both transports: transient errors are
//! retried, interrupted resumable uploads resume from the persisted offset,
//! a stall beyond the request timeout fails the request (and is retried),
//! a checksum mismatch is reported and not retried. Every object ends intact
//! on the server or reported failed, and nothing is left after cleanup.

mod common;
use common::*;
use gcs_speed_tui::config::{Options, TransportKind};
use gcs_speed_tui::emulator::Emulator;
use gcs_speed_tui::emulator::faults::Fault;
use gcs_speed_tui::gcs::report::RunReport;
use std::sync::atomic::Ordering;

const BOTH: [TransportKind; 2] = [TransportKind::Json, TransportKind::Grpc];

/// One upload of 2 MiB in 512 KiB chunks (or one request), quick retries, objects kept.
fn one_upload(emulator: &Emulator, kind: TransportKind, chunked: bool) -> Options {
    Options {
        transports: kind.name().into(),
        size: "2MiB".into(),
        chunk_size: if chunked { "512KiB".into() } else { "0".into() },
        iterations: "1".into(),
        warmup: false,
        cleanup: false,
        retry_initial: "20ms".into(),
        ..options_for(emulator)
    }
}

/// The run succeeded and the server holds the object whole: its size, and a
/// crc32c the server checked against the client's.
fn assert_intact(emulator: &Emulator, report: &RunReport) {
    let errors: Vec<_> = report.samples.iter().filter_map(|s| s.error.as_deref()).collect();
    assert!(report.succeeded(), "{}{errors:?}", report.to_table());
    let objects = emulator.store().list(BUCKET, "").unwrap();
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0].size, 2 * MIB);
    assert_eq!(emulator.store().checksums_verified.load(Ordering::Relaxed), 1, "the whole-object crc32c was checked");
}

async fn with_fault(kind: TransportKind, chunked: bool, instruction: &str, extra: Options) -> (Emulator, RunReport) {
    let emulator = emulator().await;
    emulator.faults().queue(Fault::parse(instruction).unwrap());
    let options = Options { request_timeout: extra.request_timeout, ..one_upload(&emulator, kind, chunked) };
    let report = run_bench(options).await;
    (emulator, report)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_503_before_any_data_is_retried() {
    for kind in BOTH {
        for chunked in [false, true] {
            let (emulator, report) = with_fault(kind, chunked, "return-503", Options::default()).await;
            assert_intact(&emulator, &report);
            assert_eq!(report.transports[0].retries, 1, "{kind:?} chunked {chunked}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_resumable_upload_resumes_from_the_persisted_offset() {
    for kind in BOTH {
        for instruction in ["return-503-after-256K", "return-reset-connection-after-256K"] {
            let (emulator, report) = with_fault(kind, true, instruction, Options::default()).await;
            assert_intact(&emulator, &report);
            let t = &report.transports[0];
            assert_eq!((t.retries, t.resumes), (1, 1), "{kind:?} {instruction}");
            assert!(t.resent_bytes < 2 * MIB, "{kind:?} {instruction}: re-sent {} bytes", t.resent_bytes);
            assert!(t.resent_bytes <= 512 * KIB, "at most the interrupted chunk again: {}", t.resent_bytes);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_request_upload_is_retried_whole() {
    for kind in BOTH {
        let (emulator, report) = with_fault(kind, false, "return-503-after-256K", Options::default()).await;
        assert_intact(&emulator, &report);
        let t = &report.transports[0];
        assert_eq!((t.retries, t.resumes), (1, 0), "{kind:?}");
        assert!(t.resent_bytes >= 256 * KIB, "{kind:?}: the start was sent again ({})", t.resent_bytes);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stall_beyond_the_request_timeout_fails_the_request_and_is_retried() {
    for kind in BOTH {
        let timeout = Options { request_timeout: "300ms".into(), ..Options::default() };
        let started = std::time::Instant::now();
        let (emulator, report) = with_fault(kind, true, "stall-for-3s-after-256K", timeout).await;
        assert_intact(&emulator, &report);
        assert!(report.transports[0].retries >= 1, "{kind:?}");
        assert!(started.elapsed().as_secs_f64() < 2.5, "{kind:?}: did not wait out the stall");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_then_success() {
    for kind in BOTH {
        let (emulator, report) = with_fault(kind, true, "return-429", Options::default()).await;
        assert_intact(&emulator, &report);
        assert_eq!(report.transports[0].retries, 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checksum_mismatch_is_reported_and_not_retried() {
    for kind in BOTH {
        let (emulator, report) = with_fault(kind, true, "corrupt-after-100K", Options::default()).await;
        assert!(!report.succeeded());
        let t = &report.transports[0];
        assert_eq!((t.errors, t.retries), (1, 0), "{kind:?}");
        let error = report.samples[0].error.clone().unwrap();
        assert!(error.contains("crc32c") || error.contains("checksum"), "{kind:?}: {error}");
        assert_eq!(emulator.store().object_count(), 0, "{kind:?}: nothing was created");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn standing_faults_on_every_request_leave_nothing_behind() {
    let (fault, every) = gcs_speed_tui::emulator::faults::parse_rule("return-503:every=3").unwrap();
    let emulator =
        emulator_with(gcs_speed_tui::emulator::EmulatorOptions { faults: vec![(fault, every)], ..Default::default() })
            .await;
    let options = Options {
        iterations: "4".into(),
        cleanup: true,
        retry_initial: "20ms".into(),
        chunk_size: "512KiB".into(),
        ..options_for(&emulator)
    };
    let report = run_bench(options).await;
    assert!(report.succeeded(), "{}", report.to_table());
    assert!(report.transports.iter().map(|t| t.retries).sum::<u64>() >= 2);
    assert_eq!(emulator.store().object_count(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fail_fast_stops_at_the_first_failure() {
    let emulator = emulator().await;
    emulator.faults().queue(Fault::parse("return-400").unwrap());
    let options = Options { iterations: "5".into(), fail_fast: true, warmup: false, ..options_for(&emulator) };
    let report = run_bench(options).await;
    assert_eq!(report.outcome, gcs_speed_tui::gcs::report::RunOutcome::FailedFast);
    assert_eq!(report.rounds.len(), 1, "stopped after the first round");
    assert_eq!(emulator.store().object_count(), 0);
}
