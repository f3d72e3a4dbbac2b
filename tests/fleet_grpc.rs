//! `grpc run` reports merge as etcd's do: two hosts calling etcd's KV/Put
//! from its .proto begin at one --start-at; their merge's rate is the sum
//! of the hosts' in the common window, its rounds both hosts', and its
//! table a row per host and transport, then the fleet's.

mod common;
mod etcd_server;

use common::fleet::{expected_window, merged_window, rate_in};
use etcd_server::Etcd;
use serde_json::Value;

const GOCODE: &str = "/usr/share/gocode/src";

fn stdout_json(output: &std::process::Output) -> Value {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn grpc_hosts_merge_to_their_sum() {
    let etcd = Etcd::start();
    let dir = tempfile::tempdir().unwrap();
    let start_at = gcs_speed_tui::units::rfc3339(std::time::SystemTime::now() + std::time::Duration::from_secs(3));
    let hosts = ["grpc-a", "grpc-b"];
    let threads: Vec<_> = hosts
        .iter()
        .map(|host| {
            let mut args: Vec<String> =
                ["grpc", "run", "--grpc-endpoint", &etcd.url, "--method", "etcdserverpb.KV/Put"]
                    .map(String::from)
                    .into();
            // One configuration on every host: each run's keys are its own by {{run}}.
            let data = r#"{"key":"{{base64 fleet/{{run}}/{{seq}}}}","value":"eA=="}"#.to_string();
            args.extend(["--data".into(), data, "--ignore-field".into(), "header.revision".into()]);
            args.extend(["--proto".into(), format!("{GOCODE}/go.etcd.io/etcd/etcdserver/etcdserverpb/rpc.proto")]);
            for dir in [
                "go.etcd.io",
                "github.com/gogo/protobuf",
                "github.com/grpc-ecosystem/grpc-gateway/third_party/googleapis",
            ] {
                args.extend(["-I".into(), format!("{GOCODE}/{dir}")]);
            }
            let rest = ["--clients", "4", "--requests", "200", "--iterations", "4", "--format", "json"];
            args.extend(rest.map(String::from));
            args.extend(["--start-at", &start_at, "--host-label", host, "--client-threads", "1"].map(String::from));
            std::thread::spawn(move || common::run(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]))
        })
        .collect();
    let reports: Vec<Value> = threads.into_iter().map(|t| stdout_json(&t.join().unwrap())).collect();
    let files: Vec<String> = reports
        .iter()
        .zip(hosts)
        .map(|(report, host)| {
            assert_eq!(report["environment"]["host"], host);
            let path = dir.path().join(format!("{host}.json"));
            std::fs::write(&path, report.to_string()).unwrap();
            path.display().to_string()
        })
        .collect();
    let merged = stdout_json(&common::run(&["merge", "--format", "json", &files[0], &files[1]], &[]));
    assert_eq!(merged["target"], "grpc");
    assert_eq!(merged["fleet"]["hosts"], serde_json::json!(hosts));
    let named: Vec<(&str, &Value)> = hosts.iter().copied().zip(&reports).collect();
    let expected = expected_window(&named);
    assert_eq!(merged_window(&merged), expected, "the merge's window is the one worked out from the hosts");
    for transport in ["http-json", "grpc"] {
        let fleet = merged["transports"].as_array().unwrap().iter().find(|t| t["transport"] == transport).unwrap();
        let ops = |round: &Value| round["ops"].as_f64().unwrap();
        let sum: f64 = reports.iter().map(|r| rate_in(r, transport, (expected.start, expected.end), ops)).sum();
        let rate = fleet["ops_per_s"].as_f64().unwrap();
        assert!((rate / sum - 1.0).abs() < 0.01, "{transport}: fleet {rate} calls/s vs the hosts' sum {sum}");
        assert_eq!(fleet["runs"], 2 * 4, "the hosts' rounds, summed");
        assert_eq!(fleet["ops"], 2 * 4 * 4 * 200, "every call of every host");
    }
    let table = common::run(&["merge", &files[0], &files[1]], &[]);
    let text = String::from_utf8_lossy(&table.stdout);
    for row in ["grpc-a http-json", "grpc-a grpc", "grpc-b http-json", "grpc-b grpc", "fleet http-json", "fleet grpc"] {
        assert!(text.lines().any(|l| l.starts_with(row)), "a row {row}: {text}");
    }
}
