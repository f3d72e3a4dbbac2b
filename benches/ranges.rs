//! Many small ranges of one large object: 1,008 random 64 KiB ranges of a
//! 1 GiB object, 16 wanted at once (`--concurrency 1 --ranges-per-object
//! 16`, 63 rounds), JSON (one GET with Range each, all 16 at once) against
//! gRPC BidiReadObject (the 16 on one stream) and against gRPC ReadObject
//! per range, over loopback and over a link with 1 ms each way (`emulator
//! --latency 1ms`: a 2 ms round trip). The object is uploaded once per link
//! and read through `--read-prefix`. Three trials; each figure printed per
//! trial, then as median (range). The ratio is gRPC's ranges/s over JSON's
//! in the same run.
//!
//! `cargo bench --bench ranges`. README's ranged-read figures are these.

#[path = "support/emulator_process.rs"]
mod emulator_process;

const TRIALS: usize = 3;
const BUCKET: &str = "bench-ranges";
const PREFIX: &str = "bench-ranges/object";

/// One run's figures for one transport: ranges/s and per-range complete p50, p99 (ms).
struct Figures {
    ranges: u64,
    per_s: f64,
    p50_ms: f64,
    p99_ms: f64,
}

fn main() {
    for (link, latency) in [("loopback", None), ("2 ms round trip", Some("1ms"))] {
        let mut extra = vec!["--retain"];
        if let Some(latency) = latency {
            extra.extend(["--latency", latency]);
        }
        let (mut emulator, target) = emulator_process::emulator(BUCKET, &extra);
        upload_the_object(&target);
        for grpc in ["bidi", "read-object"] {
            let trials: Vec<[Figures; 2]> = (0..TRIALS).map(|_| trial(&target, grpc)).collect();
            report(link, grpc, &trials);
        }
        let _ = emulator.kill();
        let _ = emulator.wait();
    }
}

fn upload_the_object(target: &[String]) {
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui"))
        .arg("run")
        .args(target)
        .args(["--size", "1GiB", "--concurrency", "1", "--iterations", "1", "--transports", "grpc"])
        .args(["--warmup=false", "--cleanup=false", "--prefix", PREFIX])
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "the 1 GiB object is uploaded");
}

fn trial(target: &[String], grpc: &str) -> [Figures; 2] {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui"))
        .arg("run")
        .args(target)
        .args(["--workload", "ranges", "--read-prefix", PREFIX, "--range-size", "64KiB"])
        .args(["--concurrency", "1", "--ranges-per-object", "16", "--iterations", "63", "--grpc-ranges", grpc])
        .args(["--format", "json"])
        .stderr(std::process::Stdio::null())
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).expect("a JSON report");
    let ranges = report["ranges"].as_array().expect("the ranges summary");
    let figures = |transport: &str| {
        let summary = ranges.iter().find(|r| r["transport"] == transport).expect("each transport's ranges");
        let ms = |key: &str| summary[key].as_f64().unwrap_or(f64::NAN) * 1e3;
        Figures {
            ranges: summary["ranges"].as_u64().unwrap_or(0),
            per_s: summary["ranges_per_s"].as_f64().unwrap_or(f64::NAN),
            p50_ms: ms("complete_p50_s"),
            p99_ms: ms("complete_p99_s"),
        }
    };
    [figures("http-json"), figures("grpc")]
}

fn report(link: &str, grpc: &str, trials: &[[Figures; 2]]) {
    let method = if grpc == "bidi" { "BidiReadObject (16 ranges on one stream)" } else { "ReadObject per range" };
    println!("{link}: JSON GET per range against gRPC {method}");
    for (i, [json, grpc]) in trials.iter().enumerate() {
        println!(
            "  trial {}: JSON {} ranges {:.0}/s p50 {:.2} ms p99 {:.2} ms · gRPC {} ranges {:.0}/s p50 {:.2} ms p99 {:.2} ms · gRPC/JSON ranges/s {:.2}x",
            i + 1,
            json.ranges,
            json.per_s,
            json.p50_ms,
            json.p99_ms,
            grpc.ranges,
            grpc.per_s,
            grpc.p50_ms,
            grpc.p99_ms,
            grpc.per_s / json.per_s
        );
    }
    let spread = |pick: &dyn Fn(&[Figures; 2]) -> f64, digits: usize| {
        let mut values: Vec<f64> = trials.iter().map(pick).collect();
        values.sort_by(f64::total_cmp);
        let (low, mid, high) = (values[0], values[values.len() / 2], values[values.len() - 1]);
        format!("{mid:.digits$} ({low:.digits$}-{high:.digits$})")
    };
    println!(
        "  median (range): JSON {}/s p50 {} ms p99 {} ms · gRPC {}/s p50 {} ms p99 {} ms · gRPC/JSON {}x",
        spread(&|t| t[0].per_s, 0),
        spread(&|t| t[0].p50_ms, 2),
        spread(&|t| t[0].p99_ms, 2),
        spread(&|t| t[1].per_s, 0),
        spread(&|t| t[1].p50_ms, 2),
        spread(&|t| t[1].p99_ms, 2),
        spread(&|t| t[1].per_s / t[0].per_s, 2),
    );
}
