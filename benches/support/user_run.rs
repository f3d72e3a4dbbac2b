//! What a user's `run` gives, measured by running the binary as a user does
//! (`run --emulator --size 1GiB --chunk-size 0 --iterations 5`, then the same
//! with `--workload download`), so the bench's in-process cases can be held
//! against it: same machine, same minute, each against the raw TCP limit
//! measured just before it.

use super::{max, median, min};
use serde_json::Value;

const ITERATIONS: &str = "5";

/// One user's run: each transport's throughput, over the raw limit.
pub struct UserRun {
    pub download: bool,
    /// (transport, MiB/s, x raw)
    pub rates: Vec<(String, f64, f64)>,
}

pub fn user_run(size: u64, download: bool, raw_mib_s: f64) -> UserRun {
    let size = format!("{size}B");
    let workload = if download { "download" } else { "upload" };
    let args = [
        "run",
        "--emulator",
        "--size",
        &size,
        "--chunk-size",
        "0",
        "--iterations",
        ITERATIONS,
        "--workload",
        workload,
        "--format",
        "json",
    ];
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui")).args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).expect("the run's JSON report");
    let rates = report["transports"]
        .as_array()
        .expect("the report's transports")
        .iter()
        .map(|t| {
            let rate = t["throughput_mib_s"].as_f64().expect("a timed transport");
            (t["transport"].as_str().unwrap().to_string(), rate, rate / raw_mib_s)
        })
        .collect();
    UserRun { download, rates }
}

/// The user's runs as rows beside the bench's cases: median and range of
/// each transport's ratio to raw, and gRPC over JSON in the same runs.
pub fn print_user_runs(runs: &[UserRun], size: u64) {
    for download in [false, true] {
        let of_kind: Vec<&UserRun> = runs.iter().filter(|r| r.download == download).collect();
        if of_kind.is_empty() {
            continue;
        }
        let what = if download { "read " } else { "write" };
        for transport in ["http-json", "grpc"] {
            let rates: Vec<f64> =
                of_kind.iter().flat_map(|r| r.rates.iter().filter(|t| t.0 == transport).map(|t| t.1)).collect();
            let ratios: Vec<f64> =
                of_kind.iter().flat_map(|r| r.rates.iter().filter(|t| t.0 == transport).map(|t| t.2)).collect();
            if ratios.is_empty() {
                continue;
            }
            let label = format!("user's run: {transport:<9} {what} 1 x {:>4} MiB x {ITERATIONS}", size >> 20);
            let spread = format!("{:.2}-{:.2}x", min(&ratios), max(&ratios));
            println!("{label:<60} {:>10.0} {:>8.2}x {spread:>13}", median(&rates), median(&ratios));
        }
        let grpc_of_json: Vec<f64> = of_kind
            .iter()
            .filter_map(|r| {
                let of = |name: &str| r.rates.iter().find(|t| t.0 == name).map(|t| t.1);
                Some(of("grpc")? / of("http-json")?)
            })
            .collect();
        if !grpc_of_json.is_empty() {
            println!(
                "user's run: grpc / http-json {what}: {:.2} (range {:.2}-{:.2} over {} runs)",
                median(&grpc_of_json),
                min(&grpc_of_json),
                max(&grpc_of_json),
                grpc_of_json.len()
            );
        }
    }
}
