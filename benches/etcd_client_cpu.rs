//! etcd over its HTTP gateway and over gRPC, as README reports it, and is
//! the client ever the bottleneck? One run each of the release binary's
//! `etcd run --mode put` and `--mode watch` against a real etcd on loopback
//! (fsync on, as deployed), both transports in the same paired rounds: each
//! transport's rate, bytes on the wire per op, client CPU per op against
//! etcd's own (its /metrics) with the goal that the client's is at most a
//! quarter of the server's, and the paired-rounds verdict.
//!
//! `cargo bench --bench etcd_client_cpu [-- put|watch] [--quick]` (quick:
//! fewer requests). Needs etcd and etcdctl on PATH (./scripts/test installs
//! them). The guide's etcd figures (docs/etcd.md) are the range of three such runs.

#[path = "../tests/etcd_server/mod.rs"]
mod etcd_server;

/// Client CPU per op, as a share of etcd's, at most this.
const GOAL: f64 = 0.25;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let picks: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let requests = if quick { "500" } else { "2000" };
    for mode in ["put", "watch"].into_iter().filter(|m| picks.is_empty() || picks.iter().any(|p| p == m)) {
        // A fresh etcd each: ranges and watches slow down with etcd's history.
        let etcd = etcd_server::Etcd::start_durable();
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui"))
            .args(["etcd", "run", "--endpoints", &etcd.url, "--mode", mode, "--clients", "10"])
            .args(["--requests", requests, "--iterations", "5", "--format", "json"])
            .output()
            .expect("the binary runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        print_report(mode, requests, &report);
    }
}

fn print_report(mode: &str, requests: &str, report: &serde_json::Value) {
    println!(
        "etcd {mode}, 10 clients x {requests} requests x 5 paired rounds, 8 B keys, 256 B values, fsync on ({} CPUs shared by client and etcd)",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "{:<10} {:>9} {:>10} {:>8} {:>8} {:>18} {:>16} {:>8}  goal",
        "transport", "ops/s", "p50 ms", "sent B", "recv B", "client CPU µs/op", "etcd CPU µs/op", "ratio"
    );
    for t in report["transports"].as_array().unwrap() {
        let figure = |field: &str| t[field].as_f64().unwrap_or(f64::NAN);
        let (client, server) = (figure("client_cpu_us_per_op"), figure("server_cpu_us_per_op"));
        let ratio = client / server;
        let verdict = if ratio <= GOAL { "met" } else { "not met" };
        println!(
            "{:<10} {:>9.0} {:>10.3} {:>8.0} {:>8.0} {client:>18.1} {server:>16.1} {ratio:>8.3}  <= {GOAL}: {verdict}",
            t["transport"].as_str().unwrap_or("?"),
            figure("ops_per_s"),
            t["latency"]["p50_ms"].as_f64().unwrap_or(f64::NAN),
            figure("wire_sent_per_op"),
            figure("wire_received_per_op"),
        );
    }
    println!("{}\n", report["comparison"]["sentence"].as_str().unwrap_or("no comparison"));
}
