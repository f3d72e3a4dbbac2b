//! gRPC uploads to a server that allows only HTTP/2's default 16 KiB frames
//! (as a server that sets no SETTINGS_MAX_FRAME_SIZE does), whose frames
//! the client gathers into large writes (`wire::bulk_writes`, whose own
//! tests show the gathering): every object must still arrive whole, its
//! crc32c checked by the server, in cleartext and below TLS, and a flush
//! that never came would fail the run's time limit, not hang.

mod common;
use common::*;
use gcs_speed_tui::config::Options;
use gcs_speed_tui::emulator::EmulatorOptions;
use gcs_speed_tui::emulator::tls::TlsMode;
use gcs_speed_tui::gcs::report::RunReport;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// An odd size: the last frame of each object is short.
const SIZE: u64 = 3 * 1024 * 1024 + 12_345;
const ITERATIONS: u64 = 3;
const CONCURRENCY: u64 = 2;

fn small_frames(tls: Option<TlsMode>) -> EmulatorOptions {
    EmulatorOptions { max_frame: 16 * 1024, tls, ..EmulatorOptions::default() }
}

fn grpc_uploads(base: Options) -> Options {
    Options {
        transports: "grpc".into(),
        size: format!("{SIZE}B"),
        iterations: ITERATIONS.to_string(),
        concurrency: CONCURRENCY.to_string(),
        chunk_size: "0".into(),
        checksum: "crc32c".into(),
        warmup: false,
        ..base
    }
}

/// Every object the run made arrived whole and checked: counted by the server.
fn assert_every_object_arrived_whole(emulator: &gcs_speed_tui::emulator::Emulator, report: &RunReport) {
    assert!(report.succeeded(), "{}", report.to_table());
    let objects = ITERATIONS * CONCURRENCY;
    let store = emulator.store();
    assert_eq!(store.objects_created.load(Ordering::Relaxed), objects);
    assert_eq!(store.bytes_stored.load(Ordering::Relaxed), objects * SIZE);
    assert_eq!(store.checksums_verified.load(Ordering::Relaxed), objects, "each object's crc32c checked");
}

/// 18 MiB on loopback takes well under a second; a deferred flush never
/// sent would leave an upload waiting for its answer.
async fn run_in_time(options: Options) -> RunReport {
    tokio::time::timeout(Duration::from_secs(60), run_bench(options)).await.expect("an upload stalled")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_in_16_kib_frames_arrive_whole() {
    let emulator = emulator_with(small_frames(None)).await;
    let report = run_in_time(grpc_uploads(options_for(&emulator))).await;
    assert_every_object_arrived_whole(&emulator, &report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_in_16_kib_frames_over_tls_arrive_whole() {
    let emulator = emulator_with(small_frames(Some(TlsMode::Generated))).await;
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, emulator.ca_pem().expect("a CA made at start")).unwrap();
    let base =
        Options { grpc_endpoint: emulator.grpc_url(), ca_cert: ca.display().to_string(), ..options_for(&emulator) };
    let report = run_in_time(grpc_uploads(base)).await;
    assert_every_object_arrived_whole(&emulator, &report);
}
