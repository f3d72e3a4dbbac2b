//! Appends at a known round trip: objects of 4 MiB written in 256 KiB
//! appends, each flushed and its persistence awaited (`--workload append
//! --flush-every 1`, 5 rounds: 80 flushes a transport), against `emulator
//! --latency 5ms` (every answer a 10 ms round trip after its request). gRPC
//! appends to appendable objects (BidiWriteObject, flush + state_lookup);
//! JSON, which has no appendable objects, sends the same bytes as a
//! resumable upload's 256 KiB chunks. Each flush's latency p50 and p99,
//! printed beside the floor one round trip sets, and over gRPC each flush's
//! time until a second stream had read it back (floor: two round trips, the
//! flush's and the read's), and gRPC's flushes once more with no reader
//! (`--read-back off`), for three trials, then as median (range).
//!
//! `cargo bench --bench appends`. The guide's append figures (docs/performance.md) are these.

#[path = "support/emulator_process.rs"]
mod emulator_process;

const TRIALS: usize = 3;
const ONE_WAY_MS: f64 = 5.0;

fn main() {
    let (mut emulator, target) = emulator_process::emulator("bench-appends", &["--latency", "5ms", "--retain"]);
    let floor = 2.0 * ONE_WAY_MS;
    let trials: Vec<Vec<Figure>> = (0..TRIALS).map(|_| trial(&target)).collect();
    let _ = emulator.kill();
    let _ = emulator.wait();
    println!(
        "256 KiB appends, each flushed, one round trip {floor:.0} ms (the floor of a flush; of a read back, two: {:.0} ms)",
        2.0 * floor
    );
    for (i, trial) in trials.iter().enumerate() {
        let said: Vec<String> =
            trial.iter().map(|f| format!("{} p50 {:.2} ms p99 {:.2} ms", f.name, f.p50, f.p99)).collect();
        println!("  trial {}: {}", i + 1, said.join(" · "));
    }
    for (index, figure) in trials[0].iter().enumerate() {
        let spread = |pick: fn(&Figure) -> f64| {
            let mut values: Vec<f64> = trials.iter().map(|t| pick(&t[index])).collect();
            values.sort_by(f64::total_cmp);
            format!("{:.2} ({:.2}-{:.2})", values[values.len() / 2], values[0], values[values.len() - 1])
        };
        println!(
            "  median (range) {}: p50 {} ms, p99 {} ms; floor {:.0} ms",
            figure.name,
            spread(|f| f.p50),
            spread(|f| f.p99),
            floor * figure.round_trips
        );
    }
}

/// One figure of a trial: what it is, its p50 and p99 in ms, and the round
/// trips its floor is.
struct Figure {
    name: String,
    p50: f64,
    p99: f64,
    round_trips: f64,
}

/// Each transport's flush latency and, over gRPC, the read back's; then
/// gRPC's flushes again with no reader (`--read-back off`), for its cost.
fn trial(target: &[String]) -> Vec<Figure> {
    let mut figures = appends(target, &["--read-back", "on"]);
    let alone = appends(target, &["--transports", "grpc", "--read-back", "off"]);
    figures.extend(alone.into_iter().map(|f| Figure { name: format!("{}, no reader", f.name), ..f }));
    figures
}

fn appends(target: &[String], extra: &[&str]) -> Vec<Figure> {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui"))
        .arg("run")
        .args(target)
        .args(["--workload", "append", "--size", "4MiB", "--append-size", "256KiB", "--flush-every", "1"])
        .args(["--concurrency", "1", "--iterations", "5", "--format", "json"])
        .args(extra)
        .stderr(std::process::Stdio::null())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    let appends = report["appends"].as_array().expect("the appends summary");
    let mut figures = Vec::new();
    for a in appends {
        let ms = |key: &str| a[key].as_f64().unwrap_or(f64::NAN) * 1e3;
        let transport = a["transport"].as_str().unwrap_or("?");
        let flushes = a["flushes"].as_u64().unwrap_or(0);
        let name = format!("{transport} flush ({flushes} flushes)");
        figures.push(Figure { name, p50: ms("flush_p50_s"), p99: ms("flush_p99_s"), round_trips: 1.0 });
        if let Some(read) = a["read_back"].as_u64().filter(|&n| n > 0) {
            let name = format!("{transport} read back by a second stream ({read})");
            figures.push(Figure { name, p50: ms("read_back_p50_s"), p99: ms("read_back_p99_s"), round_trips: 2.0 });
        }
    }
    figures
}
