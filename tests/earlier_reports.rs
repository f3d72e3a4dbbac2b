//! Reports written before the verdict became one engine type (by 7c99d64,
//! `run --format json` on the built-in emulator and `etcd run --format json`
//! on a loopback etcd; see tests/data/README.md) still load, say the verdict
//! they said, compare, merge, and are written again with every field of
//! their verdict under the same name and value.

use gcs_speed_tui::fleet::command::{compare_loaded, merge_loaded};
use gcs_speed_tui::fleet::inputs::{Loaded, parse};
use serde_json::Value;

const GCS_BEFORE: &str = include_str!("data/gcs-report-before-one-verdict.json");
const ETCD_BEFORE: &str = include_str!("data/etcd-report-before-one-verdict.json");

fn loaded(name: &str, text: &str) -> Loaded {
    let mut loaded = parse(name, text).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(loaded.len(), 1, "{name} holds one report");
    loaded.remove(0)
}

/// Every key of `before`'s object at `path` has the same value in `after`'s.
fn keeps_every_field(before: &Value, after: &Value, what: &str) {
    let fields = before.as_object().unwrap_or_else(|| panic!("{what} is an object: {before}"));
    assert!(fields.len() >= 12, "{what} has the verdict's fields: {before}");
    for (key, value) in fields {
        assert_eq!(&after[key], value, "{what}.{key}");
    }
}

#[test]
fn an_etcd_report_written_before_the_verdict_was_one_type_still_reads_the_same() {
    let raw: Value = serde_json::from_str(ETCD_BEFORE).unwrap();
    let stored = raw["comparison"]["sentence"].as_str().expect("the old report has its sentence");
    assert!(raw["comparison"]["faster_ops_s"].is_f64() && raw["comparison"].get("measured").is_none(), "{raw}");
    let report = loaded("etcd-before.json", ETCD_BEFORE);
    assert_eq!(report.report.target(), "etcd");
    assert_eq!(report.report.summary_line(), stored, "the verdict it said then");
    assert!(report.report.to_table().contains(stored), "{}", report.report.to_table());
    let again: Value = serde_json::from_str(&report.report.to_json()).unwrap();
    keeps_every_field(&raw["comparison"], &again["comparison"], "comparison");
    // Compared with itself: every row the same, no change.
    let said = compare_loaded(&report, &report).expect("compares");
    assert!(said.text.contains("+0.0%"), "{}", said.text);
}

#[test]
fn a_gcs_report_written_before_the_verdict_was_one_type_still_reads_the_same() {
    let raw: Value = serde_json::from_str(GCS_BEFORE).unwrap();
    assert!(raw["comparison"]["faster_mib_s"].is_f64(), "{raw}");
    let report = loaded("gcs-before.json", GCS_BEFORE);
    assert_eq!(report.report.target(), "gcs");
    let again: Value = serde_json::from_str(&report.report.to_json()).unwrap();
    keeps_every_field(&raw["comparison"], &again["comparison"], "comparison");
    // Each operation's verdict: its operation and the comparison's fields side by side.
    let verdicts = raw["verdicts"].as_array().expect("verdicts");
    assert!(!verdicts.is_empty());
    for (index, verdict) in verdicts.iter().enumerate() {
        keeps_every_field(verdict, &again["verdicts"][index], "verdicts[]");
    }
}

#[test]
fn two_hosts_written_before_merge_as_one_fleet() {
    for (name, text) in [("etcd", ETCD_BEFORE), ("gcs", GCS_BEFORE)] {
        let a = loaded(&format!("{name}-a.json"), text);
        // A second host of the same run: the same report under another host and run id.
        let mut raw: Value = serde_json::from_str(text).unwrap();
        raw["environment"]["host"] = Value::from("second-host");
        raw["run_id"] = Value::from(format!("{}-b", raw["run_id"].as_str().unwrap()));
        let b = loaded(&format!("{name}-b.json"), &raw.to_string());
        let merged = merge_loaded(&[a, b]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(merged.merged_hosts(), 2, "{name}");
    }
}

const GCS_BEFORE_TALLIES: &str = include_str!("data/gcs-report-before-tallies.json");

#[test]
fn a_gcs_report_written_before_tallies_is_tallied_from_its_samples_and_merges_with_a_new_one() {
    let raw: Value = serde_json::from_str(GCS_BEFORE_TALLIES).unwrap();
    let raw_rounds = raw["rounds"].as_array().unwrap();
    assert!(!raw_rounds.is_empty() && raw_rounds.iter().all(|r| r.get("items").is_none()), "written before tallies");
    let samples = raw["samples"].as_array().unwrap();
    let old = loaded("old.json", GCS_BEFORE_TALLIES);
    let again: Value = serde_json::from_str(&old.report.to_json()).unwrap();
    assert_eq!(again["transports"], raw["transports"], "the figures it said then");
    assert_eq!(again["rounds"].as_array().unwrap().len(), raw_rounds.len());
    for round in again["rounds"].as_array().unwrap() {
        let of_round = |s: &&Value| s["transport"] == round["transport"] && s["round"] == round["round"];
        let objects = samples.iter().filter(of_round).count();
        assert!(objects > 0, "{round}");
        assert_eq!(round["items"]["finished"], objects, "each round tallied from its own samples: {round}");
    }
    // A report written today of the same run as a second host. Both ran on
    // a built-in emulator of their own, which merge refuses: each is given
    // one endpoint, as if both had run against it.
    let args = ["run", "--emulator", "--size", "64KiB", "--concurrency", "2", "--iterations", "3"];
    let output = common_run(&[&args[..], &["--host-label", "new", "--format", "json"]].concat());
    let mut new: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut old_raw = raw.clone();
    for report in [&mut new, &mut old_raw] {
        report["target"]["kind"] = "endpoint".into();
        report["target"]["json_endpoint"] = "http://127.0.0.1:1".into();
        report["target"]["grpc_endpoint"] = "127.0.0.1:2".into();
    }
    let both = [loaded("old.json", &old_raw.to_string()), loaded("new.json", &new.to_string())];
    let merged: Value = serde_json::from_str(&merge_loaded(&both).expect("merges").to_json()).unwrap();
    let rows = merged["transports"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "a fleet row per transport");
    for row in rows {
        let objects = |report: &Value| {
            let own = report["transports"].as_array().unwrap().iter().find(|t| t["transport"] == row["transport"]);
            own.unwrap()["objects"].as_u64().unwrap()
        };
        let sum = objects(&raw) + objects(&new);
        assert_eq!(row["objects"], sum, "every object of both hosts: {row}");
        assert_eq!(sum, 2 * 3 * 2, "two hosts of 3 rounds of 2 uploads");
    }
}

/// The binary, run as a user runs it.
fn common_run(args: &[&str]) -> std::process::Output {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui")).args(args).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    output
}
