//! How fast the built-in emulator takes in one upload, against raw loopback
//! TCP measured in the same run (machines here are noisy: compare ratios).
//!
//! `cargo bench --bench emulator_ingest` (1 GiB) or `-- --quick` (256 MiB).
//! Prints MiB/s for each, the ratio, and the process's RSS before and after.

mod support;

use bytes::Bytes;
use gcs_speed_tui::emulator::Emulator;
use std::time::Instant;
use support::{median, raw_tcp};

const WRITE_BYTES: usize = 1 << 20;

fn rss_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

/// One `uploadType=media` request with a plain HTTP/1.1 client.
async fn emulator_upload(emulator: &Emulator, total: u64, name: &str) -> f64 {
    gcs_speed_tui::tls::install_crypto_provider();
    let client = reqwest::Client::builder().http1_only().build().unwrap();
    let chunk = gcs_speed_tui::gcs::payload::random_bytes(WRITE_BYTES, 2);
    let count = total / WRITE_BYTES as u64;
    let body = futures::stream::iter((0..count).map(move |_| Ok::<Bytes, std::io::Error>(chunk.clone())));
    let url = format!("{}/upload/storage/v1/b/bench/o", emulator.json_url());
    let start = Instant::now();
    let response = client
        .post(url)
        .query(&[("uploadType", "media"), ("name", name)])
        .header("content-length", total)
        .body(reqwest::Body::wrap_stream(body))
        .send()
        .await
        .unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    total as f64 / (1 << 20) as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let total: u64 = if quick { 256 << 20 } else { 1 << 30 };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let emulator = support::emulator().await;
        let rss_start = rss_mib("VmRSS");
        // Warm both paths once, then alternate so drift hits both alike.
        raw_tcp(1, total / 4).await;
        emulator_upload(&emulator, total / 4, "warm").await;
        let mut raw = Vec::new();
        let mut ingest = Vec::new();
        for i in 0..3 {
            raw.push(raw_tcp(1, total).await);
            ingest.push(emulator_upload(&emulator, total, &format!("run-{i}")).await);
        }
        // Each trial's ratio is to the raw TCP measured just before it.
        let ratios: Vec<f64> = ingest.iter().zip(&raw).map(|(i, r)| i / r).collect();
        let range = |v: &[f64]| v.iter().copied().fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(x), hi.max(x)));
        let (low, high) = range(&ratios);
        let (raw, ingest) = (median(&raw), median(&ingest));
        println!("emulator ingest, {} MiB per upload, median of 3 trials (range)", total >> 20);
        println!("{:<34} {:>10}", "case", "MiB/s");
        println!("{:<34} {:>10.0}", "raw loopback TCP (1 MiB writes)", raw);
        println!(
            "{:<34} {:>10.0}   {:.2}x raw ({low:.2}-{high:.2}x)",
            "emulator, one media request",
            ingest,
            median(&ratios)
        );
        // The warmup's quarter, then three whole uploads.
        let uploaded = (total / 4 + 3 * total) as f64 / (1u64 << 30) as f64;
        println!(
            "RSS: {:.0} MiB at start, {:.0} MiB after {uploaded:.2} GiB uploaded (peak {:.0} MiB)",
            rss_start,
            rss_mib("VmRSS"),
            rss_mib("VmHWM")
        );
    });
}
