//! Reads against every shape of checksums the v2 proto and the JSON API
//! allow a server to send (the emulator's `--read-checksums`): the object's
//! crc32c only in the first message's metadata, or none at all. A reader
//! checks what is sent, fails only on a mismatch, and says in the report
//! what it could not check.

mod common;

use gcs_speed_tui::config::Options;
use gcs_speed_tui::emulator::{Emulator, EmulatorOptions, ReadChecksums};

const ITERATIONS: usize = 3;
const CONCURRENCY: usize = 2;

async fn emulator(shape: ReadChecksums) -> Emulator {
    common::emulator_with(EmulatorOptions { retain: true, read_checksums: shape, ..EmulatorOptions::default() }).await
}

fn reads(emulator: &Emulator) -> Options {
    Options {
        workload: "download".into(),
        size: "3MiB".into(),
        iterations: ITERATIONS.to_string(),
        concurrency: CONCURRENCY.to_string(),
        warmup: false,
        ..common::options_for(emulator)
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn checksums_only_in_the_metadata_are_checked_and_the_reads_pass() {
    let emulator = emulator(ReadChecksums::Metadata).await;
    let report = common::run_bench(reads(&emulator)).await;
    assert!(report.succeeded(), "{}", report.to_table());
    assert_eq!(report.transports.len(), 2);
    for t in &report.transports {
        assert_eq!((t.runs, t.errors), (ITERATIONS, 0), "{:?}", t.transport);
        assert_eq!(t.unchecked_reads, 0, "{:?}: the object's crc32c was there, in its metadata", t.transport);
    }
    assert!(!report.to_table().contains("not checked whole"), "{}", report.to_table());
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_without_any_checksum_pass_and_the_report_says_they_were_not_checked() {
    let emulator = emulator(ReadChecksums::None).await;
    let report = common::run_bench(reads(&emulator)).await;
    assert!(report.succeeded(), "{}", report.to_table());
    let reads = ITERATIONS * CONCURRENCY;
    for t in &report.transports {
        assert_eq!((t.runs, t.errors, t.objects), (ITERATIONS, 0, reads), "{:?}", t.transport);
        assert_eq!(t.unchecked_reads, reads, "{:?}: none could be checked", t.transport);
    }
    let table = report.to_table();
    let said = format!("{reads} of {reads} reads not checked whole: the server sent no crc32c of the object");
    assert_eq!(table.matches(&said).count(), 2, "once per transport: {table}");
    let unchecked_samples = report.samples.iter().filter(|s| s.unchecked).count();
    assert_eq!(unchecked_samples, 2 * reads, "every read's sample says so too");
}

#[tokio::test(flavor = "multi_thread")]
async fn with_checksums_off_nothing_is_said_to_be_unchecked() {
    let emulator = emulator(ReadChecksums::None).await;
    let report = common::run_bench(Options { checksum: "none".into(), ..reads(&emulator) }).await;
    assert!(report.succeeded(), "{}", report.to_table());
    assert_eq!(report.transports.len(), 2, "both transports' rows");
    assert!(report.transports.iter().all(|t| t.objects > 0 && t.unchecked_reads == 0), "no check was asked for");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_corrupted_read_is_caught_by_the_metadatas_crc32c_alone() {
    let every_second = gcs_speed_tui::emulator::faults::parse_rule("corrupt-after-1M:every=2").unwrap();
    let emulator = common::emulator_with(EmulatorOptions {
        retain: true,
        read_checksums: ReadChecksums::Metadata,
        faults: vec![every_second],
        ..EmulatorOptions::default()
    })
    .await;
    let options = Options { transports: "grpc".into(), concurrency: "1".into(), ..reads(&emulator) };
    let report = common::run_bench(options).await;
    // Data requests: the one upload (1st), then the reads (2nd, 3rd, ...):
    // every second request is corrupted.
    let corrupted = (2..2 + ITERATIONS).filter(|n| n % 2 == 0).count();
    let errors: Vec<&str> = report.samples.iter().filter_map(|s| s.error.as_deref()).collect();
    assert_eq!(errors.len(), corrupted, "{errors:?}");
    assert!(errors.iter().all(|e| e.contains("checksum mismatch")), "{errors:?}");
}
