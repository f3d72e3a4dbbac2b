//! `grpc run` against server frameworks of other makers, each serving
//! tests/connect_server's store from a descriptor set with no generated
//! code: Connect for Node (npm's @connectrpc/connect-node), gRPC on one port
//! and Connect's JSON protocol on another; and Google's grpcio (PyPI) with
//! its server reflection, for `--reflect`. What arrived is read back from
//! each server: its keys and the calls it answered.

mod common;
mod connect;
use common::{run, venv_bin};
use connect::{ConnectServer, first_line, grpc_run, store_descriptors};
use serde_json::Value;
use std::process::{Child, Command, Stdio};

#[test]
fn puts_reach_a_connect_server_over_grpc_and_connect_each_counted_by_the_server() {
    let server = ConnectServer::start();
    let (clients, requests, iterations) = (3u64, 20u64, 3u64);
    let put = [
        "--method",
        "demo.v1.Store/Put",
        "--data",
        r#"{"key":"k/{{run}}/{{seq}}","value":"{{base64 value {{seq}}}}"}"#,
        "--clients",
        "3",
        "--requests",
        "20",
        "--iterations",
        "3",
        "--cleanup=false",
        "--header",
        "authorization: Bearer t0ken",
    ];
    let (output, report) = grpc_run(&server, &put);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(report["outcome"], "completed", "{report}");
    assert_eq!(report["config"]["http_mapping"], "connect POST /demo.v1.Store/Put");
    let transports = report["transports"].as_array().unwrap();
    assert_eq!(transports.len(), 2);
    for t in transports {
        assert_eq!(t["ops"], iterations * clients * requests, "{t}");
        assert_eq!(t["errors"], 0, "{t}");
    }
    // The server's own count: the check's call, the warmup's (up to 100 a
    // client: all 20 here) and every round's, on each protocol.
    let per_protocol = 1 + clients * requests + iterations * clients * requests;
    let stats = server.stats();
    assert_eq!(stats["calls"]["grpc"], per_protocol, "{stats}");
    assert_eq!(stats["calls"]["connect"], per_protocol, "{stats}");
    // --header went on every call of both: as gRPC metadata, as an HTTP header.
    assert_eq!(stats["authorized"]["grpc"], per_protocol, "{stats}");
    assert_eq!(stats["authorized"]["connect"], per_protocol, "{stats}");
    assert_eq!(report["config"]["headers"], serde_json::json!(["authorization"]), "{report}");
    assert!(!report.to_string().contains("t0ken"), "the report keeps the header's name, not its value");
    let run_id = report["run_id"].as_str().unwrap();
    let keys: Vec<&str> = stats["keys"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert_eq!(keys.len() as u64, clients * requests, "one key per call number: {keys:?}");
    assert!(keys.contains(&format!("k/{run_id}/59").as_str()), "{keys:?}");
}

#[test]
fn a_streaming_method_answers_alike_and_the_cleanup_method_deletes_the_runs_keys() {
    let server = ConnectServer::start();
    let put = ["--method", "demo.v1.Store/Put", "--data", r#"{"key":"s/{{run}}/{{seq}}"}"#, "--requests", "5"];
    let cleanup = ["--cleanup-method", "demo.v1.Store/Delete", "--cleanup-data", r#"{"prefix":"s/{{run}}/"}"#];
    let (output, report) = grpc_run(&server, &[&put[..], &["--clients", "2", "--iterations", "1"]].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(server.stats()["keys"].as_array().map(Vec::len), Some(10), "2 clients x 5 calls: 10 keys");
    let run_id = report["run_id"].as_str().unwrap();
    // A server-streaming method: each call's 10 entries over both, compared by the check.
    let list = ["--method", "demo.v1.Store/List", "--clients", "2", "--requests", "4"];
    let data = format!(r#"{{"prefix":"s/{run_id}/"}}"#);
    let (output, report) = grpc_run(&server, &[&list[..], &["--data", &data], &cleanup].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(report["transports"].as_array().map(Vec::len), Some(2), "{report}");
    for t in report["transports"].as_array().unwrap() {
        assert_eq!(t["ops"], 3 * 2 * 4, "{t}");
        // Ten entries of `s/RUN/N` come back on every call.
        assert!(t["wire_received_per_op"].as_f64().unwrap() > 10.0 * 20.0, "{t}");
    }
    // The list run's cleanup deletes its own run's prefix, not the put run's.
    assert_eq!(server.stats()["keys"].as_array().map(Vec::len), Some(10));
    let (output, report) = grpc_run(&server, &[&put[..], &cleanup].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(report["cleanup"]["called"], true);
    let keys = server.stats()["keys"].clone();
    assert_eq!(keys.as_array().map(Vec::len), Some(10), "only the first run's keys are left: {keys}");
    assert!(keys.to_string().contains(run_id), "{keys}");
}

#[test]
fn open_loop_calls_arrive_at_the_rate_on_both_protocols() {
    let server = ConnectServer::start();
    let (clients, iterations, rate, round_s) = (2u64, 3u64, 200u64, 0.2);
    let put = ["--method", "demo.v1.Store/Put", "--data", r#"{"key":"o/{{seq}}","value":"eA=="}"#];
    let shape = ["--clients", "2", "--round-time", "200ms", "--iterations", "3", "--rate", "200"];
    // Calls are never retried, so a gate on retries holds.
    let (output, report) = grpc_run(&server, &[&put[..], &shape, &["--fail-if", "retries > 0"]].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    // Open loop, a round is rate x round-time arrivals, paced at the rate.
    let arrivals = (rate as f64 * round_s) as u64;
    let transports = report["transports"].as_array().unwrap();
    assert_eq!(transports.len(), 2, "{report}");
    for t in transports {
        assert_eq!(t["ops"], iterations * arrivals, "none dropped at 1000 in flight: {t}");
        let rounds: Vec<&Value> =
            report["rounds"].as_array().unwrap().iter().filter(|r| r["transport"] == t["transport"]).collect();
        assert_eq!(rounds.len() as u64, iterations, "{report}");
        for round in rounds {
            // 40 arrivals 5 ms apart: the last is sent 195 ms after the first.
            let elapsed = round["elapsed_s"].as_f64().unwrap();
            assert!(elapsed >= (arrivals - 1) as f64 / rate as f64, "{round}");
        }
    }
    // The server's count: the check's call, the warmup's (closed loop, a
    // round's share a client: 20) and every round's arrivals, on each protocol.
    let per_protocol = 1 + clients * (arrivals / clients) + iterations * arrivals;
    let stats = server.stats();
    assert_eq!(stats["calls"]["grpc"], per_protocol, "{stats}");
    assert_eq!(stats["calls"]["connect"], per_protocol, "{stats}");
    // The table's heading says the load as it was offered.
    let mut args = put.to_vec();
    args.extend(["--clients", "2", "--round-time", "200ms", "--iterations", "1", "--rate", "200"]);
    let descriptors = server.descriptors.path().to_str().unwrap();
    let base = ["grpc", "run", "--grpc-endpoint", &server.grpc, "--http-endpoint", &server.http];
    let all = [&base[..], &["--http-mapping", "connect", "--descriptor-set", descriptors], &args].concat();
    let table = String::from_utf8_lossy(&run(&all, &[]).stdout).into_owned();
    let heading = table.lines().next().unwrap_or_default();
    // Open loop the clients bound nothing: the heading says the load offered.
    assert!(heading.contains("; 40 calls a round at 200/s constant, at most 1000 in flight,"), "{table}");
    assert!(!heading.contains("2 clients x"), "{table}");
    assert!(
        table.contains(
            "client CPU per call includes waking the idle client for each arrival and waiting out the pacer's lead"
        ),
        "{table}"
    );
}

/// grpcio with reflection: asked for stats on its stdin, it answers on stdout.
struct ReflectServer {
    child: Child,
    grpc: String,
    _descriptors: tempfile::NamedTempFile,
}

impl ReflectServer {
    fn start() -> ReflectServer {
        let descriptors = store_descriptors();
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/interop/reflect_server.py");
        let mut child = Command::new(venv_bin("python"))
            .args([script, descriptors.path().to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python runs");
        let port = first_line(&mut child)["grpc"].clone();
        ReflectServer { child, grpc: format!("http://127.0.0.1:{port}"), _descriptors: descriptors }
    }

    fn stats(&mut self) -> Value {
        use std::io::Write;
        writeln!(self.child.stdin.as_mut().unwrap(), "stats").unwrap();
        first_line(&mut self.child)
    }
}

impl Drop for ReflectServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn reflect_reads_the_types_from_a_grpcio_server_and_its_calls_arrive() {
    let mut server = ReflectServer::start();
    let (clients, requests, iterations) = (2u64, 10u64, 3u64);
    let args = [
        &["grpc", "run", "--reflect", "--grpc-endpoint", &server.grpc, "--transports", "grpc", "--format", "json"][..],
        &["--method", "demo.v1.Store/Put", "--data", r#"{"key":"r/{{seq}}","value":"eA=="}"#],
        &["--clients", "2", "--requests", "10", "--iterations", "3"],
    ]
    .concat();
    let output = run(&args, &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["config"]["schema"], format!("reflection from {}", server.grpc));
    assert_eq!(report["config"]["http_mapping"], "none: gRPC alone");
    let transports = report["transports"].as_array().unwrap();
    assert_eq!(transports.len(), 1, "{report}");
    assert_eq!(transports[0]["ops"], iterations * clients * requests);
    // The warmup's (all 10 a client) and every round's: gRPC alone has
    // nothing to compare a check's call with, so none is sent.
    let stats = server.stats();
    assert_eq!(stats["calls"], clients * requests + iterations * clients * requests, "{stats}");
    assert_eq!(stats["keys"].as_array().map(Vec::len), Some((clients * requests) as usize), "{stats}");
}

#[test]
fn a_server_without_reflection_is_one_sentence_and_exit_2() {
    // Connect for Node serves no reflection service.
    let server = ConnectServer::start();
    let output =
        run(&["grpc", "run", "--reflect", "--grpc-endpoint", &server.grpc, "--method", "demo.v1.Store/Put"], &[]);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("serves no gRPC reflection: give the service's .proto with --proto"), "{said}");
    assert_eq!(said.lines().count(), 1, "{said}");
}

#[test]
fn a_method_without_an_http_rule_or_a_broken_proto_is_one_sentence_and_exit_2() {
    let descriptors = store_descriptors();
    let broken = tempfile::NamedTempFile::with_suffix(".proto").unwrap();
    std::fs::write(broken.path(), "syntax = \"proto3\";\nmessage A { int64 n = ; }\n").unwrap();
    // The compiler's place: the `;` where the field number belongs, line 2, column 23.
    let name = broken.path().file_name().unwrap().to_str().unwrap();
    let at = format!("the .proto does not compile in {name}:2:23: ");
    let cases: [(Vec<&str>, &str); 2] = [
        (
            vec!["--descriptor-set", descriptors.path().to_str().unwrap(), "--method", "demo.v1.Store/Put"],
            "has no google.api.http rule in its .proto: give one with --http-path",
        ),
        (vec!["--proto", broken.path().to_str().unwrap(), "--method", "A/B"], &at),
    ];
    for (extra, expected) in cases {
        let args = [&["grpc", "run", "--grpc-endpoint", "http://127.0.0.1:1"][..], &extra].concat();
        let output = run(&args, &[]);
        let said = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {said}");
        assert!(said.contains(expected) && said.lines().count() == 1, "{extra:?}: {said}");
    }
}
