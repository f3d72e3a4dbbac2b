//! Uploads against a JSON API whose final answer leaves out the object's
//! size (the emulator's `--upload-answers minimal`, as a partial response
//! or a minimal server may): the upload stands, and the report says its
//! length could not be checked, rather than calling it a short write.

mod common;

use gcs_speed_tui::config::Options;
use gcs_speed_tui::emulator::{EmulatorOptions, UploadAnswers};
use serde_json::Value;

const ITERATIONS: usize = 3;
const CONCURRENCY: usize = 2;
const SIZE: u64 = 1 << 20;

fn uploads(emulator: &gcs_speed_tui::emulator::Emulator) -> Options {
    Options {
        size: "1MiB".into(),
        iterations: ITERATIONS.to_string(),
        concurrency: CONCURRENCY.to_string(),
        warmup: false,
        cleanup: false,
        ..common::options_for(emulator)
    }
}

/// The bucket's objects as the server lists them: name and size.
async fn listed(emulator: &gcs_speed_tui::emulator::Emulator) -> Vec<(String, u64)> {
    let url = format!("{}/storage/v1/b/{}/o", emulator.json_url(), common::BUCKET);
    let listing: Value = common::http().get(url).send().await.unwrap().json().await.unwrap();
    let items = listing["items"].as_array().cloned().unwrap_or_default();
    items
        .iter()
        .map(|o| (o["name"].as_str().unwrap().to_string(), o["size"].as_str().unwrap().parse().unwrap()))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_answer_without_a_size_is_an_upload_not_checked_for_length_not_a_short_write() {
    let emulator =
        common::emulator_with(EmulatorOptions { upload_answers: UploadAnswers::Minimal, ..EmulatorOptions::default() })
            .await;
    let report = common::run_bench(uploads(&emulator)).await;
    let table = report.to_table();
    assert!(report.succeeded(), "{table}");
    let per_transport = ITERATIONS * CONCURRENCY;
    assert_eq!(report.transports.len(), 2, "{table}");
    for t in &report.transports {
        assert_eq!((t.runs, t.errors, t.objects), (ITERATIONS, 0, per_transport), "{:?}", t.transport);
        // Only the JSON API's answer was cut: gRPC's resource always has a size.
        let expected = if t.transport.name() == "http-json" { per_transport } else { 0 };
        assert_eq!(t.unchecked_uploads, expected, "{:?}", t.transport);
        assert_eq!(t.unchecked_reads, 0, "{:?}: nothing was read", t.transport);
    }
    let said =
        format!("{per_transport} of {per_transport} uploads not checked for length: the server's answer gave no size");
    assert_eq!(table.matches(&said).count(), 1, "once, for http-json: {table}");
    assert!(!table.contains("short write"), "{table}");
    // What the server holds: every upload of both transports, whole.
    let objects = listed(&emulator).await;
    assert_eq!(objects.len(), 2 * per_transport, "{objects:?}");
    assert!(objects.iter().all(|(_, size)| *size == SIZE), "{objects:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_answer_checks_every_upload() {
    let emulator = common::emulator().await;
    let report = common::run_bench(uploads(&emulator)).await;
    assert!(report.succeeded(), "{}", report.to_table());
    assert_eq!(report.transports.len(), 2);
    for t in &report.transports {
        assert_eq!((t.objects, t.unchecked_uploads), (ITERATIONS * CONCURRENCY, 0), "{:?}", t.transport);
    }
    assert!(!report.to_table().contains("not checked"), "{}", report.to_table());
}
