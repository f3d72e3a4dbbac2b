//! Appends at a known round trip: objects of 4 MiB written in 256 KiB
//! appends, each flushed and its persistence awaited (`--workload append
//! --flush-every 1`, 5 rounds: 80 flushes a transport), against `emulator
//! --latency 5ms` (every answer a 10 ms round trip after its request). gRPC
//! appends to appendable objects (BidiWriteObject, flush + state_lookup);
//! JSON, which has no appendable objects, sends the same bytes as a
//! resumable upload's 256 KiB chunks. Each flush's latency p50 and p99,
//! printed beside the floor one round trip sets, for three trials, then as
//! median (range).
//!
//! `cargo bench --bench appends`. README's append figures are these.

#[path = "support/emulator_process.rs"]
mod emulator_process;

const TRIALS: usize = 3;
const ONE_WAY_MS: f64 = 5.0;

fn main() {
    let (mut emulator, target) = emulator_process::emulator("bench-appends", &["--latency", "5ms"]);
    let floor = 2.0 * ONE_WAY_MS;
    let trials: Vec<Vec<(String, f64, f64)>> = (0..TRIALS).map(|_| trial(&target)).collect();
    let _ = emulator.kill();
    let _ = emulator.wait();
    println!("256 KiB appends, each flushed, one round trip {floor:.0} ms (the floor of a flush)");
    for (i, trial) in trials.iter().enumerate() {
        let said: Vec<String> =
            trial.iter().map(|(t, p50, p99)| format!("{t} p50 {p50:.2} ms p99 {p99:.2} ms")).collect();
        println!("  trial {}: {}", i + 1, said.join(" · "));
    }
    for (index, (transport, ..)) in trials[0].iter().enumerate() {
        let spread = |pick: fn(&(String, f64, f64)) -> f64| {
            let mut values: Vec<f64> = trials.iter().map(|t| pick(&t[index])).collect();
            values.sort_by(f64::total_cmp);
            format!("{:.2} ({:.2}-{:.2})", values[values.len() / 2], values[0], values[values.len() - 1])
        };
        println!(
            "  median (range) {transport}: p50 {} ms, p99 {} ms; floor {floor:.0} ms",
            spread(|t| t.1),
            spread(|t| t.2)
        );
    }
}

/// Each transport's (name with its method, flush p50 ms, flush p99 ms).
fn trial(target: &[String]) -> Vec<(String, f64, f64)> {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui"))
        .arg("run")
        .args(target)
        .args(["--workload", "append", "--size", "4MiB", "--append-size", "256KiB", "--flush-every", "1"])
        .args(["--concurrency", "1", "--iterations", "5", "--format", "json"])
        .stderr(std::process::Stdio::null())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    let appends = report["appends"].as_array().expect("the appends summary");
    appends
        .iter()
        .map(|a| {
            let ms = |key: &str| a[key].as_f64().unwrap_or(f64::NAN) * 1e3;
            let flushes = a["flushes"].as_u64().unwrap_or(0);
            (
                format!("{} ({flushes} flushes)", a["transport"].as_str().unwrap_or("?")),
                ms("flush_p50_s"),
                ms("flush_p99_s"),
            )
        })
        .collect()
}
