//! Is the client ever the bottleneck? One run measures raw loopback TCP (the
//! limit), then JSON and gRPC uploads to the in-process emulator (one stream
//! of 1 GiB, four of 256 MiB; one request and 16 MiB chunks; crc32c on and
//! off) and reads from it (the same sizes, whole objects, crc32c on and off),
//! with client and emulator CPU per GiB, and prints each as a ratio to the
//! limit.
//! Last, the peak RSS of the real binary uploading 4 x 4 GiB.
//!
//! `cargo bench --bench throughput` or `cargo bench --bench throughput -- --quick`;
//! words after `--` pick the cases whose labels hold all of them (`-- grpc crc32c`).
//! Virtual machines drift during a run (raw loopback TCP alone varies by 2x
//! here), so the run goes round all the cases three times (once with
//! `--quick`), measuring the baseline before each round and at the end; each
//! figure is a median, and the baseline's spread is printed.

mod support;

use gcs_speed_tui::config::TransportKind;
use support::{Case, MIB, Measured, Raw, measure, median, raw_tcp, raw_tcp_metered};
use user_run::{UserRun, print_user_runs, user_run};

#[path = "support/user_run.rs"]
mod user_run;

/// The goals: one stream, one request, crc32c on, as a share of raw
/// loopback TCP, for (transport, reads) — issue 11's for uploads, issue 13's
/// for reads (which also asks gRPC reads for 0.8x of JSON's).
const GOALS: [(TransportKind, bool, f64); 4] = [
    (TransportKind::Json, false, 0.6),
    (TransportKind::Grpc, false, 0.45),
    (TransportKind::Json, true, 0.7),
    (TransportKind::Grpc, true, 0.5),
];
const GRPC_READS_OF_JSON: f64 = 0.8;
/// One-stream uploads with crc32c: gRPC against JSON, and CPU per GiB (s)
/// of the client (JSON, gRPC) and of the emulator.
const GRPC_WRITES_OF_JSON: f64 = 0.8;
const WRITE_CLIENT_CPU: [(TransportKind, f64); 2] = [(TransportKind::Json, 0.35), (TransportKind::Grpc, 0.45)];
const WRITE_EMULATOR_CPU: f64 = 0.30;
/// Issue 43's: gRPC writes at JSON's CPU cost, and near a raw socket's
/// (client CPU per GiB, one stream, one request, crc32c on, trial by trial).
const GRPC_WRITE_CPU_OF_JSON: f64 = 1.1;
const GRPC_WRITE_CPU_OF_RAW: f64 = 1.2;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let picks: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let (trials, big, small) = if quick { (1, 256 * MIB, 64 * MIB) } else { (3, 1024 * MIB, 256 * MIB) };
    let mut cases = Vec::new();
    for transport in [TransportKind::Json, TransportKind::Grpc] {
        for (streams, size) in [(1, big), (4, small)] {
            let write = Case::write(transport, streams, size);
            // Reads need the bytes kept.
            let read = Case { download: true, kept: true, ..write };
            for chunked in [false, true] {
                for checksum in [true, false] {
                    cases.push(Case { chunked, checksum, ..write });
                }
            }
            for checksum in [true, false] {
                cases.push(Case { checksum, ..read });
            }
            if streams == 1 {
                // Writes to an emulator that keeps the bytes: issue 43's table was measured so.
                cases.push(Case { kept: true, ..write });
            }
            if transport == TransportKind::Grpc {
                // The receive window paces gRPC reads: the default (adaptive) and a fixed 16 MiB.
                cases.push(Case { window: Some(16 * MIB as u32), ..read });
            }
        }
    }
    cases.retain(|case| picks.iter().all(|word| case.label().contains(word.as_str())));
    // First, while this process is small: a child's peak RSS as the kernel
    // counts it starts from the parent's at the spawn, and the read cases
    // below keep GiBs in the in-process emulator.
    let peak_rss = picks.is_empty().then(|| peak_rss(quick));
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let users = picks.is_empty() || picks.iter().any(|w| w == "binary");
    let (raw_metered, raw_four, measured, user_runs) = runtime.block_on(async {
        let emulator = support::emulator().await;
        // Reads need the bytes kept; uploads are measured without that cost.
        let reads = support::retaining_emulator().await;
        raw_tcp(1, big / 4).await; // warm
        let (mut raw_one, mut raw_four): (Vec<Raw>, Vec<f64>) = (Vec::new(), Vec::new());
        let mut measured: Vec<Vec<Measured>> = cases.iter().map(|_| Vec::new()).collect();
        let mut user_runs: Vec<UserRun> = Vec::new();
        // Trials go round all the cases, with the baseline between them, so
        // that a slow spell of the machine falls on many cases a little
        // rather than on one case entirely; each case reports its median
        // and the range of its trials.
        for _ in 0..trials {
            raw_one.push(raw_tcp_metered(1, big).await);
            raw_four.push(raw_tcp(4, small).await);
            for (case, results) in cases.iter().zip(&mut measured) {
                let server = if case.kept { &reads } else { &emulator };
                results.push(measure(server, case, 1).await);
            }
            if users {
                // What a user runs, the binary as it ships, against the raw
                // limit measured just before it.
                for download in [false, true] {
                    let raw = raw_tcp(1, big).await;
                    user_runs.push(tokio::task::spawn_blocking(move || user_run(big, download, raw)).await.unwrap());
                }
            }
        }
        raw_one.push(raw_tcp_metered(1, big).await);
        raw_four.push(raw_tcp(4, small).await);
        (raw_one, raw_four, measured, user_runs)
    });
    let raw_one: Vec<f64> = raw_metered.iter().map(|r| r.mib_s).collect();
    let (one, four) = (median(&raw_one), median(&raw_four));
    println!(
        "throughput on this machine ({} CPUs), client and emulator sharing it; medians of {trials} trial(s), and their range",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    println!(
        "{:<60} {:>10} {:>9} {:>13} {:>14} {:>14}",
        "case", "MiB/s", "x raw", "x raw range", "client CPU", "emulator CPU"
    );
    for (label, median, seen) in [("1 stream", one, &raw_one), ("4 streams", four, &raw_four)] {
        let spread = format!("{:.0}-{:.0} MiB/s seen", min(seen), max(seen));
        println!("{:<60} {median:>10.0} {:>9} {spread:>28}", format!("raw loopback TCP, {label}"), "1.00");
    }
    let mut ratios = Vec::new();
    let mut cpus = Vec::new();
    for (case, results) in cases.iter().zip(&measured) {
        let of = |field: fn(&Measured) -> f64| median(&results.iter().map(field).collect::<Vec<_>>());
        let rate = of(|m| m.mib_s);
        // Each trial's rate over the baseline measured just before it.
        let raws = if case.streams == 1 { &raw_one } else { &raw_four };
        let trial_ratios: Vec<f64> = results.iter().zip(raws).map(|(m, raw)| m.mib_s / raw).collect();
        let ratio = median(&trial_ratios);
        println!(
            "{:<60} {rate:>10.0} {ratio:>8.2}x {:>13} {:>9.2} s/GiB {:>9.2} s/GiB",
            case.label(),
            range(&trial_ratios),
            of(|m| m.client_cpu_s_per_gib),
            of(|m| m.emulator_cpu_s_per_gib)
        );
        ratios.push(ratio);
        cpus.push((of(|m| m.client_cpu_s_per_gib), of(|m| m.emulator_cpu_s_per_gib)));
    }
    print_user_runs(&user_runs, big);
    let goal_case = |transport, download| {
        cases.iter().position(|c| {
            c.transport == transport
                && c.download == download
                && c.streams == 1
                && !c.chunked
                && c.checksum
                && c.window.is_none()
                && (c.kept == download)
        })
    };
    let kept_write =
        |transport| cases.iter().position(|c| c.transport == transport && !c.download && c.kept && c.streams == 1);
    let verdict = |met: bool| if met { "met" } else { "NOT met" };
    for (transport, download, goal) in GOALS {
        if let Some(i) = goal_case(transport, download) {
            let ratio = ratios[i];
            println!(
                "goal {} {}: one stream with crc32c at {ratio:.2}x raw, goal {goal:.2}x: {}",
                transport.name(),
                if download { "reads" } else { "writes" },
                verdict(ratio >= goal)
            );
        }
    }
    if let (Some(json), Some(grpc)) = (goal_case(TransportKind::Json, true), goal_case(TransportKind::Grpc, true)) {
        let of_json = ratios[grpc] / ratios[json];
        println!(
            "goal grpc reads: {of_json:.2}x of JSON's, goal {GRPC_READS_OF_JSON:.2}x: {}",
            verdict(of_json >= GRPC_READS_OF_JSON)
        );
    }
    if let (Some(json), Some(grpc)) = (goal_case(TransportKind::Json, false), goal_case(TransportKind::Grpc, false)) {
        let of_json = ratios[grpc] / ratios[json];
        println!(
            "goal grpc writes: {of_json:.2}x of JSON's, goal {GRPC_WRITES_OF_JSON:.2}x: {}",
            verdict(of_json >= GRPC_WRITES_OF_JSON)
        );
    }
    for (transport, goal) in WRITE_CLIENT_CPU {
        if let Some(i) = goal_case(transport, false) {
            let (client, emulator) = cpus[i];
            println!(
                "goal {} writes CPU: client {client:.2} s/GiB, goal <= {goal:.2}: {}; emulator {emulator:.2} s/GiB, goal <= {WRITE_EMULATOR_CPU:.2}: {}",
                transport.name(),
                verdict(client <= goal),
                verdict(emulator <= WRITE_EMULATOR_CPU)
            );
        }
    }
    if let (Some(json), Some(grpc)) = (goal_case(TransportKind::Json, false), goal_case(TransportKind::Grpc, false)) {
        print_write_cpu("", &raw_metered, &measured[json], &measured[grpc]);
    }
    if let (Some(json), Some(grpc)) = (kept_write(TransportKind::Json), kept_write(TransportKind::Grpc)) {
        print_write_cpu(", emulator keeps bytes", &raw_metered, &measured[json], &measured[grpc]);
    }
    if let Some(line) = peak_rss {
        println!("{line}");
    }
}

/// Issue 43's figures, trial by trial: client CPU per GiB of one-stream
/// writes with crc32c beside the raw socket sender's measured just before
/// the trial, the emulator's per transport, and gRPC's ratios to both.
fn print_write_cpu(condition: &str, raw: &[Raw], json: &[Measured], grpc: &[Measured]) {
    let said = |values: &[f64]| {
        let each: Vec<String> = values.iter().map(|v| format!("{v:.3}")).collect();
        format!("{} (median {:.3}, range {:.3}-{:.3})", each.join(" "), median(values), min(values), max(values))
    };
    let raw_cpu: Vec<f64> = raw.iter().take(json.len()).map(|r| r.sender_cpu_s_per_gib).collect();
    let cpu = |runs: &[Measured]| runs.iter().map(|m| m.client_cpu_s_per_gib).collect::<Vec<_>>();
    let emulator = |runs: &[Measured]| runs.iter().map(|m| m.emulator_cpu_s_per_gib).collect::<Vec<_>>();
    println!("client CPU per GiB, writes of one stream, one request, crc32c{condition}, trial by trial (s/GiB):");
    println!("  raw socket sender: {}", said(&raw_cpu));
    println!("  http-json client:  {}; emulator {}", said(&cpu(json)), said(&emulator(json)));
    println!("  grpc client:       {}; emulator {}", said(&cpu(grpc)), said(&emulator(grpc)));
    let of_json: Vec<f64> = cpu(grpc).iter().zip(cpu(json)).map(|(g, j)| g / j).collect();
    let of_raw: Vec<f64> = cpu(grpc).iter().zip(&raw_cpu).map(|(g, r)| g / r).collect();
    let verdict = |ratio: f64, goal: f64| if ratio <= goal { "met" } else { "NOT met" };
    println!(
        "goal grpc writes CPU of JSON's{condition}: {}x, goal <= {GRPC_WRITE_CPU_OF_JSON:.1}x: {}",
        said(&of_json),
        verdict(median(&of_json), GRPC_WRITE_CPU_OF_JSON)
    );
    println!(
        "goal grpc writes CPU of the raw sender's{condition}: {}x, goal <= {GRPC_WRITE_CPU_OF_RAW:.1}x: {}",
        said(&of_raw),
        verdict(median(&of_raw), GRPC_WRITE_CPU_OF_RAW)
    );
}

/// `0.61-0.74x`: the lowest and highest of a case's trials.
fn range(ratios: &[f64]) -> String {
    format!("{:.2}-{:.2}x", min(ratios), max(ratios))
}

fn min(values: &[f64]) -> f64 {
    values.iter().copied().fold(f64::INFINITY, f64::min)
}

fn max(values: &[f64]) -> f64 {
    values.iter().copied().fold(0.0, f64::max)
}

/// Peak RSS of the real binary uploading 4 objects in 16 MiB chunks, said.
fn peak_rss(quick: bool) -> String {
    let size = if quick { "1GiB" } else { "4GiB" };
    let args =
        ["run", "--emulator", "--size", size, "--concurrency", "4", "--chunk-size", "16MiB", "--iterations", "1"];
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
    let rss_mib = usage.ru_maxrss as f64 / 1024.0;
    format!("peak RSS of `{}`: {rss_mib:.0} MiB", args.join(" "))
}
