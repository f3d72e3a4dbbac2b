//! `--workload ranges` end to end against the emulator: every reader's
//! ranges read over JSON (one GET each) and gRPC (one BidiReadObject stream
//! per read, or one ReadObject per range), counted from the run's own
//! inputs; bad range flags refused in one sentence.

mod common;
use common::*;
use gcs_speed_tui::config::{Options, TransportKind};
use gcs_speed_tui::emulator::EmulatorOptions;
use gcs_speed_tui::gcs::report::RunReport;

const RANGE: u64 = 64 * KIB;

fn ranges_options(emulator: &gcs_speed_tui::emulator::Emulator, grpc: &str) -> Options {
    Options {
        workload: "ranges".into(),
        range_size: "64KiB".into(),
        ranges_per_object: "8".into(),
        concurrency: "3".into(),
        iterations: "2".into(),
        grpc_ranges: grpc.into(),
        ..options_for(emulator)
    }
}

/// Checks what every transport read against the run's inputs: 3 readers
/// x 8 ranges x 2 rounds, each read 8 x 64 KiB, each range timed.
fn check_every_range_was_read(report: &RunReport) {
    let (readers, per_object, rounds) = (3u64, 8u64, 2u64);
    assert_eq!(report.ranges.len(), 2, "{:?}", report.ranges);
    for summary in &report.ranges {
        assert_eq!(summary.ranges, readers * per_object * rounds, "{summary:?}");
        assert!(summary.ranges_per_s.is_some_and(|r| r > 0.0));
        let (first, complete) = (summary.first_byte_p50_s.unwrap(), summary.complete_p50_s.unwrap());
        assert!(first > 0.0 && complete >= first, "{summary:?}");
    }
    let reads: Vec<_> = report.samples.iter().filter(|s| s.ok).collect();
    assert_eq!(reads.len() as u64, readers * rounds * 2, "each reader's read, both transports");
    for sample in reads {
        assert_eq!(sample.bytes, per_object * RANGE);
        let ranges = sample.ranges.as_ref().expect("each read keeps its ranges' times");
        assert_eq!(ranges.len() as u64, per_object);
        assert!(ranges.iter().all(|r| r.first_byte_s > 0.0 && r.complete_s >= r.first_byte_s));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_ranges_run_reads_every_range_one_get_each_and_one_bidi_stream_per_read() {
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let report = run_bench(ranges_options(&emulator, "bidi")).await;
    check_every_range_was_read(&report);
    let by = |kind| report.ranges.iter().find(|r| r.transport == kind).unwrap();
    assert_eq!(
        (by(TransportKind::Json).method.as_str(), by(TransportKind::Json).requests),
        ("GET with Range per range", 48)
    );
    assert_eq!((by(TransportKind::Grpc).method.as_str(), by(TransportKind::Grpc).requests), ("BidiReadObject", 6));
    assert_eq!(emulator.store().object_count(), 0, "the objects read are deleted at the end");
    let text = report.to_table();
    assert!(text.contains("grpc (BidiReadObject): 48 ranges"), "{text}");
    assert!(text.contains("each round reads 8 ranges of 64 KiB of each object, all wanted at once"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_can_read_each_range_with_a_readobject_of_its_own() {
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let report = run_bench(ranges_options(&emulator, "read-object")).await;
    check_every_range_was_read(&report);
    let grpc = report.ranges.iter().find(|r| r.transport == TransportKind::Grpc).unwrap();
    assert_eq!((grpc.method.as_str(), grpc.requests), ("ReadObject per range", 48));
}

#[test]
fn range_flags_are_checked_in_one_sentence() {
    for (args, says) in [
        (&["--workload", "ranges"][..], "--workload ranges needs --range-size"),
        (&["--workload", "ranges", "--range-size", "1KiB", "--ranges-per-object", "0"][..], "ranges"),
        (&["--workload", "ranges", "--range-size", "1KiB", "--grpc-ranges", "both"][..], "--grpc-ranges 'both'"),
        (&["--workload", "ranges", "--range-size", "1KiB", "--range-order", "up"][..], "--range-order 'up'"),
        (&["--workload", "download", "--ranges-per-object", "4"][..], "--ranges-per-object is for --workload ranges"),
        (&["--workload", "download", "--range-size", "1KiB,2KiB"][..], "a list or a spread is for --workload ranges"),
        (&["--transports", "grpc-read-object,grpc"][..], "--transports grpc-read-object is for --workload ranges"),
        (&["--transports", "grpc,grpc"][..], "--transports 'grpc,grpc' names grpc twice: name two different ones"),
        (&["--transports", "grpc,ftp"][..], "is not one of both, http-json, grpc, or two transports"),
        (
            &[
                "--workload",
                "ranges",
                "--range-size",
                "1KiB",
                "--transports",
                "grpc-read-object,grpc",
                "--grpc-ranges",
                "read-object",
            ][..],
            "leave --grpc-ranges at bidi to pair the two",
        ),
        (&["--workload", "ranges", "--range-size", "64KiB..4KiB"][..], "put the smaller size first"),
        (&["--workload", "ranges", "--size", "1MiB", "--range-size", "4KiB,2MiB"][..], "its largest, 2 MiB, is larger"),
        (
            &["--workload", "ranges", "--range-size", "64KiB..64KiB"][..],
            "both ends are the same: give the one size, like 64KiB",
        ),
        (&["--workload", "ranges", "--range-size", "4KiB,0,1MiB"][..], "'0' is no size"),
    ] {
        let output = run(&[&["run", "--emulator"][..], args].concat(), &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says) && stderr.lines().count() == 1, "{args:?}: {stderr}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn ranges_of_a_list_of_sizes_are_read_each_at_its_size_by_both_transports() {
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let options = Options {
        size: "2MiB".into(),
        range_size: "4KiB,64KiB,1MiB".into(),
        ranges_per_object: "5".into(),
        ..ranges_options(&emulator, "bidi")
    };
    let report = run_bench(options).await;
    // The list taken in turn: 4 KiB, 64 KiB, 1 MiB, 4 KiB, 64 KiB.
    let per_read = 4 * KIB + 64 * KIB + MIB + 4 * KIB + 64 * KIB;
    let reads: Vec<_> = report.samples.iter().filter(|s| s.ok).collect();
    assert_eq!(reads.len(), 3 * 2 * 2, "3 readers, 2 rounds, both transports");
    for sample in &reads {
        assert_eq!(sample.bytes, per_read, "{sample:?}");
        assert_eq!(sample.ranges.as_ref().map(Vec::len), Some(5));
    }
    assert_eq!(report.ranges.len(), 2, "a summary per transport");
    for summary in &report.ranges {
        assert_eq!(summary.ranges, 30, "{summary:?}");
        assert!(summary.mib_per_s.is_some_and(|r| r > 0.0), "{summary:?}");
    }
    let text = report.to_table();
    assert!(text.contains("5 ranges of 4 KiB, 64 KiB, 1 MiB in turn of each object"), "{text}");
    assert_eq!(report.to_csv().lines().count(), 1 + 4, "a header and a row per round: 2 rounds, 2 transports");
}

#[tokio::test(flavor = "multi_thread")]
async fn readobject_per_range_and_bidireadobject_are_paired_in_one_run() {
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let options = Options {
        transports: "grpc-read-object,grpc".into(),
        iterations: "5".into(),
        ..ranges_options(&emulator, "bidi")
    };
    let report = run_bench(options).await;
    let by = |kind| report.ranges.iter().find(|r| r.transport == kind).unwrap();
    // 3 readers x 8 ranges x 5 rounds: a ReadObject each, or a stream per read.
    let (apart, bidi) = (by(TransportKind::GrpcReadObject), by(TransportKind::Grpc));
    assert_eq!((apart.method.as_str(), apart.ranges, apart.requests), ("ReadObject per range", 120, 120));
    assert_eq!((bidi.method.as_str(), bidi.ranges, bidi.requests), ("BidiReadObject", 120, 15));
    let verdict = &report.verdicts[0];
    let measured: Vec<TransportKind> = verdict.comparison.measured.iter().map(|(kind, _)| *kind).collect();
    assert_eq!(measured, [TransportKind::GrpcReadObject, TransportKind::Grpc], "the two gRPC ways are the pair");
    assert_eq!(verdict.comparison.pairs, 5, "{verdict:?}");
    assert_eq!(report.samples.len(), 2 * 3 * 5, "each lane's reads");
    for sample in &report.samples {
        assert!(sample.ok && sample.bytes == 8 * RANGE, "{sample:?}");
    }
    let text = report.to_table();
    assert!(text.contains("grpc-read-object (ReadObject per range): 120 ranges"), "{text}");
    assert!(text.contains("grpc (BidiReadObject): 120 ranges"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn ranges_per_second_leave_out_a_round_that_did_not_complete() {
    use gcs_speed_tui::gcs::report::ranges::ranges_summaries;
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let report = run_bench(ranges_options(&emulator, "bidi")).await;
    // As if gRPC's first round had a read fail: its time and reads leave the rate.
    let mut rounds = report.rounds.clone();
    let first = rounds.iter_mut().find(|r| r.transport == TransportKind::Grpc && r.round == 0).unwrap();
    first.ok = false;
    let second = rounds.iter().find(|r| r.transport == TransportKind::Grpc && r.round == 1).unwrap();
    let summaries = ranges_summaries(&report.config, &rounds, &[]);
    let grpc = summaries.iter().find(|r| r.transport == TransportKind::Grpc).unwrap();
    // The second round alone: 3 readers x 8 ranges of 64 KiB in its time.
    let expected = 24.0 / second.elapsed_s;
    assert!((grpc.ranges_per_s.unwrap() - expected).abs() < 1e-6 * expected, "{grpc:?} against {expected}");
    let mib = (24 * RANGE) as f64 / (1 << 20) as f64 / second.elapsed_s;
    assert!((grpc.mib_per_s.unwrap() - mib).abs() < 1e-6 * mib, "{grpc:?} against {mib}");
    assert_eq!(grpc.ranges, 48, "every range read whole still counts, and its latency");
}

/// Two hosts' runs, one after the other (never at once), merged.
async fn merged_pair(emulator: &gcs_speed_tui::emulator::Emulator) -> RunReport {
    use gcs_speed_tui::finished::Finished;
    use gcs_speed_tui::fleet::command::merge_loaded;
    use gcs_speed_tui::fleet::inputs::Loaded;
    let a = run_bench(ranges_options(emulator, "bidi")).await.host_label("a".into());
    let b = run_bench(ranges_options(emulator, "bidi")).await.host_label("b".into());
    let loaded = |name: &str, report: &RunReport| Loaded {
        name: name.into(),
        report: Finished::from(report.clone()),
        point: None,
    };
    merge_loaded(&[loaded("a.json", &a), loaded("b.json", &b)])
        .unwrap()
        .downcast()
        .expect("GCS reports merge into a GCS report")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fleets_ranges_are_worked_out_again_from_every_hosts_reads() {
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let fleet = merged_pair(&emulator).await;
    // Two hosts of 3 readers x 8 ranges x 2 rounds each; gRPC one stream per read.
    let by = |kind| fleet.ranges.iter().find(|r| r.transport == kind).unwrap();
    assert_eq!((by(TransportKind::Json).ranges, by(TransportKind::Json).requests), (96, 96));
    assert_eq!((by(TransportKind::Grpc).ranges, by(TransportKind::Grpc).requests), (96, 12));
}

#[test]
fn a_bidi_stream_cut_mid_read_is_resumed_with_its_handle_for_the_ranges_left() {
    // gRPC alone, no warmup: data requests are the one upload of the object
    // to read, then each round's stream and its resumed stream. Every second
    // one is a round's first stream, cut after 100 KiB: 64 KiB range 1 and
    // part of range 2.
    let output = run(
        &[
            "run",
            "--emulator",
            "--transports",
            "grpc",
            "--warmup=false",
            "--workload",
            "ranges",
            "--size",
            "1MiB",
            "--range-size",
            "64KiB",
            "--ranges-per-object",
            "4",
            "--range-order",
            "sequential",
            "--iterations",
            "2",
            "--emulator-fault",
            "return-503-after-100K:every=2",
            "--retry-initial",
            "10ms",
            "--format",
            "json",
        ],
        &[],
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["outcome"], "completed", "{}", String::from_utf8_lossy(&output.stderr));
    let grpc = &report["transports"][0];
    assert_eq!((grpc["resumes"].as_u64(), grpc["errors"].as_u64()), (Some(2), Some(0)), "{grpc}");
    let ranges = &report["ranges"][0];
    assert_eq!(
        (ranges["ranges"].as_u64(), ranges["requests"].as_u64()),
        (Some(8), Some(4)),
        "two streams, each resumed once: {ranges}"
    );
    assert!(!report["rounds"].as_array().unwrap().is_empty(), "{report}");
    for round in report["rounds"].as_array().unwrap() {
        assert_eq!(round["bytes"].as_u64(), Some(4 * RANGE), "resumed reads are whole: {round}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_merged_ranges_report_says_what_was_read_and_no_rate_for_hosts_apart() {
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let fleet = merged_pair(&emulator).await;
    let text = fleet.to_table();
    assert!(
        text.contains(
            "8 ranges of 64 KiB of each object, all wanted at once, each at a random offset (aligned, seeds per host)"
        ),
        "{text}"
    );
    assert_eq!(fleet.ranges.len(), 2, "{:?}", fleet.ranges);
    assert!(fleet.ranges.iter().all(|r| r.ranges_per_s.is_none()), "{:?}", fleet.ranges);
}

/// The same cut stream counted by the server: every stream opened, and
/// each resumed one naming the read handle the first one was given (a
/// resume that reopened without it would count as opened, not by handle).
#[tokio::test(flavor = "multi_thread")]
async fn the_server_sees_each_cut_stream_resumed_by_its_read_handle() {
    let every_second = gcs_speed_tui::emulator::faults::parse_rule("return-503-after-100K:every=2").unwrap();
    let emulator =
        emulator_with(EmulatorOptions { retain: true, faults: vec![every_second], ..EmulatorOptions::default() }).await;
    let (rounds, per_object) = (2u64, 4u64);
    let options = Options {
        transports: "grpc".into(),
        warmup: false,
        size: "1MiB".into(),
        range_size: "64KiB".into(),
        ranges_per_object: per_object.to_string(),
        range_order: "sequential".into(),
        iterations: rounds.to_string(),
        retry_initial: "10ms".into(),
        ..ranges_options(&emulator, "bidi")
    };
    let options = Options { concurrency: "1".into(), ..options };
    let report = run_bench(options).await;
    assert!(report.succeeded(), "{}", report.to_table());
    // Data requests: the upload to read (1st), then each round's stream
    // (2nd, 4th: cut after 100 KiB) and its resumed stream (3rd, 5th).
    let reads = emulator.bidi_reads();
    let load = |n: &std::sync::atomic::AtomicU64| n.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(load(&reads.opened), 2 * rounds, "a stream and its resumption each round");
    assert_eq!(load(&reads.by_handle), rounds, "each resumption named its handle");
    assert_eq!(report.ranges[0].requests, 2 * rounds);
    assert_eq!(report.ranges[0].ranges, per_object * rounds);
    assert_eq!(report.transports[0].resumes, rounds);
}
