//! Many small ranges of one large object: 1,008 random 64 KiB ranges of a
//! 1 GiB object, 16 wanted at once (`--concurrency 1 --ranges-per-object
//! 16`, 63 rounds), JSON (one GET with Range each, all 16 at once) against
//! gRPC BidiReadObject (the 16 on one stream) and against gRPC ReadObject
//! per range, and the two gRPC ways paired (`--transports
//! grpc-read-object,grpc`), over loopback and over a link with 1 ms each
//! way (`emulator --latency 1ms`: a 2 ms round trip). The object is uploaded
//! once per link and read through `--read-prefix`. Three trials; each
//! figure printed per trial, then as median (range). The ratio is the
//! second lane's ranges/s over the first's in the same run.
//!
//! `cargo bench --bench ranges`. The guide's ranged-read figures (docs/performance.md) are these.

#[path = "support/emulator_process.rs"]
mod emulator_process;

const TRIALS: usize = 3;
const BUCKET: &str = "bench-ranges";
const PREFIX: &str = "bench-ranges/object";

/// A pair of lanes: their names in the report, how gRPC reads, and what it is.
struct Case {
    lanes: [&'static str; 2],
    grpc_ranges: &'static str,
    said: &'static str,
}

const CASES: [Case; 3] = [
    Case {
        lanes: ["http-json", "grpc"],
        grpc_ranges: "bidi",
        said: "JSON GET per range against gRPC BidiReadObject (16 ranges on one stream)",
    },
    Case {
        lanes: ["http-json", "grpc"],
        grpc_ranges: "read-object",
        said: "JSON GET per range against gRPC ReadObject per range",
    },
    Case {
        lanes: ["grpc-read-object", "grpc"],
        grpc_ranges: "bidi",
        said: "gRPC ReadObject per range against gRPC BidiReadObject, paired in one run",
    },
];

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
        for case in &CASES {
            let trials: Vec<[Figures; 2]> = (0..TRIALS).map(|_| trial(&target, case)).collect();
            report(link, case, &trials);
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

fn trial(target: &[String], case: &Case) -> [Figures; 2] {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui"))
        .arg("run")
        .args(target)
        .args(["--workload", "ranges", "--read-prefix", PREFIX, "--range-size", "64KiB"])
        .args(["--concurrency", "1", "--ranges-per-object", "16", "--iterations", "63"])
        .args(["--grpc-ranges", case.grpc_ranges, "--transports", &case.lanes.join(","), "--format", "json"])
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
    case.lanes.map(figures)
}

fn report(link: &str, case: &Case, trials: &[[Figures; 2]]) {
    let [a, b] = case.lanes;
    println!("{link}: {}", case.said);
    let said =
        |f: &Figures| format!("{} ranges {:.0}/s p50 {:.2} ms p99 {:.2} ms", f.ranges, f.per_s, f.p50_ms, f.p99_ms);
    for (i, [first, second]) in trials.iter().enumerate() {
        let ratio = second.per_s / first.per_s;
        println!("  trial {}: {a} {} · {b} {} · {b}/{a} ranges/s {ratio:.2}x", i + 1, said(first), said(second));
    }
    let spread = |pick: &dyn Fn(&[Figures; 2]) -> f64, digits: usize| {
        let mut values: Vec<f64> = trials.iter().map(pick).collect();
        values.sort_by(f64::total_cmp);
        let (low, mid, high) = (values[0], values[values.len() / 2], values[values.len() - 1]);
        format!("{mid:.digits$} ({low:.digits$}-{high:.digits$})")
    };
    println!(
        "  median (range): {a} {}/s p50 {} ms p99 {} ms · {b} {}/s p50 {} ms p99 {} ms · {b}/{a} {}x",
        spread(&|t| t[0].per_s, 0),
        spread(&|t| t[0].p50_ms, 2),
        spread(&|t| t[0].p99_ms, 2),
        spread(&|t| t[1].per_s, 0),
        spread(&|t| t[1].p50_ms, 2),
        spread(&|t| t[1].p99_ms, 2),
        spread(&|t| t[1].per_s / t[0].per_s, 2),
    );
}
