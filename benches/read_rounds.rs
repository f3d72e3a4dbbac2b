//! Are gRPC reads at speed from the first round? Each trial runs the binary
//! as a user does (`run --emulator --workload download --transports grpc
//! --size 1GiB --iterations 3`), with the default receive window and with
//! `--grpc-window auto` (the adaptive window, ramping) beside it in the same
//! run, and prints every round's rate and round 3 over round 1: the goal is
//! within 15% with the default.
//!
//! `cargo bench --bench read_rounds` (`-- --quick`: 256 MiB objects).

use serde_json::Value;

const TRIALS: usize = 3;
const GOAL: f64 = 0.15;

/// Each round's MiB/s of one run.
fn rounds(size: &str, window: Option<&str>) -> Vec<f64> {
    let mut args = vec!["run", "--emulator", "--workload", "download", "--transports", "grpc", "--size", size];
    args.extend(["--iterations", "3", "--format", "json"]);
    if let Some(window) = window {
        args.extend(["--grpc-window", window]);
    }
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui")).args(&args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let rounds = report["rounds"].as_array().unwrap();
    rounds
        .iter()
        .map(|r| r["bytes"].as_f64().unwrap() / r["elapsed_s"].as_f64().unwrap() / (1u64 << 20) as f64)
        .collect()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let size = if quick { "256MiB" } else { "1GiB" };
    println!("gRPC reads of {size} objects, 3 rounds a run, {TRIALS} trials (MiB/s per round)");
    let mut spreads = Vec::new();
    for trial in 1..=TRIALS {
        for (name, window) in [("default window (16 MiB)", None), ("--grpc-window auto", Some("auto"))] {
            let rates = rounds(size, window);
            let spread = (rates[2] - rates[0]).abs() / rates[0];
            let shown: Vec<String> = rates.iter().map(|r| format!("{r:>7.0}")).collect();
            println!("trial {trial}  {name:<24} {}   round 3 / round 1 {:.2}", shown.join(" "), rates[2] / rates[0]);
            if window.is_none() {
                spreads.push(spread);
            }
        }
    }
    spreads.sort_by(f64::total_cmp);
    let (median, worst) = (spreads[spreads.len() / 2], spreads[spreads.len() - 1]);
    let verdict = if worst <= GOAL { "met" } else { "not met" };
    println!(
        "default window: rounds 1 and 3 apart by {:.0}% median, {:.0}% at most; goal within {:.0}%: {verdict}",
        median * 100.0,
        worst * 100.0,
        GOAL * 100.0
    );
}
