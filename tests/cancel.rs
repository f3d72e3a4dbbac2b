//! Ctrl-C on the real `run` binary against a slow emulator: the first stops
//! the uploads, cancels what is open and deletes what the run created
//! ("deleted N, left 0"); a second leaves at once and names what may remain.

mod common;
use common::*;
use gcs_speed_tui::emulator::EmulatorOptions;
use std::process::{Command, Stdio};
use std::time::Duration;

fn start_run(emulator: &gcs_speed_tui::emulator::Emulator) -> std::process::Child {
    start_run_on(emulator, "both")
}

fn start_run_on(emulator: &gcs_speed_tui::emulator::Emulator, transports: &str) -> std::process::Child {
    Command::new(binary())
        .args([
            "run",
            "--transports",
            transports,
            "--bucket",
            BUCKET,
            "--size",
            "2MiB",
            "--chunk-size",
            "512KiB",
            "--iterations",
            "50",
            "--warmup=false",
        ])
        .args(["--endpoint", &emulator.json_url(), "--grpc-endpoint", &emulator.grpc_addr().to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn interrupt(child: &std::process::Child) {
    signal(child, libc::SIGINT);
}

fn signal(child: &std::process::Child, signal: i32) {
    // SAFETY: sends a signal to a child we started and have not reaped.
    unsafe { libc::kill(child.id() as i32, signal) };
}

fn slow() -> EmulatorOptions {
    EmulatorOptions { bandwidth: Some(4 * MIB), ..EmulatorOptions::default() }
}

/// Ctrl-C, a CI job's kill (SIGTERM) and a closed terminal (SIGHUP) all
/// cancel, clean up and report, then exit with 128 + the signal's number.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_interrupt_cancels_cleans_up_and_reports() {
    for (which, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143), (libc::SIGHUP, 129)] {
        let emulator = emulator_with(slow()).await;
        let child = start_run(&emulator);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert!(emulator.store().object_count() > 0 || emulator.store().session_count() > 0, "the run was under way");
        signal(&child, which);
        let output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert_eq!(output.status.code(), Some(code), "signal {which}: {stderr}");
        assert!(stderr.contains("cancelling: stopping uploads"), "{stderr}");
        assert!(stdout.contains("cancelled: the figures cover the rounds that finished"), "{stdout}");
        assert!(stdout.contains(", left 0"), "{stdout}");
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(emulator.store().object_count(), 0, "signal {which}: nothing of the run is left");
        // A session whose start was in flight at the signal is answered
        // before the upload is dropped, so it is cancelled with the rest.
        assert_eq!(emulator.store().open_session_count(), 0, "signal {which}: no upload session is left open");
    }
}

/// A signal that lands while the server is answering a session start (the
/// link's 700 ms latency holds the answer back after the session exists):
/// the run waits for the answer, so it can cancel that session too, rather
/// than drop the request and leave a session nobody can name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_start_in_flight_at_a_signal_is_answered_then_cancelled() {
    for transports in ["http-json", "grpc"] {
        let emulator =
            emulator_with(EmulatorOptions { latency: Duration::from_millis(700), ..EmulatorOptions::default() }).await;
        let child = start_run_on(&emulator, transports);
        let waited = std::time::Instant::now();
        while emulator.store().session_count() == 0 {
            assert!(waited.elapsed() < Duration::from_secs(30), "{transports}: no upload session started");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // The sessions exist on the server; their ids are 700 ms from the client.
        interrupt(&child);
        let output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(130), "{transports}: {stderr}");
        assert_eq!(emulator.store().open_session_count(), 0, "{transports}: every session was cancelled: {stderr}");
        assert_eq!(emulator.store().object_count(), 0, "{transports}: nothing of the run is left");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_ctrl_c_leaves_at_once_and_names_what_may_remain() {
    let emulator = emulator_with(slow()).await;
    let child = start_run(&emulator);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    interrupt(&child);
    tokio::time::sleep(Duration::from_millis(50)).await;
    interrupt(&child);
    let output = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap()).await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    let named: Vec<&str> = stderr.lines().filter(|l| l.starts_with("  gcs-speed-tui/")).collect();
    assert!(!named.is_empty(), "uploads cut off a moment ago may remain, and are named: {stderr}");
    let noun = if named.len() == 1 { "object" } else { "objects" };
    let counted = format!("left at once: {} {noun} of this run may remain", named.len());
    assert!(stderr.contains(&counted), "{stderr}");
    for name in &named {
        assert!(name.contains("/http-json/") || name.contains("/grpc/"), "{name}");
    }
}
