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
        r#"{"key":"{{transport}}/a","value":"{{base64 first}}"}"#,
        r#"{"key":"{{transport}}/b","value":"{{base64 second}}"}"#,
        r#"{"key":"{{transport}}/c","value":"{{base64 third}}"}"#,
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
    let expected_keys: Vec<String> = ["grpc/a", "grpc/b", "grpc/c", "http-json/a", "http-json/b", "http-json/c"]
        .map(|k| json!(k).to_string())
        .into();
    assert_eq!(sorted(&stats["keys"]), expected_keys, "three requests a transport, each its own: {stats}");
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
    assert!(report["config"]["data"].as_str().unwrap().contains("\"key\": \"p/{{seq}}\""), "{report}");
}
