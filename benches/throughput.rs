//! Is the client ever the bottleneck? One run measures raw loopback TCP (the
//! limit), then JSON and gRPC uploads to the in-process emulator (one stream
//! of 1 GiB, four of 256 MiB; one request and 16 MiB chunks; crc32c on and
//! off), with client CPU per GiB, and prints each as a ratio to the limit.
//! Last, the peak RSS of the real binary uploading 4 x 4 GiB.
//!
//! `cargo bench --bench throughput` or `cargo bench --bench throughput -- --quick`;
//! words after `--` pick the cases whose labels hold all of them (`-- grpc crc32c`).
//! Virtual machines drift during a run (raw loopback TCP alone varies by 2x
//! here), so the baseline is measured at the start, between the transports
//! and at the end, and each ratio divides by the median; the spread is printed.

use gcs_speed_tui::config::{Environment, Options, TransportKind};
use gcs_speed_tui::emulator::{Emulator, EmulatorOptions};
use gcs_speed_tui::runner::Runner;
use gcs_speed_tui::target;
use std::time::Instant;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

const MIB: u64 = 1 << 20;
const WRITE: usize = 1 << 20;

/// `streams` connections each sending `bytes` in 1 MiB writes to a sink.
async fn raw_tcp(streams: usize, bytes: u64) -> f64 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let sinks = tokio::spawn(async move {
        let mut readers = Vec::new();
        for _ in 0..streams {
            let (mut socket, _) = listener.accept().await.unwrap();
            readers.push(tokio::spawn(async move {
                let mut buffer = vec![0u8; WRITE];
                while socket.read(&mut buffer).await.unwrap() > 0 {}
            }));
        }
        for reader in readers {
            reader.await.unwrap();
        }
    });
    let chunk = gcs_speed_tui::payload::random_bytes(WRITE, 9);
    let start = Instant::now();
    let senders: Vec<_> = (0..streams)
        .map(|_| {
            let chunk = chunk.clone();
            tokio::spawn(async move {
                let mut stream = TcpStream::connect(address).await.unwrap();
                stream.set_nodelay(true).unwrap();
                for _ in 0..bytes / WRITE as u64 {
                    stream.write_all(&chunk).await.unwrap();
                }
                stream.shutdown().await.unwrap();
            })
        })
        .collect();
    for sender in senders {
        sender.await.unwrap();
    }
    sinks.await.unwrap();
    (streams as u64 * bytes) as f64 / MIB as f64 / start.elapsed().as_secs_f64()
}

struct Case {
    transport: TransportKind,
    streams: u32,
    size: u64,
    chunked: bool,
    checksum: bool,
}

/// (MiB/s, client CPU s/GiB, emulator CPU s/GiB) of one case, through the app's own runner.
async fn upload(emulator: &Emulator, case: &Case, iterations: u32) -> (f64, f64, f64) {
    let options = Options {
        bucket: "bench".into(),
        endpoint: emulator.json_url(),
        grpc_endpoint: emulator.grpc_addr().to_string(),
        transports: case.transport.name().into(),
        size: format!("{}B", case.size),
        concurrency: case.streams.to_string(),
        iterations: iterations.to_string(),
        chunk_size: if case.chunked { "16MiB".into() } else { "0".into() },
        checksum: if case.checksum { "crc32c".into() } else { "none".into() },
        ..Options::default()
    };
    let config = options.validate(&Environment::default()).unwrap();
    let connected = target::connect(&config).await.unwrap();
    let (events, mut receiver) = tokio::sync::mpsc::channel(1024);
    let drain = tokio::spawn(async move { while receiver.recv().await.is_some() {} });
    let emulator_before = gcs_speed_tui::cpu::emulator_seconds();
    let report = Runner::new(config, &connected, events, CancellationToken::new()).run().await;
    let emulator_cpu = gcs_speed_tui::cpu::emulator_seconds() - emulator_before;
    drain.await.unwrap();
    assert!(report.succeeded(), "{}", report.to_table());
    let summary = &report.transports[0];
    // The emulator's CPU covers warmup and cleanup too: a little high.
    let uploaded = (summary.bytes_per_run * summary.runs as u64) as f64 / (1u64 << 30) as f64;
    (summary.throughput_mib_s, summary.cpu_s_per_gib, emulator_cpu / uploaded)
}

/// Peak RSS (MiB) of the binary running the given arguments.
fn peak_rss_mib(args: &[&str]) -> f64 {
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{args:?}");
    // SAFETY: getrusage fills the struct we own.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    usage.ru_maxrss as f64 / 1024.0
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let picks: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let (iterations, big, small) = if quick { (1, 256 * MIB, 64 * MIB) } else { (3, 1024 * MIB, 256 * MIB) };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let emulator = Emulator::start(EmulatorOptions { buckets: vec!["bench".into()], ..EmulatorOptions::default() })
            .await
            .unwrap();
        raw_tcp(1, big / 4).await; // warm
        let mut raw_one = vec![raw_tcp(1, big).await];
        let mut raw_four = vec![raw_tcp(4, small).await];
        let mut rows = Vec::new();
        for transport in [TransportKind::Json, TransportKind::Grpc] {
            for (streams, size) in [(1, big), (4, small)] {
                for chunked in [false, true] {
                    for checksum in [true, false] {
                        let label = format!(
                            "{:<9} {} x {:>4} MiB, {:<13} {}",
                            transport.name(),
                            streams,
                            size / MIB,
                            if chunked { "16 MiB chunks" } else { "one request" },
                            if checksum { "crc32c" } else { "no crc" }
                        );
                        if !picks.iter().all(|word| label.contains(word.as_str())) {
                            continue;
                        }
                        let case = Case { transport, streams, size, chunked, checksum };
                        let (rate, cpu, server) = upload(&emulator, &case, iterations).await;
                        rows.push((label, streams, rate, cpu, server));
                    }
                }
            }
            raw_one.push(raw_tcp(1, big).await);
            raw_four.push(raw_tcp(4, small).await);
        }
        let median = |values: &mut Vec<f64>| {
            values.sort_by(f64::total_cmp);
            values[values.len() / 2]
        };
        let spread = |values: &[f64]| format!("{:.0}-{:.0}", values[0], values[values.len() - 1]);
        let (one, four) = (median(&mut raw_one), median(&mut raw_four));
        println!(
            "throughput on this machine ({} CPUs), client and emulator sharing it",
            std::thread::available_parallelism().map_or(1, |n| n.get())
        );
        println!("{:<46} {:>10} {:>9} {:>14} {:>14}", "case", "MiB/s", "x raw", "client CPU", "emulator CPU");
        println!(
            "{:<46} {:>10.0} {:>9} {:>14}",
            "raw loopback TCP, 1 stream (median)",
            one,
            "1.00",
            format!("{} seen", spread(&raw_one))
        );
        println!(
            "{:<46} {:>10.0} {:>9} {:>14}",
            "raw loopback TCP, 4 streams (median)",
            four,
            "1.00",
            format!("{} seen", spread(&raw_four))
        );
        for (label, streams, rate, cpu, server) in rows {
            let raw = if streams == 1 { one } else { four };
            println!("{label:<46} {rate:>10.0} {:>8.2}x {cpu:>9.2} s/GiB {server:>9.2} s/GiB", rate / raw);
        }
    });
    if !picks.is_empty() {
        return; // a chosen few cases: no memory run
    }
    let size = if quick { "1GiB" } else { "4GiB" };
    let rss = peak_rss_mib(&[
        "run",
        "--emulator",
        "--size",
        size,
        "--concurrency",
        "4",
        "--chunk-size",
        "16MiB",
        "--iterations",
        "1",
    ]);
    println!(
        "peak RSS of `run --emulator --size {size} --concurrency 4 --chunk-size 16MiB --iterations 1`: {rss:.0} MiB"
    );
}
