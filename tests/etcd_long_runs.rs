//! `etcd run` of many rounds keeps a bounded list: past `MOST_ROUNDS` a
//! transport its rounds fold in twos, and every put is still counted, and
//! read back from etcd's own revision.

mod common;
mod etcd_server;

use etcd_server::Etcd;
use gcs_speed_tui::engine::folded::MOST_ROUNDS;

#[test]
fn rounds_past_most_rounds_fold_and_every_put_counts() {
    let etcd = Etcd::start();
    let before = etcd.revision();
    // 2.5 x MOST_ROUNDS rounds of one put a transport: folded twice, 4 rounds a record.
    let rounds = MOST_ROUNDS * 5 / 2;
    let iterations = rounds.to_string();
    let args = ["etcd", "run", "--endpoints", &etcd.url, "--clients", "1", "--requests", "1"];
    let output =
        common::run(&[&args[..], &["--iterations", &iterations, "--warmup=false", "--format", "json"]].concat(), &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let records = report["rounds"].as_array().unwrap();
    for transport in ["http-json", "grpc"] {
        let lane: Vec<_> = records.iter().filter(|r| r["transport"] == transport).collect();
        assert_eq!(lane.len(), rounds.div_ceil(4), "{transport}");
        let held: u64 = lane.iter().map(|r| r["rounds_held"].as_u64().unwrap_or(1)).sum();
        assert_eq!(held, rounds as u64, "{transport}: every round in one record");
        let summary = report["transports"].as_array().unwrap().iter().find(|t| t["transport"] == transport).unwrap();
        assert_eq!(summary["ops"], rounds, "{transport}: every put counted");
    }
    // Each put is one revision of etcd's: read back from the server, not the report.
    // (Besides the puts: the run's checks and its cleanup, a few revisions.)
    let revisions = etcd.revision() - before;
    assert!((2 * rounds as u64..=2 * rounds as u64 + 16).contains(&revisions), "{revisions} revisions");
    let table = common::run(&[&args[..], &["--iterations", "4", "--warmup=false"]].concat(), &[]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(table.status.success() && text.contains("http-json"), "{text}");
    assert!(!text.contains("rounds folded"), "4 rounds fold nothing: {text}");
}
