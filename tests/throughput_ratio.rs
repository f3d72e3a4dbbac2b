//! The throughput regression check: one-stream uploads with crc32c, as a
//! share of raw loopback TCP measured in the same run, round by round (this
//! machine's speed drifts; a ratio taken minutes apart means little). Each
//! run prints its medians and rounds. Measured on the final code of issue 11,
//! three quiet runs: JSON 0.73-0.84x (median 0.81), gRPC 0.73-0.90x (median
//! 0.79); three runs beside a shell busy loop: JSON 0.71-0.78x, gRPC
//! 0.66-0.83x. A reviewer on the same kind of machine saw 0.39-0.46x under
//! load, below the 0.4x floor this test had, so the floor is 0.3x: it fails
//! when a ratio drops to under ~40% of the quiet medians (a lost zero-copy
//! path on both ends, a per-byte cost that doubles CPU), and passes the
//! slowest loaded runs seen. Losses smaller than that are the bench's
//! (`cargo bench --bench throughput`) to show. Runs alone (.config/nextest.toml).

#[path = "../benches/support/mod.rs"]
mod support;

use gcs_speed_tui::config::TransportKind;
use support::{Case, MIB, measure, median, raw_tcp};

const ROUNDS: usize = 5;
const FLOORS: [(TransportKind, f64); 2] = [(TransportKind::Json, 0.3), (TransportKind::Grpc, 0.3)];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_stream_uploads_keep_up_with_raw_loopback_tcp() {
    let emulator = support::emulator().await;
    let size = 256 * MIB;
    raw_tcp(1, size).await; // warm
    let cases = FLOORS.map(|(transport, _)| Case::write(transport, 1, size));
    let mut ratios = vec![Vec::new(); cases.len()];
    let mut cpu = vec![Vec::new(); cases.len()];
    for _ in 0..ROUNDS {
        let raw = raw_tcp(1, size).await;
        for (i, case) in cases.iter().enumerate() {
            let measured = measure(&emulator, case, 1).await;
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
