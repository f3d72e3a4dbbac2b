//! Live throughput over a shaped link (20 ms one way, 200 Mbit/s): what the
//! app's chart and sparkline show must be bytes that crossed the link, so no
//! quarter-second sample may exceed what the link carries in that time.
//! (Counting bytes handed to socket buffers showed 61-70 MiB/s on a
//! 23.8 MiB/s link.)

mod common;
use common::*;
use gcs_speed_tui::config::{Environment, Options};
use gcs_speed_tui::emulator::EmulatorOptions;
use gcs_speed_tui::tui::live::Live;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const LINK_BYTES_PER_S: u64 = 25_000_000; // 200 Mbit/s
const LINK_MIB_S: f64 = LINK_BYTES_PER_S as f64 / (1 << 20) as f64;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_samples_never_beat_the_link() {
    let emulator = emulator_with(EmulatorOptions {
        latency: Duration::from_millis(20),
        bandwidth: Some(LINK_BYTES_PER_S),
        ..EmulatorOptions::default()
    })
    .await;
    for chunk_size in ["0", "4MiB"] {
        let options = Options {
            size: "24MiB".into(),
            chunk_size: chunk_size.into(),
            iterations: "1".into(),
            warmup: false,
            ..options_for(&emulator)
        };
        let config = options.validate(&Environment::default()).unwrap();
        let (report, events) = run_bench_events(options, CancellationToken::new()).await;
        assert!(report.succeeded(), "{}", report.to_table());
        let mut live = Live::new(config.lane_plan());
        for event in &events {
            live.apply(event);
        }
        for lane in &live.lanes {
            let samples: Vec<f64> = lane.chart.iter().map(|(_, rate)| *rate).collect();
            assert!(samples.len() >= 4, "a second-long upload gives several samples: {samples:?}");
            let peak = samples.iter().copied().fold(0.0, f64::max);
            println!(
                "{:?} chunk {chunk_size}: peak live sample {peak:.1} MiB/s on a {LINK_MIB_S:.1} MiB/s link",
                lane.transport
            );
            // What is acknowledged has reached the emulator's kernel, which
            // holds up to its 512 KiB receive buffer (doubled by the kernel)
            // ahead of the simulated link, plus the token bucket's 256 KiB
            // burst: about 1.25 MiB over the 6 MiB a 0.25 s sample carries.
            assert!(peak <= LINK_MIB_S * 1.25, "{:?} chunk {chunk_size}: {samples:?}", lane.transport);
        }
    }
}
