//! `--workload append` end to end against the emulator: gRPC writes
//! appendable objects, each append flushed and its persistence awaited; JSON
//! sends the same bytes as a resumable upload's chunks. Over gRPC a second
//! stream reads each flush back as the object grows. Counts come from the
//! run's inputs and the objects are read back from the emulator's store.

mod common;
use common::*;
use gcs_speed_tui::config::{Options, TransportKind};
use gcs_speed_tui::emulator::EmulatorOptions;

#[tokio::test(flavor = "multi_thread")]
async fn every_append_is_flushed_and_answered_and_the_objects_are_whole_and_finalized() {
    // Bytes kept: the read back reads them.
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let dir = tempfile::tempdir().unwrap();
    let samples_path = dir.path().join("objects.ndjson");
    let options = Options {
        workload: "append".into(),
        read_back: "on".into(),
        size: "1MiB".into(),
        append_size: "256KiB".into(),
        concurrency: "2".into(),
        iterations: "2".into(),
        warmup: false,
        cleanup: false,
        ..options_for(&emulator)
    };
    let report = run_bench_sampled(options, &samples_path).await;
    // 1 MiB in 256 KiB appends, each flushed: 4 flushes an object, 2 objects, 2 rounds.
    assert_eq!(report.appends.len(), 2, "{:?}", report.appends);
    for summary in &report.appends {
        assert_eq!(summary.flushes, 16, "{summary:?}");
        assert!(summary.flush_p50_s.is_some_and(|s| s > 0.0) && summary.flush_p99_s >= summary.flush_p50_s);
    }
    let json = report.appends.iter().find(|a| a.transport == TransportKind::Json).unwrap();
    assert!(json.method.starts_with("no appendable objects in the JSON API"), "{}", json.method);
    let grpc = report.appends.iter().find(|a| a.transport == TransportKind::Grpc).unwrap();
    assert_eq!((json.read_back, grpc.read_back), (0, 16), "every gRPC flush read back, no JSON one");
    assert!(grpc.read_back_p50_s >= grpc.flush_p50_s, "a flush is read back after its answer: {grpc:?}");
    for sample in &report.samples {
        assert!(sample.ok, "{sample:?}");
        let flushes = sample.flushes.as_ref().expect("each object's flushes");
        assert_eq!(flushes.len(), 4);
        if sample.transport == TransportKind::Grpc {
            let read_back = sample.read_back.as_ref().expect("each flush read back");
            assert_eq!(read_back.len(), 4);
            for (flush, read) in flushes.iter().zip(read_back) {
                assert!(read > flush, "read back after the answer, from the same first byte: {sample:?}");
            }
        } else {
            assert_eq!(sample.read_back, None, "a JSON upload is not readable before it ends");
        }
        let stored = emulator.store().get(BUCKET, &sample.object).unwrap();
        assert_eq!((stored.size, stored.finalized), (MIB, true), "{}", sample.object);
    }
    // The report's CSV: a row per round; the samples file: every object, with its flushes and read backs.
    assert_eq!(report.to_csv().lines().count(), 1 + 4, "a header and a row per round: 2 rounds, 2 transports");
    let streamed = std::fs::read_to_string(&samples_path).unwrap();
    let objects: Vec<gcs_speed_tui::gcs::stats::ObjectSample> =
        streamed.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(objects.len(), 8, "an object per line: 2 writers, 2 rounds, 2 transports");
    for object in &objects {
        let flushes = object.flushes.as_ref().map_or(0, Vec::len);
        let read_back = object.read_back.as_ref().map_or(0, Vec::len);
        let grpc = object.transport == TransportKind::Grpc;
        assert_eq!((flushes, read_back), (4, if grpc { 4 } else { 0 }), "{object:?}");
    }
    assert_eq!(emulator.store().object_count(), 8, "--cleanup=false keeps the 8 objects");
    let text = report.to_table();
    assert!(
        text.contains("grpc (appendable BidiWriteObject, flush + state_lookup every 256 KiB): 16 flushes"),
        "{text}"
    );
    assert!(text.contains("; each read back by a second stream, from the flush's first byte p50 "), "{text}");
    assert!(text.contains("; no reader sees a byte until the upload is finished"), "{text}");
    // Only gRPC read back: the verdict says the lanes' work differed.
    let caveat = report.verdicts[0].caveat.as_deref().unwrap_or_default();
    assert!(caveat.contains("only gRPC's objects were read back as they grew"), "{:?}", report.verdicts);
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
        (&["--workload", "append", "--read-back", "yes"][..], "--read-back 'yes' is not one of on, off"),
        (&["--read-back", "on"][..], "--read-back is for --workload append"),
    ] {
        let output = run(&[&["run", "--emulator"][..], args].concat(), &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says) && stderr.lines().count() == 1, "{args:?}: {stderr}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_appendable_write_that_fails_leaves_no_object_behind() {
    use gcs_speed_tui::emulator::faults::Fault;
    // gRPC alone, no warmup: data requests are the writes; every second one
    // fails after 100 KiB, leaving its appendable object unfinalized.
    let fault = (Fault::parse("return-503-after-100K").unwrap(), 2);
    let emulator =
        emulator_with(EmulatorOptions { faults: vec![fault], retain: true, ..EmulatorOptions::default() }).await;
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

#[tokio::test(flavor = "multi_thread")]
async fn by_default_no_second_stream_reads_back_and_the_report_says_so() {
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let options = Options {
        workload: "append".into(),
        transports: "grpc".into(),
        size: "512KiB".into(),
        iterations: "1".into(),
        warmup: false,
        ..options_for(&emulator)
    };
    let report = run_bench(options).await;
    let grpc = &report.appends[0];
    assert_eq!((grpc.flushes, grpc.read_back, grpc.read_back_p50_s), (2, 0, None), "{grpc:?}");
    assert!(!report.samples.is_empty());
    assert!(report.samples.iter().all(|s| s.ok && s.read_back.is_none()), "{:?}", report.samples);
    assert!(report.to_table().contains("; not read back by a second stream"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fleets_flushes_and_reads_back_are_pooled_from_every_hosts_objects() {
    use gcs_speed_tui::finished::Finished;
    use gcs_speed_tui::fleet::command::merge_loaded;
    use gcs_speed_tui::fleet::inputs::Loaded;
    use gcs_speed_tui::gcs::report::RunReport;
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let options = || Options {
        workload: "append".into(),
        read_back: "on".into(),
        size: "512KiB".into(),
        iterations: "2".into(),
        warmup: false,
        ..options_for(&emulator)
    };
    let a = run_bench(options()).await.host_label("a".into());
    let b = run_bench(options()).await.host_label("b".into());
    let loaded = |name: &str, report: &RunReport| Loaded {
        name: name.into(),
        report: Finished::from(report.clone()),
        point: None,
    };
    let fleet: RunReport = merge_loaded(&[loaded("a.json", &a), loaded("b.json", &b)]).unwrap().downcast().unwrap();
    // Each host: 1 writer x 2 rounds x 2 flushes (512 KiB in 256 KiB appends).
    let by = |kind| fleet.appends.iter().find(|s| s.transport == kind).unwrap();
    let (json, grpc) = (by(TransportKind::Json), by(TransportKind::Grpc));
    assert_eq!((json.flushes, json.read_back), (8, 0), "{json:?}");
    assert_eq!((grpc.flushes, grpc.read_back), (8, 8), "{grpc:?}");
    let every: Vec<f64> = [&a, &b]
        .iter()
        .flat_map(|r| r.samples.iter().filter(|s| s.transport == TransportKind::Grpc))
        .flat_map(|s| s.read_back.clone().unwrap_or_default())
        .collect();
    assert_eq!(every.len(), 8, "both hosts' read-backs: {every:?}");
    let slowest = every.iter().copied().fold(0.0, f64::max);
    assert!(grpc.read_back_p99_s.is_some_and(|p99| p99 <= slowest && p99 > 0.0), "{grpc:?} {every:?}");
    // The p99 of all 8 (by nearest rank: the 8th, the slowest of both hosts),
    // to the histogram's 3 digits: one host's alone would be its own slowest.
    let p99 = grpc.read_back_p99_s.unwrap();
    assert!((p99 - slowest).abs() <= slowest * 0.002 + 1e-6, "p99 {p99} of both hosts' slowest {slowest}");
}
