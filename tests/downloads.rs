//! The download workload end to end, through the binary and its built-in
//! emulator: whole and ranged reads on both transports, faults mid-read
//! resumed (and counted), corruption caught by the checksums, nothing left.

mod common;

use serde_json::Value;

const READS: &[&str] = &["run", "--workload", "download", "--size", "4MiB", "--iterations", "3", "--format", "json"];

fn report(extra: &[&str]) -> Value {
    let output = common::run(&[READS, extra].concat(), &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn transports(report: &Value) -> &Vec<Value> {
    report["transports"].as_array().unwrap()
}

#[test]
fn whole_and_ranged_reads_complete_on_both_transports_and_leave_nothing() {
    for (range, per_read) in [("0", 4u64 << 20), ("1MiB", 1 << 20)] {
        let report = report(&["--concurrency", "2", "--range-size", range]);
        assert_eq!(report["config"]["workload"], "download");
        assert_eq!(report["outcome"], "completed");
        for t in transports(&report) {
            assert_eq!((t["runs"].as_u64(), t["errors"].as_u64()), (Some(3), Some(0)), "{t}");
            assert!(t["throughput_mib_s"].as_f64().unwrap() > 0.0);
            assert!(t["first_byte_p50_s"].as_f64().unwrap() > 0.0, "time to first byte is measured");
        }
        for round in report["rounds"].as_array().unwrap() {
            assert_eq!(round["bytes"].as_u64(), Some(2 * per_read), "each round reads both objects' spans: {round}");
        }
        assert_eq!(report["cleanup"]["left"].as_array().unwrap().len(), 0);
        assert_eq!(report["cleanup"]["deleted"].as_u64(), Some(2), "the prepared objects are deleted");
    }
}

#[test]
fn a_503_or_a_reset_mid_read_is_resumed_and_counted() {
    // Data requests here: the one upload, then each read and its resume.
    // Every second one is a read's first request, so every read is cut.
    for fault in ["return-503-after-1M:every=2", "return-reset-connection-after-1M:every=2"] {
        let report = report(&["--warmup=false", "--emulator-fault", fault, "--retry-initial", "10ms"]);
        assert_eq!(report["outcome"], "completed", "{fault}");
        let resumes: u64 = transports(&report).iter().map(|t| t["resumes"].as_u64().unwrap()).sum();
        assert_eq!(resumes, 6, "{fault}: each of the six reads was cut at 1 MiB and resumed once");
        for round in report["rounds"].as_array().unwrap() {
            assert_eq!(round["bytes"].as_u64(), Some(4 << 20), "{fault}: resumed reads are whole: {round}");
        }
        if fault.contains("reset") {
            // Each reset took a socket's last counts with it: no wire figure, not a low one.
            assert!(transports(&report).iter().all(|t| t["wire_ratio"].is_null()), "{fault}");
        }
    }
}

#[test]
fn a_corrupted_read_fails_its_checksum_and_is_not_retried() {
    let output =
        common::run(&[READS, &["--warmup=false", "--emulator-fault", "corrupt-after-1M:every=2"]].concat(), &[]);
    assert_eq!(output.status.code(), Some(1), "failed reads fail the run");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["outcome"], "completed_with_errors");
    let errors: Vec<&str> = report["samples"].as_array().unwrap().iter().filter_map(|s| s["error"].as_str()).collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(errors.iter().all(|e| e.contains("checksum mismatch")), "{errors:?}");
    let retries: u64 = transports(&report).iter().map(|t| t["retries"].as_u64().unwrap()).sum();
    assert_eq!(retries, 0, "a mismatch is never retried");
}

#[test]
fn a_range_larger_than_the_object_or_without_reads_is_refused() {
    let too_big = common::run(&[READS, &["--range-size", "8MiB"]].concat(), &[]);
    assert_eq!(too_big.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&too_big.stderr).contains("--range-size 8MiB is larger than the objects"));
    let uploads = common::run(&["run", "--range-size", "1MiB"], &[]);
    assert_eq!(uploads.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&uploads.stderr).contains("--range-size is for reads"));
}

fn against(emulator: &gcs_speed_tui::emulator::Emulator) -> gcs_speed_tui::config::Options {
    gcs_speed_tui::config::Options {
        bucket: common::BUCKET.into(),
        endpoint: emulator.json_url(),
        grpc_endpoint: emulator.grpc_addr().to_string(),
        size: "1MiB".into(),
        iterations: "3".into(),
        warmup: false,
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_prefix_reads_what_exists_there_and_never_deletes_it() {
    use gcs_speed_tui::emulator::EmulatorOptions;
    let emulator = common::emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    // Someone else's data: three objects under data/, kept.
    let upload = gcs_speed_tui::config::Options {
        prefix: "data".into(),
        transports: "http-json".into(),
        concurrency: "3".into(),
        iterations: "1".into(),
        cleanup: false,
        ..against(&emulator)
    };
    assert!(common::run_bench(upload).await.cleanup.kept.len() == 3);
    let before: Vec<_> = emulator.store().list(common::BUCKET, "").unwrap().iter().map(|o| o.generation).collect();

    let read = gcs_speed_tui::config::Options {
        workload: "download".into(),
        read_prefix: "data/".into(),
        concurrency: "2".into(),
        range_size: "256KiB".into(),
        ..against(&emulator)
    };
    let report = common::run_bench(read).await;
    assert!(report.succeeded(), "{}", report.to_table());
    for t in &report.transports {
        assert_eq!((t.runs, t.errors, t.bytes_per_run), (3, 0, 2 * 256 * 1024), "two of the three, 256 KiB each");
    }
    assert!(report.to_table().contains("the existing objects under data/ (read only, never deleted)"));
    assert_eq!(report.cleanup.deleted, 0, "nothing of theirs is deleted");
    let after: Vec<_> = emulator.store().list(common::BUCKET, "").unwrap().iter().map(|o| o.generation).collect();
    assert_eq!(before, after, "the same objects, untouched");

    let nothing = gcs_speed_tui::config::Options {
        workload: "download".into(),
        read_prefix: "nothing-here/".into(),
        ..against(&emulator)
    };
    let report = common::run_bench(nothing).await;
    assert!(!report.succeeded());
    assert_eq!(
        report.stopped_because.as_deref(),
        Some(
            "there are no objects under --read-prefix nothing-here/ in bucket test-bucket: give a prefix that holds objects, or leave --read-prefix out to read objects the run uploads"
        )
    );
    assert!(report.transports.iter().all(|t| t.throughput_mib_s.is_none()), "nothing measured, no figure");
    let table = report.to_table();
    assert_eq!(table.matches("there are no objects under").count(), 1, "said once: {table}");
    assert!(!table.contains("Transport  Runs"), "no table of dashes for a run that never started: {table}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_emulator_keeps_one_copy_of_bytes_uploaded_again_and_again() {
    use gcs_speed_tui::emulator::EmulatorOptions;
    let emulator = common::emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let many = gcs_speed_tui::config::Options {
        concurrency: "4".into(),
        iterations: "2".into(),
        size: "4MiB".into(),
        cleanup: false,
        ..against(&emulator)
    };
    let report = common::run_bench(many).await;
    assert_eq!(report.cleanup.kept.len(), 16, "4 objects x 2 rounds x 2 transports");
    assert_eq!(emulator.store().retained_bytes(), 4 << 20, "16 objects of the same 4 MiB, kept once");
}
