//! How fast the built-in emulator takes in one upload, against raw loopback
//! TCP measured in the same run (machines here are noisy: compare ratios).
//!
//! `cargo bench --bench emulator_ingest` (1 GiB) or `-- --quick` (256 MiB).
//! Prints MiB/s for each, the ratio, and the process's RSS before and after.

use bytes::Bytes;
use gcs_speed_tui::emulator::{Emulator, EmulatorOptions};
use std::time::Instant;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const WRITE_BYTES: usize = 1 << 20;

fn rss_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

/// One stream of 1 MiB writes into a sink that reads 1 MiB at a time.
async fn raw_tcp(total: u64) -> f64 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let sink = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut buffer = vec![0u8; WRITE_BYTES];
        let mut received = 0u64;
        loop {
            let n = socket.read(&mut buffer).await.unwrap();
            if n == 0 {
                break received;
            }
            received += n as u64;
        }
    });
    let chunk = gcs_speed_tui::payload::random_bytes(WRITE_BYTES, 1);
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let start = Instant::now();
    let mut sent = 0;
    while sent < total {
        stream.write_all(&chunk).await.unwrap();
        sent += WRITE_BYTES as u64;
    }
    stream.shutdown().await.unwrap();
    assert_eq!(sink.await.unwrap(), total);
    total as f64 / (1 << 20) as f64 / start.elapsed().as_secs_f64()
}

/// One `uploadType=media` request with a plain HTTP/1.1 client.
async fn emulator_upload(emulator: &Emulator, total: u64, name: &str) -> f64 {
    gcs_speed_tui::tls::install_crypto_provider();
    let client = reqwest::Client::builder().http1_only().build().unwrap();
    let chunk = gcs_speed_tui::payload::random_bytes(WRITE_BYTES, 2);
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
        let emulator = Emulator::start(EmulatorOptions { buckets: vec!["bench".into()], ..EmulatorOptions::default() })
            .await
            .unwrap();
        let rss_start = rss_mib("VmRSS");
        // Warm both paths once, then alternate so drift hits both alike.
        raw_tcp(total / 4).await;
        emulator_upload(&emulator, total / 4, "warm").await;
        let mut raw = Vec::new();
        let mut ingest = Vec::new();
        for i in 0..3 {
            raw.push(raw_tcp(total).await);
            ingest.push(emulator_upload(&emulator, total, &format!("run-{i}")).await);
        }
        raw.sort_by(f64::total_cmp);
        ingest.sort_by(f64::total_cmp);
        let (raw, ingest) = (raw[1], ingest[1]);
        println!("emulator ingest, {} MiB per upload, median of 3", total >> 20);
        println!("{:<34} {:>10}", "case", "MiB/s");
        println!("{:<34} {:>10.0}", "raw loopback TCP (1 MiB writes)", raw);
        println!("{:<34} {:>10.0}   {:.2}x raw", "emulator, one media request", ingest, ingest / raw);
        println!(
            "RSS: {:.0} MiB at start, {:.0} MiB after {} GiB uploaded (peak {:.0} MiB)",
            rss_start,
            rss_mib("VmRSS"),
            (total * 4) as f64 / (1u64 << 30) as f64,
            rss_mib("VmHWM")
        );
    });
}
