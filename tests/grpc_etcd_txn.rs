//! `grpc run` of a call that is not idempotent, against a real etcd: a
//! create-if-absent txn writes one key per call only when each transport
//! and round has keys of its own (`{{transport}}`, `{{round}}`); without
//! them the calls sampled in the rounds differ and the verdict says so.

mod common;
mod etcd_grpc;
mod etcd_server;
use etcd_grpc::{grpc_run, stderr};
use etcd_server::Etcd;
use gcs_speed_tui::finished::Finished;
use serde_json::Value;

/// A create-if-absent: a txn that puts `KEY` only while its version is 0.
fn create_if_absent(key: &str) -> String {
    format!(
        r#"{{"compare":[{{"key":"{{{{base64 {key}}}}}","target":"VERSION","result":"EQUAL","version":"0"}}],"success":[{{"request_put":{{"key":"{{{{base64 {key}}}}}","value":"dg=="}}}}]}}"#
    )
}

#[test]
fn a_call_that_is_not_idempotent_does_the_same_work_on_both_transports_only_with_keys_of_its_own() {
    let etcd = Etcd::start();
    let (transports, rounds, clients, requests) = (2u64, 3u64, 2u64, 50u64);
    let shape = ["--clients", "2", "--requests", "50", "--iterations", "3", "--warmup=false", "--cleanup=false"];
    let txn = |key: &str, extra: &[&str]| {
        let data = create_if_absent(key);
        // A txn's answer carries the store's revision twice: at its top and in its put's answer.
        let revisions =
            ["--ignore-field", "header.revision", "--ignore-field", "responses.response_put.header.revision"];
        let mut args = [&["--method", "etcdserverpb.KV/Txn", "--data", &data][..], &revisions].concat();
        args.extend(extra);
        let (output, report) = grpc_run(&etcd, &[&args[..], &shape].concat());
        assert!(output.status.success(), "{}", stderr(&output));
        report
    };

    // A key of its own per transport and round: every call creates one.
    let report = txn("bench/{{run}}/{{transport}}/{{round}}/{{seq}}", &[]);
    let run_id = report["run_id"].as_str().unwrap();
    let mut written = 0;
    for transport in ["grpc", "http-json"] {
        for round in 1..=rounds {
            let keys = etcd.count(&format!("bench/{run_id}/{transport}/{round}/"), None);
            assert_eq!(keys, clients * requests, "{transport} round {round}");
            written += keys;
        }
    }
    assert_eq!(written, transports * rounds * clients * requests);
    assert_eq!(written, 600);
    assert_eq!(report["sampled"]["differed"], 0, "{}", report["sampled"]);
    let verdict = report["comparison"]["sentence"].as_str().unwrap();
    let table = report_table(&report);
    assert!(!table.contains("caution: the transports did different work"), "{verdict}");

    // One key per call number for every round and transport, and no check
    // before the rounds (its call 0 would create key 0 over one transport
    // and find it over the other): round 1 goes http-json first, which
    // creates every key, and gRPC finds them all; rounds 2 and 3 find every
    // key on both. 34 calls are sampled a round.
    let report = txn("bench/{{run}}/{{seq}}", &["--check=false"]);
    let run_id = report["run_id"].as_str().unwrap();
    assert_eq!(etcd.count(&format!("bench/{run_id}/"), None), clients * requests, "one key per call number");
    let summary = &report["sampled"];
    assert_eq!(summary["compared"], rounds * 34, "{summary}");
    assert_eq!(summary["differed"], 34, "every sampled call of round 1: {summary}");
    // A failed compare answers no responses either: both fields are named.
    let fields = &summary["fields"];
    assert_eq!((fields["succeeded"].as_u64(), fields["responses"].as_u64()), (Some(34), Some(34)), "{summary}");
    let caution = format!("responses differed in 34, succeeded in 34 of {} sampled calls", rounds * 34);
    let table = report_table(&report);
    assert!(table.contains(&format!("caution: the transports did different work: {caution}")), "{table}");
    assert!(report["caution"].as_str().is_some_and(|c| c.contains(&caution)), "the JSON keeps it: {report}");
    etcd.ctl_ok(&["del", "--prefix", "bench/"]);
}

/// The report as its table says it, read back from its JSON.
fn report_table(report: &Value) -> String {
    let finished = Finished::from_json(report.clone()).expect("a report reads back");
    finished.to_table()
}
