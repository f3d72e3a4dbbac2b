//! How well the open loop keeps its schedule (issue 23): at 1,000 and
//! 10,000 arrivals a second for 10 s, the arrivals started against those
//! offered (goal: within 1%) and the lateness of each start (actual minus
//! intended; goal: p99 under 100 µs while the client is not saturated).
//! Three rows a rate, measured in the same run:
//! - the pacer alone, its arrivals doing nothing: the baseline;
//! - GCS reads of 1 KiB objects on the built-in emulator (both transports);
//! - etcd puts on a real etcd on loopback (both transports).
//!
//! `cargo bench --bench pacing [-- --quick]` (quick: 2 s a rate). Needs
//! etcd on PATH (./scripts/test installs it).

#[path = "../tests/etcd_server/mod.rs"]
mod etcd_server;

use gcs_speed_tui::engine::open_loop::{OpenLoop, Spacing, run_paced};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

const RATES: [u32; 2] = [1_000, 10_000];

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let seconds: u32 = if quick { 2 } else { 10 };
    println!(
        "open-loop pacing, {seconds} s a rate and transport, constant arrivals ({} CPUs shared by client and server)",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "{:<34} {:>9} {:>9} {:>8} {:>8} {:>7} {:>14}",
        "", "offered", "started", "kept", "late", "dropped", "lateness p99"
    );
    let etcd = etcd_server::Etcd::start();
    for rate in RATES {
        baseline(rate, seconds);
        let rate_text = rate.to_string();
        let duration = format!("{}s", 2 * seconds);
        let gcs = binary(&[
            "run",
            "--workload",
            "download",
            "--size",
            "1KiB",
            "--concurrency",
            "1000",
            "--rate",
            &rate_text,
            "--duration",
            &duration,
            "--warmup=false",
            "--format",
            "json",
        ]);
        rows(&format!("GCS reads at {rate}/s"), &gcs["open_loop"][0]);
        let requests = (rate * seconds / 10).to_string();
        let etcd_report = binary(&[
            "etcd",
            "run",
            "--endpoints",
            &etcd.url,
            "--mode",
            "put",
            "--clients",
            "1",
            "--requests",
            &requests,
            "--iterations",
            "10",
            "--rate",
            &rate_text,
            "--warmup=false",
            "--format",
            "json",
        ]);
        rows(&format!("etcd puts at {rate}/s"), &etcd_report["open_loop"]);
    }
    println!(
        "kept: arrivals started / offered; late: started over 1 ms after its instant; goal: kept >= 99%, lateness p99 < 100 µs"
    );
}

/// The pacer with arrivals that do nothing: what the schedule costs by itself.
fn baseline(rate: u32, seconds: u32) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (_, tally) = runtime.block_on(async {
        let open = OpenLoop { rate: rate as f64, spacing: Spacing::Constant, max_in_flight: 1000, round_s: None };
        let offsets = open.offsets((rate * seconds) as usize, 1);
        let stop = Arc::new(AtomicBool::new(false));
        run_paced(&open, offsets, stop, "pacer", |ticket| async move { drop(ticket.start().await) }).await
    });
    let p99_us = tally.lateness.value_at_quantile(0.99);
    print_row(
        &format!("pacer alone at {rate}/s"),
        tally.offered,
        tally.started,
        tally.late,
        tally.dropped,
        p99_us as f64,
    );
    println!(
        "    pacing used {:.0}% of a CPU: the pacer's thread {:.0}%, the arrivals' tasks waiting out its lead ({} µs at the end) {:.0}%",
        100.0 * (tally.pacer_cpu_s + tally.lead_waited_s) / seconds as f64,
        100.0 * tally.pacer_cpu_s / seconds as f64,
        tally.lead.as_micros(),
        100.0 * tally.lead_waited_s / seconds as f64
    );
}

/// A report of the binary's run (its exit code aside: a saturated run may
/// have failed requests, and that is what the rows show).
fn binary(args: &[&str]) -> Value {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui")).args(args).output().expect("runs");
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{args:?}: {}", String::from_utf8_lossy(&output.stderr)));
    if !output.status.success() {
        println!(
            "  (exit {:?}: {})",
            output.status.code(),
            report["outcome_detail"].as_str().unwrap_or("see the report")
        );
    }
    report
}

fn rows(what: &str, summary: &Value) {
    for row in summary["transports"].as_array().expect("an open-loop summary") {
        let count = |field: &str| row[field].as_u64().unwrap_or(0);
        let p99_us = row["lateness_p99_ms"].as_f64().unwrap_or(f64::NAN) * 1000.0;
        let name = format!("{what} {}", row["transport"].as_str().unwrap_or(""));
        print_row(&name, count("offered"), count("started"), count("late"), count("dropped"), p99_us);
        if let Some(why) = row["not_sustained"].as_str() {
            println!("    did not sustain the rate: {why}");
        }
    }
}

fn print_row(name: &str, offered: u64, started: u64, late: u64, dropped: u64, lateness_p99_us: f64) {
    let kept = 100.0 * started as f64 / offered.max(1) as f64;
    println!("{name:<34} {offered:>9} {started:>9} {kept:>7.2}% {late:>8} {dropped:>7} {lateness_p99_us:>11.0} µs");
}
