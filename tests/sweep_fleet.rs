//! A sweep run by a fleet: three hosts (processes) given one --start-at run
//! the same sweep against one real etcd; each runs the points in the same
//! shuffled order with each point's rounds starting at the same instant,
//! so `merge` puts their reports together point by point, every point a
//! fleet of three with a common window.

mod common;
mod etcd_server;
use etcd_server::Etcd;
use serde_json::Value;
use std::time::{Duration, SystemTime};

const HOSTS: usize = 3;

fn json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn three_hosts_sweeps_merge_point_by_point() {
    let etcd = Etcd::start();
    let dir = tempfile::tempdir().unwrap();
    let start_at = gcs_speed_tui::units::rfc3339(SystemTime::now() + Duration::from_secs(4));
    let hosts: Vec<_> = (1..=HOSTS)
        .map(|n| {
            let output = dir.path().join(format!("host-{n}.json"));
            std::process::Command::new(common::binary())
                .args(["etcd", "run", "--endpoints", &etcd.url, "--requests", "50", "--key-space", "100"])
                .args(["--sweep", "clients=1,2", "--sweep-budget", "4s", "--start-at", &start_at])
                .args(["--host-label", &format!("host-{n}"), "--format", "json", "--output"])
                .arg(&output)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("the binary runs")
        })
        .collect();
    // All three run at once, as a fleet's pods do.
    let hosts: Vec<_> = hosts.into_iter().map(|h| h.wait_with_output().unwrap()).collect();
    for (n, host) in hosts.iter().enumerate() {
        assert!(host.status.success(), "host {}: {}", n + 1, String::from_utf8_lossy(&host.stderr));
    }
    let reports: Vec<Value> = (1..=HOSTS).map(|n| json(&dir.path().join(format!("host-{n}.json")))).collect();
    let order = &reports[0]["sweep"]["ran_in_order"];
    assert_eq!(order.as_array().map(Vec::len), Some(2));
    for report in &reports {
        assert_eq!(&report["sweep"]["ran_in_order"], order, "one --start-at, one order");
    }

    let merged = std::process::Command::new(common::binary())
        .args(["merge", "--format", "json"])
        .arg(dir.path())
        .output()
        .expect("merge runs");
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    let merged: Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!(merged["sweep"]["options"], serde_json::json!(["clients"]));
    let points = merged["points"].as_array().unwrap();
    let clients: Vec<&str> = points.iter().map(|p| p["point"]["clients"].as_str().unwrap()).collect();
    assert_eq!(clients, ["1", "2"], "the grid's points, in its order");
    for point in points {
        let report = &point["report"];
        let names: Vec<&str> =
            report["hosts"].as_array().unwrap().iter().map(|h| h["host"].as_str().unwrap()).collect();
        assert_eq!(names, ["host-1", "host-2", "host-3"], "{}", point["point"]);
        // The hosts ran the point at the same time: the common window is
        // most of the point's share of the budget (4 s over 2 points), and
        // the last host to start began within half a second of the first.
        let window = &report["fleet"]["window"];
        let share_s = 4.0 / 2.0;
        assert!(window["seconds"].as_f64().unwrap() > 0.75 * share_s, "{window}");
        assert!(window["trimmed_start_s"].as_f64().unwrap() < 0.5, "{window}");
        // Each host's requests are the fleet's: the merged rounds are all the hosts' rounds.
        let rounds_of = |r: &Value| r["rounds"].as_array().map_or(0, Vec::len);
        let hosts_rounds: usize = reports
            .iter()
            .flat_map(|r| r["points"].as_array().unwrap())
            .filter(|p| p["point"] == point["point"])
            .map(|p| rounds_of(&p["report"]))
            .sum();
        assert_eq!(rounds_of(report), hosts_rounds, "{}", point["point"]);
    }
}

#[test]
fn a_fleet_sweep_needs_a_budget_to_line_its_points_up() {
    let output = common::run(&["run", "--sweep", "size=1MiB,2MiB", "--start-in", "5s"], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr
            .starts_with("error: --start-at and --start-in line up a fleet's sweep point by point: add --sweep-budget"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);
}
