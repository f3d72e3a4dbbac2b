//! Is the client ever the bottleneck against etcd? One run of the release
//! binary's `etcd run --mode put` against a real etcd on loopback (fsync on,
//! as deployed), both transports in the same paired rounds: each transport's
//! client CPU per put against etcd's own CPU per put (its /metrics), and the
//! goal that the client's is at most a quarter of the server's.
//!
//! `cargo bench --bench etcd_client_cpu` (`-- --quick`: fewer requests).
//! Needs etcd and etcdctl on PATH (./scripts/test installs them).

#[path = "../tests/etcd_server/mod.rs"]
mod etcd_server;

/// Client CPU per put, as a share of etcd's, at most this.
const GOAL: f64 = 0.25;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let requests = if quick { "500" } else { "2000" };
    let etcd = etcd_server::Etcd::start_durable();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui"))
        .args(["etcd", "run", "--endpoints", &etcd.url, "--mode", "put", "--clients", "10"])
        .args(["--requests", requests, "--iterations", "5", "--format", "json"])
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    println!(
        "etcd put, 10 clients x {requests} requests x 5 paired rounds, 8 B keys, 256 B values, fsync on ({} CPUs shared by client and etcd)",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "{:<10} {:>9} {:>18} {:>16} {:>8}  goal",
        "transport", "ops/s", "client CPU µs/op", "etcd CPU µs/op", "ratio"
    );
    for t in report["transports"].as_array().unwrap() {
        let figure = |field: &str| t[field].as_f64().unwrap_or(f64::NAN);
        let (client, server) = (figure("client_cpu_us_per_op"), figure("server_cpu_us_per_op"));
        let ratio = client / server;
        let verdict = if ratio <= GOAL { "met" } else { "not met" };
        println!(
            "{:<10} {:>9.0} {client:>18.1} {server:>16.1} {ratio:>8.3}  <= {GOAL}: {verdict}",
            t["transport"].as_str().unwrap_or("?"),
            figure("ops_per_s")
        );
    }
    println!("{}", report["comparison"]["sentence"].as_str().unwrap_or("no comparison"));
}
