//! Does a long run hold its memory and keep its report small? Runs the
//! binary as a user does, against an emulator of its own process (`run
//! --endpoint ... --size 1KiB --concurrency 64 --duration 10m`: the client's
//! full rate), samples the client's RSS every 10 s, and prints each sample,
//! the slope after the first minute (goal: under 1 MiB a minute) and the
//! report's size (goal: under 2 MiB).
//!
//! `cargo bench --bench soak` (`-- --minutes N`: a run of N minutes).

use std::io::{BufRead, Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_gcs-speed-tui");
const SAMPLE_EVERY: Duration = Duration::from_secs(10);

/// The process's resident memory, MiB (from /proc).
fn rss_mib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<f64>().ok()? / 1024.0)
}

/// Least-squares slope of (minutes, MiB).
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let num: f64 = points.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let den: f64 = points.iter().map(|(x, _)| (x - mx).powi(2)).sum();
    num / den
}

/// A bucket made on the emulator at `json` (`http://127.0.0.1:PORT`).
fn make_bucket(json: &str, name: &str) {
    let address = json.trim_start_matches("http://");
    let body = format!("{{\"name\":\"{name}\"}}");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    let request = format!(
        "POST /storage/v1/b?project=p HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let minutes: u64 =
        args.iter().position(|a| a == "--minutes").and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(10);
    let mut emulator = Command::new(BIN).arg("emulator").stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut first = String::new();
    std::io::BufReader::new(emulator.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let (json, grpc) = first
        .trim()
        .split_once(" grpc=")
        .map(|(j, g)| (j.trim_start_matches("json=").to_string(), g.to_string()))
        .unwrap();
    make_bucket(&json, "soak-bucket");
    let report = std::env::temp_dir().join(format!("soak-{}.json", std::process::id()));
    let duration = format!("{minutes}m");
    let run_args = ["run", "--endpoint", &json, "--grpc-endpoint", &grpc, "--bucket", "soak-bucket", "--size", "1KiB"];
    let more =
        ["--concurrency", "64", "--duration", &duration, "--format", "json", "--output", report.to_str().unwrap()];
    let mut client = Command::new(BIN).args(run_args).args(more).stderr(Stdio::null()).spawn().unwrap();
    println!(
        "soak: run --size 1KiB --concurrency 64 --duration {duration} against an emulator of its own; client RSS every 10 s"
    );
    let started = Instant::now();
    let mut samples = Vec::new();
    while client.try_wait().unwrap().is_none() {
        if let Some(mib) = rss_mib(client.id()) {
            let at_min = started.elapsed().as_secs_f64() / 60.0;
            println!("  {at_min:>5.2} min  {mib:>7.1} MiB");
            samples.push((at_min, mib));
        }
        std::thread::sleep(SAMPLE_EVERY);
    }
    let _ = emulator.kill();
    let _ = emulator.wait();
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    let _ = std::fs::remove_file(&report);
    let parsed: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let objects: u64 =
        parsed["transports"].as_array().map_or(0, |t| t.iter().filter_map(|t| t["objects"].as_u64()).sum());
    let after_first: Vec<(f64, f64)> = samples.iter().copied().filter(|(at, _)| *at >= 1.0).collect();
    let slope = if after_first.len() >= 3 { slope(&after_first) } else { f64::NAN };
    let peak = samples.iter().map(|s| s.1).fold(0.0, f64::max);
    let report_mib = text.len() as f64 / (1 << 20) as f64;
    println!("objects (both transports): {objects}; peak RSS {peak:.1} MiB");
    let met = |ok: bool| if ok { "met" } else { "not met" };
    println!("RSS slope after the first minute: {slope:+.3} MiB/min (goal < 1): {}", met(slope < 1.0));
    println!("report: {report_mib:.2} MiB (goal < 2): {}", met(report_mib < 2.0 && !text.is_empty()));
}
