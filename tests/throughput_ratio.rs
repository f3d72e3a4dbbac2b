//! The throughput regression check: one-stream uploads with crc32c, as a
//! share of raw loopback TCP measured in the same run, round by round (this
//! machine's speed drifts; a ratio taken minutes apart means little). Here
//! the medians come out at 0.81-0.88x (JSON) and 0.75-0.86x (gRPC) on a quiet
//! machine, and 0.49-0.64x with a busy loop holding one of the two cores
//! (uploads need both cores, raw TCP less). The floors at 0.4x survive that
//! and catch a regression that halves a ratio (a lost zero-copy path, a cost
//! per byte); smaller losses are the bench's to show (without the allocator
//! setting of `src/malloc.rs`, gRPC came out at 0.43-0.76x here). Runs alone
//! (.config/nextest.toml).

#[path = "../benches/support/mod.rs"]
mod support;

use gcs_speed_tui::config::TransportKind;
use support::{Case, MIB, median, raw_tcp, upload};

const ROUNDS: usize = 5;
const FLOORS: [(TransportKind, f64); 2] = [(TransportKind::Json, 0.4), (TransportKind::Grpc, 0.4)];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_stream_uploads_keep_up_with_raw_loopback_tcp() {
    let emulator = support::emulator().await;
    let size = 256 * MIB;
    raw_tcp(1, size).await; // warm
    let cases = FLOORS.map(|(transport, _)| Case { transport, streams: 1, size, chunked: false, checksum: true });
    let mut ratios = vec![Vec::new(); cases.len()];
    let mut cpu = vec![Vec::new(); cases.len()];
    for _ in 0..ROUNDS {
        let raw = raw_tcp(1, size).await;
        for (i, case) in cases.iter().enumerate() {
            let measured = upload(&emulator, case, 1).await;
            ratios[i].push(measured.mib_s / raw);
            cpu[i].push(measured.client_cpu_s_per_gib + measured.emulator_cpu_s_per_gib);
        }
    }
    for (i, (case, (_, floor))) in cases.iter().zip(FLOORS).enumerate() {
        let ratio = median(&ratios[i]);
        println!(
            "{}: {ratio:.2}x raw loopback TCP (rounds {:.2?}), {:.2} CPU-s/GiB client + emulator",
            case.label(),
            ratios[i],
            median(&cpu[i])
        );
        assert!(ratio >= floor, "{}: {ratio:.2}x raw TCP, under the floor of {floor}x", case.label());
    }
}
