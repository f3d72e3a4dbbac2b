//! What the throughput bench and its regression test share: the raw TCP
//! baseline, and one upload case run through the app's own runner against
//! the in-process emulator.
#![allow(dead_code)] // each bench and test that includes this uses a part of it

use gcs_speed_tui::config::{Environment, Options, TransportKind};
use gcs_speed_tui::emulator::{Emulator, EmulatorOptions};
use gcs_speed_tui::engine::cpu;
use gcs_speed_tui::engine::outlet::Outlets;
use gcs_speed_tui::gcs::runner::Runner;
use std::time::Instant;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

pub const MIB: u64 = 1 << 20;
const WRITE: usize = 1 << 20;

/// MiB/s of `streams` connections each sending `bytes` in 1 MiB writes to a
/// sink. The senders are tasks on the caller's runtime, like the client; the
/// sinks are threads of their own, like the emulator's runtime. With both
/// ends as tasks of one runtime, tokio often ran them on the same worker, and
/// the sink then read data still in that core's cache: 6,700 MiB/s instead
/// of about 4,500, in whole runs at a time (94% of reads on the sender's CPU),
/// a ping-pong no client and server pair can do.
pub async fn raw_tcp(streams: usize, bytes: u64) -> f64 {
    raw_tcp_metered(streams, bytes, WRITE, false).await.mib_s
}

/// Raw loopback TCP, and what sending it cost.
pub struct Raw {
    pub mib_s: f64,
    /// The senders' CPU per GiB: the process's CPU over the transfer, less
    /// the sinks' threads' own (each counts its CPU before it ends) and the
    /// in-process emulator's (idle then).
    pub sender_cpu_s_per_gib: f64,
}

/// `raw_tcp`, with the senders' CPU per GiB. Each sender's 1 MiB writes
/// go round `source` bytes of random data: one 1 MiB buffer sent again and
/// again (as iperf3 does) stays in the core's cache; the payload's 32 MiB
/// pool, as uploads send it, is read from memory. With `checksum`, each
/// sender works out the crc32c of each write just before it sends it: a
/// checksummed upload with no protocol, for reference.
pub async fn raw_tcp_metered(streams: usize, bytes: u64, source: usize, checksum: bool) -> Raw {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let sinks = std::thread::spawn(move || {
        let readers: Vec<_> = (0..streams)
            .map(|_| {
                let (mut socket, _) = listener.accept().unwrap();
                std::thread::spawn(move || {
                    let mut buffer = vec![0u8; WRITE];
                    while std::io::Read::read(&mut socket, &mut buffer).unwrap() > 0 {}
                    cpu::thread_seconds()
                })
            })
            .collect();
        readers.into_iter().map(|reader| reader.join().unwrap()).sum::<f64>()
    });
    let pool = gcs_speed_tui::gcs::payload::random_bytes(source, 9);
    let (cpu_before, emulator_before) = (cpu::process_seconds(), cpu::emulator_seconds());
    let start = Instant::now();
    let senders: Vec<_> = (0..streams)
        .map(|_| {
            let pool = pool.clone();
            tokio::spawn(async move {
                let mut stream = TcpStream::connect(address).await.unwrap();
                stream.set_nodelay(true).unwrap();
                let mut crc = 0;
                for write in pool.chunks(WRITE).cycle().take((bytes / WRITE as u64) as usize) {
                    if checksum {
                        crc = gcs_protocol::crc::crc32c_append(crc, write);
                    }
                    stream.write_all(write).await.unwrap();
                }
                std::hint::black_box(crc);
                stream.shutdown().await.unwrap();
            })
        })
        .collect();
    for sender in senders {
        sender.await.unwrap();
    }
    let sinks_cpu = tokio::task::spawn_blocking(move || sinks.join().unwrap()).await.unwrap();
    let elapsed = start.elapsed().as_secs_f64();
    let senders_cpu = cpu::process_seconds() - cpu_before - sinks_cpu - (cpu::emulator_seconds() - emulator_before);
    let gib = (streams as u64 * bytes) as f64 / (1u64 << 30) as f64;
    Raw { mib_s: gib * 1024.0 / elapsed, sender_cpu_s_per_gib: senders_cpu / gib }
}

/// CPU seconds per GiB of one crc32c pass over `bytes` of the payload's
/// random pool (32 MiB, as uploads read it) on one thread, no I/O: what a
/// checksummed upload owes its bytes whatever carries them.
pub async fn crc32c_pass_cpu_s_per_gib(bytes: u64) -> f64 {
    use gcs_speed_tui::gcs::payload::{POOL_BYTES, random_bytes};
    tokio::task::spawn_blocking(move || {
        let pool = random_bytes(POOL_BYTES as usize, 9);
        let before = cpu::thread_seconds();
        let crc = (0..bytes / POOL_BYTES).fold(0, |crc, _| gcs_protocol::crc::crc32c_append(crc, &pool));
        std::hint::black_box(crc);
        (cpu::thread_seconds() - before) / (bytes as f64 / (1u64 << 30) as f64)
    })
    .await
    .unwrap()
}

pub async fn emulator() -> Emulator {
    Emulator::start(EmulatorOptions { buckets: vec!["bench".into()], ..EmulatorOptions::default() }).await.unwrap()
}

/// An emulator that allows HTTP/2's default frames, 16 KiB, as a server
/// that sets no SETTINGS_MAX_FRAME_SIZE does.
pub async fn default_frames_emulator() -> Emulator {
    let options = EmulatorOptions { buckets: vec!["bench".into()], max_frame: 16 * 1024, ..EmulatorOptions::default() };
    Emulator::start(options).await.unwrap()
}

/// An emulator that keeps what it is sent, for reads.
pub async fn retaining_emulator() -> Emulator {
    let options = EmulatorOptions { buckets: vec!["bench".into()], retain: true, ..EmulatorOptions::default() };
    Emulator::start(options).await.unwrap()
}

pub struct Case {
    pub transport: TransportKind,
    pub streams: u32,
    pub size: u64,
    pub chunked: bool,
    pub checksum: bool,
    /// Reads of objects uploaded before the timed rounds.
    pub download: bool,
    /// gRPC's receive window; `None`: adaptive, the default.
    pub window: Option<u32>,
    /// Uploads to an emulator that keeps what it is sent (`--retain`, as
    /// reads need), which makes it slower to take each byte.
    pub kept: bool,
    /// Uploads to an emulator that allows 16 KiB frames, not 1 MiB.
    pub small_frames: bool,
}

impl Case {
    /// One request of `size` per stream, crc32c on, to the emulator as
    /// uploads meet it: the case the goals are set on.
    pub fn write(transport: TransportKind, streams: u32, size: u64) -> Case {
        Case {
            transport,
            streams,
            size,
            chunked: false,
            checksum: true,
            download: false,
            window: None,
            kept: false,
            small_frames: false,
        }
    }

    pub fn label(&self) -> String {
        format!(
            "{:<9} {} {} x {:>4} MiB, {:<13} {}{}",
            self.transport.name(),
            if self.download { "read " } else { "write" },
            self.streams,
            self.size / MIB,
            if self.chunked { "16 MiB chunks" } else { "one request" },
            if self.checksum { "crc32c" } else { "no crc" },
            self.window.map(|w| format!(", {} MiB window", w >> 20)).unwrap_or_default()
        ) + if self.kept && !self.download { ", emulator keeps bytes" } else { "" }
            + if self.small_frames { ", 16 KiB frames" } else { "" }
    }
}

pub struct Measured {
    pub mib_s: f64,
    pub client_cpu_s_per_gib: f64,
    /// The emulator's CPU covers warmup and cleanup too: a little high.
    pub emulator_cpu_s_per_gib: f64,
}

/// One case, `iterations` rounds, as the app's report gives it. A read
/// case runs twice, with one round and with `iterations` more, and the
/// emulator's CPU is the difference: its CPU for the untimed upload of the
/// objects to read cancels out.
pub async fn measure(emulator: &Emulator, case: &Case, iterations: u32) -> Measured {
    if !case.download {
        let (measured, _) = run_case(emulator, case, iterations).await;
        return measured;
    }
    let (_, base_cpu) = run_case(emulator, case, 1).await;
    let (measured, cpu) = run_case(emulator, case, 1 + iterations).await;
    let read_gib = (case.size * case.streams as u64 * iterations as u64) as f64 / (1u64 << 30) as f64;
    Measured { emulator_cpu_s_per_gib: (cpu - base_cpu) / read_gib, ..measured }
}

/// Runs a case; its figures, and the emulator's CPU seconds over the whole run.
async fn run_case(emulator: &Emulator, case: &Case, iterations: u32) -> (Measured, f64) {
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
        workload: if case.download { "download".into() } else { "upload".into() },
        grpc_window: case.window.map_or("auto".into(), |w| format!("{w}B")),
        // As a user's run: reads warm up by reading (connections, windows).
        ..Options::default()
    };
    let config = options.validate(&Environment::default()).unwrap();
    let (client, connected) =
        gcs_speed_tui::gcs::planned::GcsPlan::of(config.clone(), &gcs_speed_tui::built_in::BUILT_IN)
            .connect_on_client_threads()
            .await
            .unwrap();
    let (events, mut receiver) = tokio::sync::mpsc::channel(1024);
    let drain = tokio::spawn(async move { while receiver.recv().await.is_some() {} });
    let emulator_before = gcs_speed_tui::engine::cpu::emulator_seconds();
    let report = client.run(Runner::new(config, connected, CancellationToken::new()).with_events(events).run()).await;
    let emulator_cpu = gcs_speed_tui::engine::cpu::emulator_seconds() - emulator_before;
    drain.await.unwrap();
    assert!(report.succeeded(), "{}", report.to_table());
    let summary = &report.transports[0];
    let moved_gib = (summary.bytes_per_run * summary.runs as u64) as f64 / (1u64 << 30) as f64;
    let measured = Measured {
        mib_s: summary.throughput_mib_s.expect("a run that succeeded was timed"),
        client_cpu_s_per_gib: summary.cpu_s_per_gib.expect("a run that succeeded was metered"),
        emulator_cpu_s_per_gib: emulator_cpu / moved_gib,
    };
    (measured, emulator_cpu)
}

pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}
