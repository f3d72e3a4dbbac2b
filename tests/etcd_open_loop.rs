//! `etcd run --rate` against a real etcd: each mode's round sends its
//! rate x round-time arrivals at the offered rate, every arrival is
//! accounted for (started, dropped or cut off), and the keys the puts wrote
//! are the ones a closed round writes (read back with etcdctl, then gone).

mod common;
mod etcd_server;
use common::run;
use etcd_server::Etcd;
use serde_json::Value;

/// 500/s for rounds of 0.2 s: 100 arrivals a round, over 2 clients.
const ARGS: [&str; 11] = [
    "--clients",
    "2",
    "--round-time",
    "200ms",
    "--key-space",
    "100",
    "--rate",
    "500",
    "--iterations",
    "3",
    "--warmup=false",
];
const ARRIVALS_PER_ROUND: u64 = 500 / 5;
const ROUNDS: u64 = 3;

fn etcd_run(etcd: &Etcd, extra: &[&str]) -> Value {
    let base = ["etcd", "run", "--endpoints", &etcd.url, "--format", "json"];
    let output = run(&[&base[..], &ARGS, extra].concat(), &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("a JSON report")
}

#[test]
fn every_mode_sends_its_arrivals_at_the_rate_and_accounts_for_each() {
    let etcd = Etcd::start();
    for mode in ["put", "range", "watch"] {
        let report = etcd_run(&etcd, &["--mode", mode]);
        let summary = &report["open_loop"];
        assert_eq!(summary["offered"]["rate"], 500.0, "{mode}");
        assert_eq!(summary["work"], if mode == "range" { "range" } else { "put" });
        let rows = summary["transports"].as_array().unwrap();
        assert_eq!(rows.len(), 2, "{mode}");
        for row in rows {
            let name = &row["transport"];
            assert_eq!(row["offered"].as_u64(), Some(ROUNDS * ARRIVALS_PER_ROUND), "{mode} {name}");
            // Nothing outstanding comes near the default 1000 at 500/s on loopback.
            assert_eq!(row["dropped"].as_u64(), Some(0), "{mode} {name}");
            assert_eq!(row["started"], row["offered"], "{mode} {name}");
            let achieved = row["achieved_rate"].as_f64().unwrap();
            assert!((achieved / 500.0 - 1.0).abs() < 0.05, "{mode} {name}: started {achieved}/s of 500/s");
            let (p50, service_p50) = (row["p50_ms"].as_f64().unwrap(), row["service_p50_ms"].as_f64().unwrap());
            // A watch's latency is its event's, from the put's intended
            // start; etcd sends the event and the put's answer at the commit,
            // and the event may be read first by the answer's last hop and the
            // two client tasks' turns (9 µs of the put's 298 seen once): 10%
            // allowed. Put and range: their latency holds their service
            // time, 1% allowed for the two histograms' buckets.
            assert!(service_p50 > 0.0, "{mode} {name}: a service time measured");
            let within = if mode == "watch" { 0.9 } else { 0.99 };
            assert!(
                p50 >= service_p50 * within,
                "{mode} {name}: latency from intended start {p50} >= service {service_p50}"
            );
        }
        // Every arrival answered: each transport's rounds count them all.
        for t in report["transports"].as_array().unwrap() {
            assert_eq!(t["ops"].as_u64(), Some(ROUNDS * ARRIVALS_PER_ROUND), "{mode}: {t}");
        }
        assert_eq!(summary["ratios"].as_array().unwrap().len(), 2, "p50 and p99");
        assert_eq!(summary["ratios"][1]["pairs"], ROUNDS, "{mode}");
    }
    // Cleanup deleted what the paced puts wrote, and only that.
    assert_eq!(etcd.ctl_ok(&["get", "gcs-speed-tui/", "--prefix", "--keys-only"]).trim(), "");
}

#[test]
fn the_paced_puts_write_the_keys_a_closed_round_writes() {
    let etcd = Etcd::start();
    let report = etcd_run(&etcd, &["--mode", "put", "--cleanup=false", "--sequential-keys", "--transports", "grpc"]);
    let run_id = report["run_id"].as_str().unwrap();
    let keys = etcd.ctl_ok(&["get", &format!("gcs-speed-tui/{run_id}/"), "--prefix", "--keys-only"]);
    let found: Vec<&str> = keys.lines().filter(|l| !l.is_empty()).collect();
    // Sequential keys 0..99 of 8 digits: the 100 arrivals of each round put the same 100 keys.
    let expected: Vec<String> = (0..ARRIVALS_PER_ROUND).map(|i| format!("gcs-speed-tui/{run_id}/{i:08}")).collect();
    assert_eq!(found, expected);
    etcd.ctl_ok(&["del", &format!("gcs-speed-tui/{run_id}/"), "--prefix"]);
}
