//! Is `grpc run`'s dynamic client (messages built from the .proto at run
//! time, a request template rendered per call) ever the bottleneck next to
//! a compiled one? The same puts against the same real etcd (fsync on), by
//! `etcd run --mode put` (prost-generated types) and by `grpc run
//! etcdserverpb.KV/Put` (etcd's rpc.proto, Debian's copy), alternated three
//! times: client CPU per call on each transport, and the dynamic over the
//! compiled, taken in the same run. Goal: gRPC's ratio at most 1.3.
//!
//! `cargo bench --bench grpc_dynamic_cpu [-- --quick]`. Needs etcd, etcdctl
//! and golang-etcd-server-dev (./scripts/test installs them).

#[path = "../tests/etcd_server/mod.rs"]
mod etcd_server;

/// Dynamic client CPU per gRPC call over the compiled one's, at most this.
const GOAL: f64 = 1.3;
const GOCODE: &str = "/usr/share/gocode/src";

/// Client CPU µs per op of each transport, from a report's JSON.
fn cpu(report: &serde_json::Value, transport: &str) -> f64 {
    let t = report["transports"].as_array().unwrap().iter().find(|t| t["transport"] == transport).unwrap();
    t["client_cpu_us_per_op"].as_f64().unwrap_or(f64::NAN)
}

/// Calls (ops) per second of a transport, from a report's JSON.
fn rate(report: &serde_json::Value, transport: &str) -> f64 {
    let t = report["transports"].as_array().unwrap().iter().find(|t| t["transport"] == transport).unwrap();
    t["ops_per_s"].as_f64().unwrap_or(f64::NAN)
}

fn run(args: &[String]) -> serde_json::Value {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui")).args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let requests = if quick { "100" } else { "500" };
    let etcd = etcd_server::Etcd::start_durable();
    let shape = ["--clients", "10", "--requests", requests, "--iterations", "5", "--format", "json"].map(String::from);
    let compiled: Vec<String> =
        ["etcd", "run", "--endpoints", &etcd.url, "--mode", "put", "--key-size", "8", "--value-size", "256"]
            .iter()
            .map(|s| s.to_string())
            .chain(shape.clone())
            .collect();
    // The same 256 B value, and a key of the same shape as etcd run's
    // (prefix, run ID, a number per call).
    let value = base64::Engine::encode(
        &base64::engine::general_purpose::STANDARD,
        &"abcdefghijklmnopqrstuvwxyz".repeat(10)[..256],
    );
    let data = format!(r#"{{"key":"{{{{base64 gcs-speed-tui/{{{{run}}}}/{{{{seq}}}}}}}}","value":"{value}"}}"#);
    let mut dynamic: Vec<String> = ["grpc", "run", "--grpc-endpoint", &etcd.url, "--method", "etcdserverpb.KV/Put"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    dynamic.extend(["--data".into(), data, "--ignore-field".into(), "header.revision".into()]);
    dynamic.extend(["--proto".into(), format!("{GOCODE}/go.etcd.io/etcd/etcdserver/etcdserverpb/rpc.proto")]);
    for dir in
        ["go.etcd.io", "github.com/gogo/protobuf", "github.com/grpc-ecosystem/grpc-gateway/third_party/googleapis"]
    {
        dynamic.extend(["-I".into(), format!("{GOCODE}/{dir}")]);
    }
    dynamic.extend(shape);
    println!("etcd puts, 10 clients x {requests} calls x 5 paired rounds, 256 B values, fsync on");
    println!("client CPU µs per call and calls/s, compiled (etcd run) and dynamic (grpc run), and dynamic/compiled");
    println!(
        "{:<4} {:>9} {:>9} {:>9} {:>9} {:>6} {:>6}   {:>9} {:>9} {:>9} {:>9} {:>6} {:>6}",
        "run",
        "grpc µs",
        "calls/s",
        "dyn µs",
        "calls/s",
        "CPU",
        "rate",
        "http µs",
        "calls/s",
        "dyn µs",
        "calls/s",
        "CPU",
        "rate"
    );
    let mut ratios = Vec::new();
    for n in 1..=3 {
        let (c, d) = (run(&compiled), run(&dynamic));
        let mut line = format!("{n:<4}");
        let mut pair = Vec::new();
        for t in ["grpc", "http-json"] {
            let (cpu_ratio, rate_ratio) = (cpu(&d, t) / cpu(&c, t), rate(&d, t) / rate(&c, t));
            line += &format!(
                " {:>9.1} {:>9.0} {:>9.1} {:>9.0} {cpu_ratio:>6.2} {rate_ratio:>6.2}  ",
                cpu(&c, t),
                rate(&c, t),
                cpu(&d, t),
                rate(&d, t)
            );
            pair.push((cpu_ratio, rate_ratio));
        }
        println!("{}", line.trim_end());
        ratios.push(pair);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[1], v[0], v[2])
    };
    let (grpc, low, high) = median(ratios.iter().map(|r| r[0].0).collect());
    let verdict = if grpc <= GOAL { "met" } else { "not met" };
    println!(
        "grpc dynamic/compiled client CPU per call: median {grpc:.2} (range {low:.2}-{high:.2}); goal <= {GOAL}: {verdict}"
    );
    let (http, low, high) = median(ratios.iter().map(|r| r[1].0).collect());
    println!("http-json dynamic/compiled client CPU per call: median {http:.2} (range {low:.2}-{high:.2})");
    for (i, t) in ["grpc", "http-json"].iter().enumerate() {
        let (rate, low, high) = median(ratios.iter().map(|r| r[i].1).collect());
        println!("{t} dynamic/compiled calls per second: median {rate:.2} (range {low:.2}-{high:.2})");
    }
}
