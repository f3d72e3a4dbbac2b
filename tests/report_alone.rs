//! A saved report stands alone: the table on stdout (and in --output) names
//! the target and any injected fault, CSV rows name the run and target, and
//! a verdict over rounds whose retries differ markedly between transports
//! says so beside it.

mod common;

use common::synthetic::host;
use gcs_speed_tui::config::TransportKind::{Grpc, Json};
use gcs_speed_tui::gcs::report::RunReport;
use gcs_speed_tui::gcs::stats::{Accounting, Operation, RoundSample, summarize_samples};

/// The synthetic report, with each JSON upload retried `json_retries` times
/// after a 503 and each gRPC one `grpc_retries` times after UNAVAILABLE.
fn with_retries(json_retries: u32, grpc_retries: u32) -> RunReport {
    let base = host("a", 0.0, &[100; 4], 200, 0.010, "1MiB");
    let mut samples = base.samples.clone();
    // Tallied again from the samples changed below.
    let rounds: Vec<_> = base.rounds.iter().cloned().map(|r| RoundSample { items: None, ..r }).collect();
    for sample in &mut samples {
        let (retries, kind) =
            if sample.transport == Json { (json_retries, "HTTP 503") } else { (grpc_retries, "UNAVAILABLE") };
        sample.retries = retries;
        if retries > 0 {
            sample.retried_after = [(kind.to_string(), retries)].into();
        }
    }
    let summaries = [Json, Grpc]
        .map(|kind| summarize_samples(kind, Operation::Upload, 0, &rounds, &samples, Accounting::default()))
        .to_vec();
    RunReport::new(
        base.run_id.clone(),
        base.started_at.clone(),
        base.target.clone(),
        base.config.clone(),
        summaries,
        samples,
        rounds,
        base.outcome,
        base.cleanup.clone(),
    )
}

#[test]
fn a_verdict_over_unlike_trouble_says_so_beside_it() {
    // 4 rounds of one upload each: JSON retried 3 times per upload (12 in
    // all), gRPC once per upload (4): 12 is more than 2 x 4 + 1.
    let report = with_retries(3, 1);
    let table = report.to_table();
    let lines: Vec<&str> = table.lines().collect();
    let verdict = lines.iter().position(|l| l.starts_with("grpc was ")).expect(&table);
    assert_eq!(
        lines[verdict + 1],
        "  caution: the transports did not meet the same trouble (http-json 12 retries and 0 resumes; grpc 4 retries and 0 resumes): the verdict weighs their recoveries as much as the transports",
        "{table}"
    );
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert!(json["verdicts"][0]["caveat"].as_str().unwrap().starts_with("caution: "), "JSON readers see it too");
    assert_eq!(json["transports"][0]["retried_after"]["HTTP 503"], 12);
    assert!(table.contains("12 retries (after HTTP 503 x12)"), "{table}");
    // Alike trouble: no caution.
    let alike = with_retries(1, 1);
    assert!(!alike.to_table().contains("caution"), "{}", alike.to_table());
    assert!(alike.verdicts[0].caveat.is_none());
}

#[test]
fn the_table_and_csv_name_the_target_and_the_injected_fault() {
    let args = ["run", "--size", "256KiB", "--iterations", "3", "--warmup=false", "--retry-initial", "10ms"];
    let fault = ["--emulator-fault", "return-503:every=4"];
    let table = common::run(&[&args[..], &fault].concat(), &[]);
    assert!(table.status.success(), "{}", String::from_utf8_lossy(&table.stderr));
    let stdout = String::from_utf8_lossy(&table.stdout);
    let target = stdout.lines().find(|l| l.starts_with("target: ")).expect(&stdout);
    assert!(target.starts_with("target: built-in emulator on loopback (http://127.0.0.1:"), "{target}");
    assert!(
        target.ends_with("; injecting fault return-503:every=4"),
        "the table alone says the server was faulty: {target}"
    );
    let csv = common::run(&[&args[..], &fault, &["--format", "csv"]].concat(), &[]);
    let csv = String::from_utf8_lossy(&csv.stdout);
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 2 * 3, "a row per transport and round");
    // The target column last.
    assert!(rows.iter().all(|r| r.ends_with(",emulator + fault return-503:every=4")), "{csv}");
}
