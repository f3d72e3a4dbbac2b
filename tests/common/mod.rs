//! Shared helpers for the integration tests: a real emulator on port 0, a raw
//! HTTP client, and a way to run the benchmark against an emulator.
#![allow(dead_code)]

pub mod fleet;
pub mod lookalike;
pub mod synthetic;

use gcs_speed_tui::config::{Environment, Options};
use gcs_speed_tui::emulator::{Emulator, EmulatorOptions};
use gcs_speed_tui::engine::events::RunEvent;
use gcs_speed_tui::engine::outlet::Outlets;
use gcs_speed_tui::gcs::report::RunReport;
use gcs_speed_tui::gcs::runner::Runner;
use std::path::PathBuf;
use tokio_util::sync::CancellationToken;

pub const BUCKET: &str = "test-bucket";
pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * 1024;

pub async fn emulator() -> Emulator {
    emulator_with(EmulatorOptions::default()).await
}

pub async fn emulator_with(mut options: EmulatorOptions) -> Emulator {
    if options.buckets.is_empty() {
        options.buckets.push(BUCKET.into());
    }
    Emulator::start(options).await.expect("the emulator starts on port 0")
}

/// A client that does not follow 308s (they mean "resume incomplete").
pub fn http() -> reqwest::Client {
    gcs_speed_tui::tls::install_crypto_provider();
    reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap()
}

/// Options that point both transports at this emulator, with small defaults.
pub fn options_for(emulator: &Emulator) -> Options {
    Options {
        bucket: BUCKET.into(),
        endpoint: emulator.json_url(),
        grpc_endpoint: emulator.grpc_addr().to_string(),
        size: "1MiB".into(),
        iterations: "2".into(),
        warmup_size: "256KiB".into(),
        ..Options::default()
    }
}

/// Validates, connects and runs to the end, as `run` does.
pub async fn run_bench(options: Options) -> RunReport {
    run_bench_with(options, CancellationToken::new()).await
}

pub async fn run_bench_with(options: Options, cancel: CancellationToken) -> RunReport {
    run_bench_events(options, cancel).await.0
}

/// Runs to the end with every object's record streamed to `samples`.
pub async fn run_bench_sampled(options: Options, samples: &std::path::Path) -> RunReport {
    let begin = gcs_speed_tui::targets::Begin { start_at: None, samples: Some(samples.to_path_buf()) };
    run_bench_begun(options, CancellationToken::new(), begin).await.0
}

/// Runs to the end and keeps every event the runner sent.
pub async fn run_bench_events(options: Options, cancel: CancellationToken) -> (RunReport, Vec<RunEvent>) {
    run_bench_begun(options, cancel, Default::default()).await
}

async fn run_bench_begun(
    options: Options,
    cancel: CancellationToken,
    begin: gcs_speed_tui::targets::Begin,
) -> (RunReport, Vec<RunEvent>) {
    let config = options.validate(&Environment::default()).expect("valid options");
    let (client, connected) =
        gcs_speed_tui::gcs::planned::GcsPlan::of(config.clone(), &gcs_speed_tui::built_in::BUILT_IN)
            .connect_on_client_threads()
            .await
            .expect("connects");
    let (events, mut receiver) = tokio::sync::mpsc::channel(1024);
    let drain = tokio::spawn(async move {
        let mut seen = Vec::new();
        while let Some(event) = receiver.recv().await {
            seen.push(event);
        }
        seen
    });
    let report = client.run(Runner::new(config, connected, cancel).with_events(events).starting(begin).run()).await;
    (report, drain.await.unwrap())
}

/// Runs the real binary with these arguments and environment (and without
/// the emulator variables of the shell that runs the tests).
pub fn run(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut command = std::process::Command::new(binary());
    command.args(args).env_remove("STORAGE_EMULATOR_HOST").env_remove("STORAGE_EMULATOR_HOST_GRPC");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

/// `gcs-speed-tui emulator ARGS` running, with stderr piped, and the first
/// line of its stdout (`json=URL grpc=ADDR`), once it has printed it.
pub fn spawn_emulator(args: &[&str]) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(binary())
        .arg("emulator")
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    (child, first.trim().to_string())
}

pub fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_gcs-speed-tui"))
}

/// The interop clients' Python, installed by ./scripts/test into .venv.
pub fn venv_bin(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin").join(name);
    assert!(
        path.exists(),
        "{} is missing: run ./scripts/test, which installs the interop clients into .venv",
        path.display()
    );
    path
}

pub fn crc32c_b64(data: &[u8]) -> String {
    gcs_protocol::crc::crc32c_base64(crc32c::crc32c(data))
}

/// Bytes on the wire per payload byte, TCP's retransmissions left out: the
/// protocol's own overhead, which a busy loopback's dropped segments do not change.
pub fn framing_ratio(t: &gcs_speed_tui::gcs::stats::TransportSummary) -> f64 {
    let payload = t.wire_bytes as f64 / t.wire_ratio.expect("complete rounds are metered");
    assert!(t.wire_retransmitted_bytes <= t.wire_bytes, "retransmissions are part of the wire bytes");
    (t.wire_bytes - t.wire_retransmitted_bytes) as f64 / payload
}

/// gRPC's rate over HTTP/JSON's, the geometric mean over the rounds both
/// completed, worked out from a GCS report's rounds (bytes over time each).
pub fn paired_geomean(rounds: &serde_json::Value) -> f64 {
    let rate = |transport: &str, index: u64| {
        let round = rounds.as_array().unwrap().iter().find(|r| r["transport"] == transport && r["round"] == index)?;
        (round["ok"] == true).then(|| round["bytes"].as_f64().unwrap() / round["elapsed_s"].as_f64().unwrap())
    };
    let logs: Vec<f64> = (1..=3).filter_map(|i| Some((rate("grpc", i)? / rate("http-json", i)?).ln())).collect();
    assert_eq!(logs.len(), 3, "three complete pairs");
    (logs.iter().sum::<f64>() / logs.len() as f64).exp()
}
