//! `--workload append` end to end against the emulator: gRPC writes
//! appendable objects, each append flushed and its persistence awaited; JSON
//! sends the same bytes as a resumable upload's chunks. Counts come from the
//! run's inputs and the objects are read back from the emulator's store.

mod common;
use common::*;
use gcs_speed_tui::config::{Options, TransportKind};

#[tokio::test(flavor = "multi_thread")]
async fn every_append_is_flushed_and_answered_and_the_objects_are_whole_and_finalized() {
    let emulator = emulator().await;
    let options = Options {
        workload: "append".into(),
        size: "1MiB".into(),
        append_size: "256KiB".into(),
        concurrency: "2".into(),
        iterations: "2".into(),
        warmup: false,
        cleanup: false,
        ..options_for(&emulator)
    };
    let report = run_bench(options).await;
    // 1 MiB in 256 KiB appends, each flushed: 4 flushes an object, 2 objects, 2 rounds.
    assert_eq!(report.appends.len(), 2, "{:?}", report.appends);
    for summary in &report.appends {
        assert_eq!(summary.flushes, 16, "{summary:?}");
        assert!(summary.flush_p50_s.is_some_and(|s| s > 0.0) && summary.flush_p99_s >= summary.flush_p50_s);
    }
    let json = report.appends.iter().find(|a| a.transport == TransportKind::Json).unwrap();
    assert!(json.method.starts_with("no appendable objects in the JSON API"), "{}", json.method);
    for sample in &report.samples {
        assert!(sample.ok, "{sample:?}");
        assert_eq!(sample.flushes.as_ref().map(Vec::len), Some(4));
        let stored = emulator.store().get(BUCKET, &sample.object).unwrap();
        assert_eq!((stored.size, stored.finalized), (MIB, true), "{}", sample.object);
    }
    assert_eq!(emulator.store().object_count(), 8, "--cleanup=false keeps the 8 objects");
    let text = report.to_table();
    assert!(
        text.contains("grpc (appendable BidiWriteObject, flush + state_lookup every 256 KiB): 16 flushes"),
        "{text}"
    );
}

#[test]
fn append_flags_are_checked_in_one_sentence() {
    for (args, says) in [
        (
            &["--workload", "append", "--append-size", "100KiB"][..],
            "--append-size must be a positive multiple of 256 KiB",
        ),
        (&["--workload", "append", "--size", "256KiB", "--append-size", "512KiB"][..], "larger than the objects"),
        (&["--workload", "append", "--flush-every", "0"][..], "flush"),
        (&["--workload", "append", "--size", "1MiB", "--flush-every", "5"][..], "more than one object"),
        (&["--flush-every", "2"][..], "--flush-every is for --workload append"),
    ] {
        let output = run(&[&["run", "--emulator"][..], args].concat(), &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says) && stderr.lines().count() == 1, "{args:?}: {stderr}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_appendable_write_that_fails_leaves_no_object_behind() {
    use gcs_speed_tui::emulator::EmulatorOptions;
    use gcs_speed_tui::emulator::faults::Fault;
    // gRPC alone, no warmup: data requests are the writes; every second one
    // fails after 100 KiB, leaving its appendable object unfinalized.
    let fault = (Fault::parse("return-503-after-100K").unwrap(), 2);
    let emulator = emulator_with(EmulatorOptions { faults: vec![fault], ..EmulatorOptions::default() }).await;
    let options = Options {
        workload: "append".into(),
        transports: "grpc".into(),
        size: "1MiB".into(),
        concurrency: "2".into(),
        iterations: "2".into(),
        warmup: false,
        ..options_for(&emulator)
    };
    let report = run_bench(options).await;
    let failed = report.samples.iter().filter(|s| !s.ok).count();
    assert!(failed > 0, "the fault failed some writes: {:?}", report.samples);
    assert_eq!(report.cleanup.deleted as usize, report.samples.len(), "the failed ones' objects too");
    assert_eq!(emulator.store().object_count(), 0, "nothing is left, finalized or not");
}
