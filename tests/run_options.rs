//! The benchmark against the built-in emulator, option by option: both
//! transports, both orders, chunked and one-shot, checksums (verified by the
//! server), concurrency, cleanup, warmup, channels, HTTP versions, timeout
//! and cancellation.

mod common;
use common::*;
use gcs_speed_tui::config::{Options, TransportKind};
use gcs_speed_tui::emulator::EmulatorOptions;
use gcs_speed_tui::gcs::report::RunOutcome;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

fn verified(emulator: &gcs_speed_tui::emulator::Emulator) -> u64 {
    emulator.store().checksums_verified.load(Ordering::Relaxed)
}

#[tokio::test]
async fn both_transports_one_shot_and_chunked_with_verified_checksums() {
    for chunk_size in ["0", "256KiB"] {
        let emulator = emulator().await;
        let options = Options { size: "1MiB".into(), chunk_size: chunk_size.into(), ..options_for(&emulator) };
        let report = run_bench(options).await;
        assert!(report.succeeded(), "{}", report.to_table());
        assert_eq!(report.outcome, RunOutcome::Completed);
        for summary in &report.transports {
            assert_eq!((summary.runs, summary.objects, summary.errors), (2, 2, 0));
            assert!(summary.throughput_mib_s.unwrap() > 0.0);
            let (min, median, max) = (summary.min_s.unwrap(), summary.median_s.unwrap(), summary.max_s.unwrap());
            assert!(min <= median && median <= max);
        }
        // 2 warmups + 2 rounds x 2 transports, each checked by the server.
        assert_eq!(verified(&emulator), 6, "chunk size {chunk_size}");
        assert_eq!(emulator.store().object_count(), 0, "cleanup leaves nothing");
        assert_eq!(report.cleanup.deleted, 4);
        assert!(report.comparison.is_some());
    }
}

#[tokio::test]
async fn checksums_can_be_turned_off_per_transport() {
    let emulator = emulator().await;
    let report = run_bench(Options { checksum: "none".into(), ..options_for(&emulator) }).await;
    assert!(report.succeeded(), "{}", report.to_table());
    assert_eq!(report.samples.len(), 4);
    assert_eq!(emulator.store().objects_created.load(Ordering::Relaxed), 6, "2 warmups and 4 uploads were stored");
    assert_eq!(verified(&emulator), 0);
    let emulator = emulator_with(EmulatorOptions::default()).await;
    let report = run_bench(Options { disable_grpc_autochecksum: true, warmup: false, ..options_for(&emulator) }).await;
    assert!(report.succeeded());
    assert_eq!(verified(&emulator), 2, "only the JSON uploads carried a checksum");
}

#[tokio::test]
async fn orders_schedule_rounds_as_documented() {
    let emulator = emulator().await;
    let sequential =
        run_bench(Options { order: "sequential".into(), iterations: "3".into(), ..options_for(&emulator) }).await;
    assert!(sequential.succeeded(), "{}", sequential.to_table());
    let kinds: Vec<TransportKind> = sequential.rounds.iter().map(|r| r.transport).collect();
    use TransportKind::{Grpc, Json};
    assert_eq!(kinds, [Json, Json, Json, Grpc, Grpc, Grpc]);
    let interleaved = run_bench(Options { iterations: "3".into(), ..options_for(&emulator) }).await;
    assert!(interleaved.succeeded(), "{}", interleaved.to_table());
    let kinds: Vec<TransportKind> = interleaved.rounds.iter().map(|r| r.transport).collect();
    assert_eq!(kinds, [Json, Grpc, Grpc, Json, Json, Grpc]);
    // Rounds never overlap: each starts after the previous one ended.
    let mut samples = interleaved.samples.clone();
    samples.sort_by(|a, b| a.start_s.total_cmp(&b.start_s));
    for pair in samples.windows(2) {
        assert!(pair[1].start_s >= pair[0].start_s + pair[0].elapsed_s - 1e-3);
    }
}

#[tokio::test]
async fn concurrency_uploads_several_objects_per_round() {
    let emulator = emulator().await;
    let report =
        run_bench(Options { concurrency: "3".into(), cleanup: false, warmup: false, ..options_for(&emulator) }).await;
    assert!(report.succeeded());
    for summary in &report.transports {
        assert_eq!(summary.bytes_per_run, 3 * MIB);
        assert_eq!(summary.objects, 6);
    }
    let names: Vec<String> = emulator.store().list(BUCKET, "").unwrap().into_iter().map(|o| o.name).collect();
    assert_eq!(names.len(), 12, "cleanup=false keeps every object");
    let run = &report.run_id;
    assert!(names.contains(&format!("gcs-speed-tui/{run}/http-json/0001-2")), "{names:?}");
    assert!(names.contains(&format!("gcs-speed-tui/{run}/grpc/0002-0")), "{names:?}");
    assert_eq!(report.cleanup.kept.len(), 12);
}

#[tokio::test]
async fn warmup_uploads_are_untimed_and_deleted() {
    let emulator = emulator().await;
    let report = run_bench(Options { cleanup: false, warmup_size: "300KiB".into(), ..options_for(&emulator) }).await;
    assert!(report.succeeded(), "{}", report.to_table());
    assert_eq!(report.samples.len(), 4, "warmups are not samples");
    assert_eq!(emulator.store().object_count(), 4, "the 4 timed objects kept, the warmups deleted");
    assert!(emulator.store().list(BUCKET, "").unwrap().iter().all(|o| !o.name.contains("warmup")));
    assert_eq!(verified(&emulator), 6);
}

#[tokio::test]
async fn prefix_channels_and_http_versions_are_honoured() {
    let emulator = emulator().await;
    let options = Options {
        prefix: "/team/bench/".into(),
        grpc_conn_pool: "3".into(),
        json_http: "2".into(),
        cleanup: false,
        warmup: false,
        ..options_for(&emulator)
    };
    let report = run_bench(options).await;
    assert!(report.succeeded(), "{}", report.to_table());
    assert_eq!(emulator.store().object_count(), 4);
    assert!(emulator.store().list(BUCKET, "").unwrap().iter().all(|o| o.name.starts_with("team/bench/")));
    let protocols: Vec<&str> = report.transports.iter().map(|t| t.protocol.as_str()).collect();
    assert_eq!(protocols, ["HTTP/2", "HTTP/2 (3 channels)"]);
    let http1 =
        run_bench(Options { json_http: "1.1".into(), transports: "http-json".into(), ..options_for(&emulator) }).await;
    assert!(http1.succeeded(), "{}", http1.to_table());
    assert_eq!(http1.transports[0].protocol, "HTTP/1.1");
    assert_eq!(http1.transports.len(), 1);
    assert!(http1.summary_line().starts_with("http-json: "));
}

#[tokio::test]
async fn a_missing_bucket_is_created_on_emulators() {
    let emulator = emulator().await;
    let report = run_bench(Options { bucket: "made-for-me".into(), ..options_for(&emulator) }).await;
    assert!(report.succeeded());
    assert!(emulator.store().bucket_names().contains(&"made-for-me".to_string()));
    let grpc_only =
        run_bench(Options { bucket: "grpc-made".into(), transports: "grpc".into(), ..options_for(&emulator) }).await;
    assert!(grpc_only.succeeded());
}

#[tokio::test]
async fn the_timeout_stops_the_run_and_still_cleans_up() {
    let emulator = emulator_with(EmulatorOptions { bandwidth: Some(4 * MIB), ..EmulatorOptions::default() }).await;
    let options = Options {
        size: "2MiB".into(),
        iterations: "20".into(),
        timeout: "1200ms".into(),
        warmup: false,
        ..options_for(&emulator)
    };
    let started = std::time::Instant::now();
    let report = run_bench(options).await;
    assert_eq!(report.outcome, RunOutcome::TimedOut);
    // The whole schedule would take 20 s; the cut-off recovery adds at most ~2 s.
    assert!(started.elapsed() < Duration::from_secs(8), "stopped promptly: {:?}", started.elapsed());
    assert!(!report.succeeded());
    assert!(report.to_table().contains("hit --timeout 1200ms"));
    assert!(report.rounds.iter().any(|r| r.ok), "some rounds finished before the timeout");
    assert!(report.cleanup.deleted > 0, "what they created was deleted");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(emulator.store().object_count(), 0);
}

#[tokio::test]
async fn cancelling_stops_uploads_and_leaves_no_objects() {
    let emulator = emulator_with(EmulatorOptions { bandwidth: Some(4 * MIB), ..EmulatorOptions::default() }).await;
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(900)).await;
        trigger.cancel();
    });
    let options = Options { size: "1MiB".into(), iterations: "20".into(), warmup: false, ..options_for(&emulator) };
    let report = run_bench_with(options, cancel).await;
    assert_eq!(report.outcome, RunOutcome::Cancelled);
    assert!(report.rounds.iter().any(|r| r.ok), "some rounds finished before the cancel");
    assert!(report.cleanup.deleted > 0, "what they created was deleted");
    assert_eq!(report.cleanup.left, Vec::<String>::new());
    // The cut-off upload's bytes and CPU are not divided by the finished ones'
    // bytes (counted in, a cut-off 1 MiB upload would add up to 1.0x). The kernel's tail-loss probes
    // on this slow loopback link re-send a few segments (up to ~7% seen): said apart, so left out here.
    for t in report.transports.iter().filter(|t| t.runs > 0) {
        let wire = framing_ratio(t);
        assert!((1.0..1.1).contains(&wire), "{}: wire {wire}x after a cancel", t.transport.name());
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(emulator.store().object_count(), 0);
}

#[tokio::test]
async fn failed_uploads_are_counted_and_reported() {
    let emulator = emulator().await;
    emulator.faults().queue(gcs_speed_tui::emulator::faults::Fault::parse("return-400").unwrap());
    let report = run_bench(Options { warmup: false, transports: "http-json".into(), ..options_for(&emulator) }).await;
    assert!(!report.succeeded());
    assert_eq!(report.transports[0].errors, 1);
    assert_eq!(report.transports[0].runs, 1, "the failed round is not timed");
    assert!(report.samples.iter().any(|s| s.error.as_deref().is_some_and(|e| e.contains("HTTP 400"))));
    assert_eq!(emulator.store().object_count(), 0);
}

#[tokio::test]
async fn a_missing_bucket_on_gcs_is_an_error_that_says_how_to_create_it() {
    use gcs_speed_tui::config::JsonHttp;
    use gcs_speed_tui::gcs::auth::Auth;
    use gcs_speed_tui::gcs::transport::Uploader;
    use gcs_speed_tui::gcs::transport::json::{JsonSettings, JsonTransport};
    let emulator = emulator().await;
    // Real GCS never creates buckets for us: prepare_bucket(create = false), as for the GCS target.
    let json = JsonTransport::new(JsonSettings {
        base_url: emulator.json_url(),
        bucket: "no-such-bucket".into(),
        checksum: true,
        chunk_size: 0,
        http: JsonHttp::Auto,
        auth: Auth::none(),
        retry: Default::default(),
        request_timeout: Duration::from_secs(10),
        ca_pem: None,
    })
    .unwrap();
    let error = json.prepare_bucket(false).await.unwrap_err().to_string();
    assert!(
        error.contains(
            "bucket no-such-bucket does not exist: create it (gcloud storage buckets create gs://no-such-bucket)"
        ),
        "{error}"
    );
    assert!(emulator.store().bucket_names() == [BUCKET], "nothing was created");
}
