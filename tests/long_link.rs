//! A long fat link (50 ms round trip, 1 Gbit/s) through the emulator's link
//! model: each transport's single stream must reach at least half the link,
//! and a small HTTP/2 window must visibly cap gRPC at window / RTT (so the
//! model really carries flow control, and the first check could fail).

mod common;
use common::*;
use gcs_speed_tui::config::{Options, TransportKind};
use gcs_speed_tui::emulator::EmulatorOptions;
use std::time::Duration;

const ONE_GBIT_MIB_S: f64 = 1e9 / 8.0 / (1 << 20) as f64;

fn long_link(stream_window: u32) -> EmulatorOptions {
    EmulatorOptions {
        latency: Duration::from_millis(25),
        bandwidth: Some(125_000_000),
        stream_window,
        ..EmulatorOptions::default()
    }
}

fn options(emulator: &gcs_speed_tui::emulator::Emulator) -> Options {
    Options { size: "16MiB".into(), chunk_size: "0".into(), iterations: "2".into(), ..options_for(emulator) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_stream_of_each_transport_fills_half_the_link() {
    let emulator = emulator_with(long_link(gcs_speed_tui::emulator::DEFAULT_STREAM_WINDOW)).await;
    let report = run_bench(options(&emulator)).await;
    assert!(report.succeeded(), "{}", report.to_table());
    for t in &report.transports {
        let rate = t.throughput_mib_s.expect("every round finished");
        // Printed for README (nextest shows it with --no-capture).
        println!(
            "{}: {rate:.1} MiB/s = {:.0}% of a 1 Gbit/s, 50 ms link",
            t.transport.name(),
            rate / ONE_GBIT_MIB_S * 100.0
        );
        assert!(rate >= ONE_GBIT_MIB_S / 2.0, "{:?}: {rate:.1} MiB/s", t.transport);
        assert!(rate <= ONE_GBIT_MIB_S * 1.05, "{:?} beat the link: {rate:.1}", t.transport);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_window_caps_grpc_at_window_over_rtt() {
    let emulator = emulator_with(long_link(256 * 1024)).await;
    let report = run_bench(Options { size: "2MiB".into(), transports: "grpc".into(), ..options(&emulator) }).await;
    assert!(report.succeeded(), "a capped upload still finishes: {}", report.to_table());
    let grpc = &report.transports[0];
    assert_eq!(grpc.transport, TransportKind::Grpc);
    // 256 KiB per 50 ms round trip is 5 MiB/s: near it, not merely below it.
    let rate = grpc.throughput_mib_s.expect("every round finished");
    println!("grpc with a 256 KiB window: {rate:.2} MiB/s (window / RTT = 5 MiB/s)");
    assert!((3.0..6.0).contains(&rate), "{rate:.2} MiB/s");
}
