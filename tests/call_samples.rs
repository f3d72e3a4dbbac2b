//! `--samples FILE` for targets of calls: every call of `etcd run`'s and
//! `grpc run`'s timed rounds, one record each, counted against the shape
//! asked for and against what etcd itself applied; refused where it cannot
//! say what it would hold.

mod common;
mod etcd_grpc;
mod etcd_server;

use common::run;
use etcd_server::Etcd;
use serde_json::Value;
use std::collections::BTreeSet;

/// The records of an NDJSON samples file.
fn records(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

/// Each (transport, round, client, call) once, and exactly those the shape makes.
fn assert_each_call_once(records: &[Value], rounds: u64, clients: u64, requests: u64) {
    let seen: BTreeSet<(String, u64, u64, u64)> = records
        .iter()
        .map(|r| {
            let n = |f: &str| r[f].as_u64().unwrap_or_else(|| panic!("{f}: {r}"));
            (r["transport"].as_str().unwrap().to_string(), n("round"), n("client"), n("call"))
        })
        .collect();
    let mut expected = BTreeSet::new();
    for transport in ["http-json", "grpc"] {
        for round in 1..=rounds {
            for client in 0..clients {
                for call in 0..requests {
                    expected.insert((transport.to_string(), round, client, call));
                }
            }
        }
    }
    assert_eq!(records.len(), expected.len(), "one record per call");
    assert_eq!(seen, expected);
}

/// A call's number, start and latency.
type Timed = (u64, f64, f64);

/// Every record a call that was answered, in a time a loopback call takes.
fn assert_answered(records: &[Value]) {
    for record in records {
        assert_eq!(record["ok"], true, "{record}");
        let latency = record["latency_s"].as_f64().unwrap();
        assert!(latency > 0.0 && latency < 10.0, "{record}");
        assert!(record.get("service_s").is_none() && record.get("error").is_none(), "closed loop, no error: {record}");
    }
}

#[test]
fn etcd_run_writes_every_timed_put_and_etcd_applied_as_many() {
    let etcd = Etcd::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calls.ndjson");
    let (clients, requests, rounds) = (3u64, 7u64, 2u64);
    let before = etcd.revision();
    let args = ["etcd", "run", "--endpoints", &etcd.url, "--clients", "3", "--requests", "7", "--iterations", "2"];
    let files = ["--warmup=false", "--format", "json", "--samples", path.to_str().unwrap()];
    let output = run(&[&args[..], &files].concat(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let calls = 2 * rounds * clients * requests;
    // Each put is one of etcd's revisions (besides the run's probe and cleanup, a few).
    let revisions = etcd.revision() - before;
    assert!((calls..=calls + 16).contains(&revisions), "{revisions} revisions for {calls} puts");
    let records = records(&path);
    assert_each_call_once(&records, rounds, clients, requests);
    assert_answered(&records);
    // Closed loop: a client's call starts once its call before has been answered.
    let mut by_client: std::collections::BTreeMap<(String, u64, u64), Vec<Timed>> = Default::default();
    for r in &records {
        let key =
            (r["transport"].as_str().unwrap().to_string(), r["round"].as_u64().unwrap(), r["client"].as_u64().unwrap());
        let call = (r["call"].as_u64().unwrap(), r["start_s"].as_f64().unwrap(), r["latency_s"].as_f64().unwrap());
        by_client.entry(key).or_default().push(call);
    }
    for calls in by_client.values_mut() {
        calls.sort_by_key(|c| c.0);
        for w in calls.windows(2) {
            assert!(w[1].1 > w[0].1 && w[1].1 >= w[0].1 + w[0].2 - 1e-6, "one after another: {w:?}");
        }
    }
    assert!(stderr.contains(&format!("samples: {calls} calls written to {}", path.display())), "{stderr}");
}

#[test]
fn open_loop_calls_carry_their_service_time_in_csv() {
    let etcd = Etcd::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calls.csv");
    let before = etcd.revision();
    // 200/s for 250 ms rounds: 50 arrivals a round, 2 rounds, 2 transports.
    let args = ["etcd", "run", "--endpoints", &etcd.url, "--rate", "200", "--round-time", "250ms", "--iterations", "2"];
    let files = ["--warmup=false", "--format", "json", "--samples", path.to_str().unwrap()];
    let output = run(&[&args[..], &files].concat(), &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = std::fs::read_to_string(&path).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[0], "transport,round,client,call,start_s,latency_s,service_s,ok,error");
    assert_eq!(rows.len(), 1 + 2 * 2 * 50, "{text}");
    let revisions = etcd.revision() - before;
    assert!((200..=216).contains(&revisions), "{revisions} revisions for 200 puts");
    let mut starts: std::collections::BTreeMap<(String, String), Vec<f64>> = Default::default();
    for row in &rows[1..] {
        let cells: Vec<&str> = row.split(',').collect();
        let (latency, service): (f64, f64) = (cells[5].parse().unwrap(), cells[6].parse().unwrap());
        assert!(service > 0.0 && latency >= service, "latency counts from the intended start: {row}");
        assert_eq!(cells[7], "true", "{row}");
        starts.entry((cells[0].to_string(), cells[1].to_string())).or_default().push(cells[4].parse().unwrap());
    }
    assert_eq!(starts.len(), 2 * 2, "{starts:?}");
    // Constant arrivals at 200/s: each intended start 5 ms after the one before.
    for v in starts.values_mut() {
        v.sort_by(f64::total_cmp);
        assert_eq!(v.len(), 50);
        for w in v.windows(2) {
            assert!((w[1] - w[0] - 0.005).abs() < 1e-4, "{w:?}");
        }
    }
}

#[test]
fn grpc_run_writes_every_timed_call_of_both_transports() {
    let etcd = Etcd::start();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("calls.ndjson");
    let put = r#"{"key":"{{base64 s/{{run}}/{{transport}}/{{round}}/{{seq}}}}","value":"{{base64 v}}"}"#;
    let (clients, requests, rounds) = (2u64, 5u64, 3u64);
    let shape = ["--method", "etcdserverpb.KV/Put", "--data", put, "--ignore-field", "header.revision"];
    let more = ["--clients", "2", "--requests", "5", "--iterations", "3", "--warmup=false"];
    let (output, report) =
        etcd_grpc::grpc_run(&etcd, &[&shape[..], &more, &["--samples", path.to_str().unwrap()]].concat());
    assert!(output.status.success(), "{}", etcd_grpc::stderr(&output));
    let records = records(&path);
    assert_each_call_once(&records, rounds, clients, requests);
    assert_answered(&records);
    let ops: u64 = report["transports"].as_array().unwrap().iter().map(|t| t["ops"].as_u64().unwrap()).sum();
    assert_eq!(ops, records.len() as u64, "the report counted the calls the file holds");
    // The keys each transport wrote, read back from etcd: as many as its
    // records, and the check's call 0 before the rounds (round 0, not timed).
    let run_id = report["run_id"].as_str().unwrap();
    for transport in ["http-json", "grpc"] {
        let written = etcd.count(&format!("s/{run_id}/{transport}/"), None);
        let recorded = records.iter().filter(|r| r["transport"] == transport).count() as u64;
        let calls = rounds * clients * requests;
        assert_eq!((written, recorded), (calls + 1, calls), "{transport}");
    }
}

#[test]
fn samples_with_a_sweep_or_in_a_missing_directory_are_refused() {
    let sweep = ["run", "--sweep", "size=1KiB,2KiB", "--samples", "calls.ndjson"];
    let output = run(&sweep, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--samples streams one run's records"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let missing = ["etcd", "run", "--samples", "/no/such/dir/calls.ndjson"];
    let output = run(&missing, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim(), "error: --samples: the directory /no/such/dir does not exist");
}
