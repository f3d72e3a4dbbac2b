//! `grpc run`'s requests from a file, one JSON request a line, used in
//! turn, and `--header` values with placeholders, against Connect for Node:
//! what the server received is read back from it.

mod common;
mod connect;

use connect::{ConnectServer, grpc_run};
use serde_json::{Value, json};

/// The values of a list of strings, sorted.
fn sorted(value: &Value) -> Vec<String> {
    let mut values: Vec<String> =
        value.as_array().unwrap_or_else(|| panic!("a list: {value}")).iter().map(|v| v.to_string()).collect();
    values.sort();
    values
}

#[test]
fn each_line_of_a_request_file_reaches_the_server_as_its_own_request() {
    let server = ConnectServer::start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("puts.ndjson");
    let lines = [
        r#"{"key":"{{transport}}/{{seq}}/a","value":"{{base64 first}}"}"#,
        r#"{"key":"{{transport}}/{{seq}}/b","value":"{{base64 second}}"}"#,
        r#"{"key":"{{transport}}/{{seq}}/c","value":"{{base64 third}}"}"#,
    ];
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let data = format!("@{}", file.display());
    // One client, six calls: lines 1, 2, 3, 1, 2, 3; the check before the rounds sends line 1.
    let shape = ["--clients", "1", "--requests", "6", "--iterations", "1", "--warmup=false"];
    let put = ["--method", "demo.v1.Store/Put", "--data", &data, "--header", "x-tag: t{{seq}}/{{transport}}"];
    // The answer names the key, which differs by transport.
    let put = [&put[..], &["--ignore-field", "key"]].concat();
    let (output, report) = grpc_run(&server, &[&put[..], &shape].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stats = server.stats();
    // Call n sends line n mod 3; the check's call 0 line 1, the key of the rounds' call 0.
    let mut expected_keys: Vec<String> = ["grpc", "http-json"]
        .iter()
        .flat_map(|t| [(0, "a"), (1, "b"), (2, "c"), (3, "a"), (4, "b"), (5, "c")].map(|(n, l)| format!("{t}/{n}/{l}")))
        .map(|k| json!(k).to_string())
        .collect();
    expected_keys.sort();
    assert_eq!(sorted(&stats["keys"]), expected_keys, "each call its line: {stats}");
    for (protocol, transport) in [("grpc", "grpc"), ("connect", "http-json")] {
        assert_eq!(stats["calls"][protocol], 1 + 6, "{stats}");
        // The check's call 0, then calls 0 to 5: each header filled for its call.
        let mut expected: Vec<String> =
            std::iter::once(0).chain(0..6).map(|seq| json!(format!("t{seq}/{transport}")).to_string()).collect();
        expected.sort();
        assert_eq!(sorted(&stats["tags"][protocol]), expected, "{stats}");
    }
    assert_eq!(report["config"]["data"], format!("@{}: 3 requests, one a line, used in turn", file.display()));
}

#[test]
fn a_line_that_does_not_fit_the_request_is_named_before_anything_is_sent() {
    let server = ConnectServer::start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("puts.ndjson");
    std::fs::write(&file, "{\"key\":\"a\"}\n{\"kee\":\"b\"}\n{\"key\":\"c\"}\n").unwrap();
    let data = format!("@{}", file.display());
    let (output, _) = grpc_run(&server, &["--method", "demo.v1.Store/Put", "--data", &data]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: --data line 2 does not fit demo.v1.PutRequest: "), "{stderr}");
    assert!(stderr.contains("kee"), "{stderr}");
    assert_eq!(server.stats()["calls"], json!({}), "nothing was sent");
    // A pretty-printed request over several lines is one request.
    std::fs::write(&file, "{\n  \"key\": \"p/{{seq}}\"\n}\n").unwrap();
    let shape = ["--clients", "1", "--requests", "2", "--iterations", "1", "--warmup=false"];
    let (output, report) =
        grpc_run(&server, &[&["--method", "demo.v1.Store/Put", "--data", &data][..], &shape].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(sorted(&server.stats()["keys"]), [json!("p/0").to_string(), json!("p/1").to_string()]);
    assert_eq!(server.stats()["calls"], json!({"grpc": 3, "connect": 3}), "the check's call and 2 a transport");
    assert_eq!(report["transports"].as_array().unwrap().len(), 2, "{report}");
    for t in report["transports"].as_array().unwrap() {
        assert_eq!(t["ops"].as_u64(), Some(2), "{t}");
    }
    assert!(report["config"]["data"].as_str().unwrap().contains("\"key\": \"p/{{seq}}\""), "{report}");
}

#[test]
fn a_client_stream_sends_every_message_over_grpc_and_connect_and_the_server_counts_them() {
    let server = ConnectServer::start();
    // Three messages a call, each key its own: the stream's messages are the array's elements.
    let data = r#"[{"key":"{{transport}}/{{seq}}/a","value":"eA=="},{"key":"{{transport}}/{{seq}}/b","value":"eA=="},{"key":"{{transport}}/{{seq}}/c","value":"eA=="}]"#;
    let shape = ["--clients", "2", "--requests", "3", "--iterations", "2", "--warmup=false"];
    let (output, report) =
        grpc_run(&server, &[&["--method", "demo.v1.Store/PutMany", "--data", data][..], &shape].concat());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let (clients, requests, rounds, per_call) = (2u64, 3u64, 2u64, 3u64);
    assert_eq!(report["transports"].as_array().unwrap().len(), 2, "{report}");
    for t in report["transports"].as_array().unwrap() {
        assert_eq!((t["ops"].as_u64(), t["errors"].as_u64()), (Some(rounds * clients * requests), Some(0)), "{t}");
    }
    // Per protocol: the check's call 0 and every round's, each a stream of three.
    let calls = 1 + rounds * clients * requests;
    let stats = server.stats();
    for protocol in ["grpc", "connect"] {
        assert_eq!(stats["calls"][protocol], calls, "{stats}");
        assert_eq!(stats["messages"][protocol], calls * per_call, "{stats}");
    }
    // Keys: 2 transports x 6 call numbers x 3 messages (a round's calls put the same keys).
    assert_eq!(stats["keys"].as_array().unwrap().len() as u64, 2 * clients * requests * per_call, "{stats}");
    // An HTTP rule carries a client stream as grpc-gateway does: a message a line.
    let descriptors = server.descriptors.path().to_str().unwrap();
    let endpoints = ["--grpc-endpoint", &server.grpc, "--http-endpoint", &server.http, "--descriptor-set", descriptors];
    let rule = ["grpc", "run", "--method", "demo.v1.Store/PutMany", "--data", data, "--http-path", "POST /v1/putmany"];
    let output = common::run(&[&rule[..], &endpoints, &shape, &["--transports", "http-json"]].concat(), &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stats = server.stats();
    assert_eq!(stats["calls"]["gateway"], rounds * clients * requests, "{stats}");
    assert_eq!(stats["messages"]["gateway"], rounds * clients * requests * per_call, "{stats}");
}

#[test]
fn a_bidi_stream_goes_over_grpc_and_connect_over_http2_and_every_message_is_answered() {
    let server = ConnectServer::start();
    let data = r#"[{"key":"e/{{seq}}/1","value":"eA=="},{"key":"e/{{seq}}/2","value":"eHg="}]"#;
    // Connect carries bidi over HTTP/2: the h2c port, which speaks Connect's protocol too.
    let shape = ["--clients", "2", "--requests", "4", "--iterations", "2", "--warmup=false"];
    let args = [&["--method", "demo.v1.Store/Echo", "--data", data][..], &shape].concat();
    let (output, report) = connect::grpc_run_at(&server, &server.grpc, &args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let (clients, requests, rounds, per_call) = (2u64, 4u64, 2u64, 2u64);
    let transports = report["transports"].as_array().unwrap();
    assert_eq!(transports.len(), 2, "{report}");
    for t in transports {
        assert_eq!((t["ops"].as_u64(), t["errors"].as_u64()), (Some(rounds * clients * requests), Some(0)), "{t}");
        assert_eq!(t["protocol"].as_str().unwrap(), "HTTP/2", "{t}");
        // Every answer of every timed call, each from its call's start: two a call.
        assert_eq!(t["messages"].as_u64(), Some(rounds * clients * requests * per_call), "{t}");
        let (p50, p99) =
            (t["message_latency"]["p50_ms"].as_f64().unwrap(), t["message_latency"]["p99_ms"].as_f64().unwrap());
        assert!(p50 > 0.0 && p99 >= p50, "{t}");
        // An answer arrives within its call: no answer is timed past the call's own p99.9.
        assert!(p99 <= t["latency"]["p999_ms"].as_f64().unwrap() * 1.01, "{t}");
    }
    let calls = 1 + rounds * clients * requests;
    let stats = server.stats();
    for protocol in ["grpc", "connect"] {
        assert_eq!(stats["calls"][protocol], calls, "{stats}");
        assert_eq!(stats["messages"][protocol], calls * per_call, "{stats}");
    }
    // Over an HTTP rule (here, --http-path) a bidi method is refused in one sentence.
    let descriptors = server.descriptors.path().to_str().unwrap();
    let endpoints = ["--grpc-endpoint", &server.grpc, "--descriptor-set", descriptors];
    let rule = ["grpc", "run", "--method", "demo.v1.Store/Echo", "--data", data, "--http-path", "POST /echo"];
    let output = common::run(&[&rule[..], &endpoints].concat(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(server.stats()["calls"], stats["calls"], "nothing sent");
    assert!(stderr.contains("is bidi, which an HTTP rule does not carry: use --http-mapping connect"), "{stderr}");
}
