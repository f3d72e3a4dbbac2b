//! Is the client ever the bottleneck? One run measures raw loopback TCP (the
//! limit), then JSON and gRPC uploads to the in-process emulator (one stream
//! of 1 GiB, four of 256 MiB; one request and 16 MiB chunks; crc32c on and
//! off) and reads from it (the same sizes, whole objects, crc32c on and off),
//! with client and emulator CPU per GiB, and prints each as a ratio to the
//! limit. One-stream writes also go to an emulator that keeps the bytes and
//! to one that allows only 16 KiB HTTP/2 frames (HTTP/2's default).
//! Last, the peak RSS of the real binary uploading 4 x 4 GiB.
//!
//! `cargo bench --bench throughput` or `cargo bench --bench throughput -- --quick`
//! (`--trials=N` for N rounds of the cases instead of 3);
//! words after `--` pick the cases whose labels hold all of them (`-- grpc crc32c`).
//! Virtual machines drift during a run (raw loopback TCP alone varies by 2x
//! here), so the run goes round all the cases three times (once with
//! `--quick`), measuring the baseline before each round and at the end; each
//! figure is a median, and the baseline's spread is printed.

mod support;

use gcs_speed_tui::config::TransportKind;
use gcs_speed_tui::gcs::payload::POOL_BYTES;
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
    // More trials narrow a median's spread on a VM that drifts (`--trials=7`).
    let trials = std::env::args().find_map(|a| a.strip_prefix("--trials=")?.parse().ok()).unwrap_or(trials);
    let mut cases = cases(big, small);
    cases.retain(|case| picks.iter().all(|word| case.label().contains(word.as_str())));
    // First, while this process is small: a child's peak RSS as the kernel
    // counts it starts from the parent's at the spawn, and the read cases
    // below keep GiBs in the in-process emulator.
    let peak_rss = picks.is_empty().then(|| peak_rss(quick));
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let users = picks.is_empty() || picks.iter().any(|w| w == "binary");
    let runs = runtime.block_on(trials_of(&cases, trials, (big, small), users));
    let figures = print_cases(&cases, &runs, trials);
    print_user_runs(&runs.users, big);
    print_goals(&cases, &figures, &runs);
    if let Some(line) = peak_rss {
        println!("{line}");
    }
}

/// Every case: each transport's writes (one request and 16 MiB chunks,
/// crc32c on and off) and reads, one stream of `big` and four of `small`.
fn cases(big: u64, small: u64) -> Vec<Case> {
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
                // To a server that sets no frame size, as GCS's front ends may not.
                cases.push(Case { small_frames: true, ..write });
            }
            if transport == TransportKind::Grpc {
                // The receive window paces gRPC reads: the default (adaptive) and a fixed 16 MiB.
                cases.push(Case { window: Some(16 * MIB as u32), ..read });
            }
        }
    }
    cases
}

/// What the trials measured: the baselines before each trial and at the
/// end, each case's trials, and the user's runs.
struct Runs {
    raw_one: Vec<Raw>,
    /// One crc32c pass's CPU per GiB, each trial's.
    crc_pass: Vec<f64>,
    /// The raw sender's CPU per GiB sending from a pool the payload's size.
    raw_from_pool: Vec<f64>,
    /// The same, working out each write's crc32c as it goes.
    raw_checksummed: Vec<f64>,
    raw_four: Vec<f64>,
    measured: Vec<Vec<Measured>>,
    users: Vec<UserRun>,
}

/// Trials go round all the cases, with the baseline between them, so that
/// a slow spell of the machine falls on many cases a little rather than on
/// one case entirely; each case reports its median and the range of its trials.
async fn trials_of(cases: &[Case], trials: usize, (big, small): (u64, u64), users: bool) -> Runs {
    let emulator = support::emulator().await;
    // Reads need the bytes kept; uploads are measured without that cost.
    let reads = support::retaining_emulator().await;
    let default_frames = support::default_frames_emulator().await;
    raw_tcp(1, big / 4).await; // warm
    let mut runs = Runs {
        raw_one: Vec::new(),
        crc_pass: Vec::new(),
        raw_from_pool: Vec::new(),
        raw_checksummed: Vec::new(),
        raw_four: Vec::new(),
        measured: cases.iter().map(|_| Vec::new()).collect(),
        users: Vec::new(),
    };
    for _ in 0..trials {
        runs.raw_one.push(raw_tcp_metered(1, big, MIB as usize, false).await);
        runs.raw_from_pool.push(raw_tcp_metered(1, big, POOL_BYTES as usize, false).await.sender_cpu_s_per_gib);
        runs.raw_checksummed.push(raw_tcp_metered(1, big, POOL_BYTES as usize, true).await.sender_cpu_s_per_gib);
        runs.crc_pass.push(support::crc32c_pass_cpu_s_per_gib(big).await);
        runs.raw_four.push(raw_tcp(4, small).await);
        for (case, results) in cases.iter().zip(&mut runs.measured) {
            let server = match (case.kept, case.small_frames) {
                (true, _) => &reads,
                (false, true) => &default_frames,
                (false, false) => &emulator,
            };
            results.push(measure(server, case, 1).await);
        }
        if users {
            // What a user runs, the binary as it ships, against the raw
            // limit measured just before it.
            for download in [false, true] {
                let raw = raw_tcp(1, big).await;
                runs.users.push(tokio::task::spawn_blocking(move || user_run(big, download, raw)).await.unwrap());
            }
        }
    }
    runs.raw_one.push(raw_tcp_metered(1, big, MIB as usize, false).await);
    runs.raw_four.push(raw_tcp(4, small).await);
    runs
}

/// Each case's median rate against raw TCP, and its client and emulator CPU.
struct Figures {
    ratios: Vec<f64>,
    cpus: Vec<(f64, f64)>,
}

fn print_cases(cases: &[Case], runs: &Runs, trials: usize) -> Figures {
    let raw_one: Vec<f64> = runs.raw_one.iter().map(|r| r.mib_s).collect();
    let (one, four) = (median(&raw_one), median(&runs.raw_four));
    println!(
        "throughput on this machine ({} CPUs), client and emulator sharing it; medians of {trials} trial(s), and their range",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    println!(
        "{:<60} {:>10} {:>9} {:>13} {:>14} {:>14}",
        "case", "MiB/s", "x raw", "x raw range", "client CPU", "emulator CPU"
    );
    for (label, median, seen) in [("1 stream", one, &raw_one), ("4 streams", four, &runs.raw_four)] {
        let spread = format!("{:.0}-{:.0} MiB/s seen", min(seen), max(seen));
        println!("{:<60} {median:>10.0} {:>9} {spread:>28}", format!("raw loopback TCP, {label}"), "1.00");
    }
    let mut figures = Figures { ratios: Vec::new(), cpus: Vec::new() };
    for (case, results) in cases.iter().zip(&runs.measured) {
        let of = |field: fn(&Measured) -> f64| median(&results.iter().map(field).collect::<Vec<_>>());
        let rate = of(|m| m.mib_s);
        // Each trial's rate over the baseline measured just before it.
        let raws = if case.streams == 1 { &raw_one } else { &runs.raw_four };
        let trial_ratios: Vec<f64> = results.iter().zip(raws).map(|(m, raw)| m.mib_s / raw).collect();
        let ratio = median(&trial_ratios);
        let (client, emulator) = (of(|m| m.client_cpu_s_per_gib), of(|m| m.emulator_cpu_s_per_gib));
        println!(
            "{:<60} {rate:>10.0} {ratio:>8.2}x {:>13} {client:>9.2} s/GiB {emulator:>9.2} s/GiB",
            case.label(),
            range(&trial_ratios),
        );
        figures.ratios.push(ratio);
        figures.cpus.push((client, emulator));
    }
    figures
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "NOT met" }
}

/// Each goal the cases carry, said met or not.
fn print_goals(cases: &[Case], figures: &Figures, runs: &Runs) {
    let goal_case = |transport, download: bool| {
        cases.iter().position(|c| {
            c.transport == transport
                && c.download == download
                && c.streams == 1
                && !c.chunked
                && c.checksum
                && c.window.is_none()
                && (c.kept == download)
                && !c.small_frames
        })
    };
    let ratios = &figures.ratios;
    for (transport, download, goal) in GOALS {
        if let Some(i) = goal_case(transport, download) {
            println!(
                "goal {} {}: one stream with crc32c at {:.2}x raw, goal {goal:.2}x: {}",
                transport.name(),
                if download { "reads" } else { "writes" },
                ratios[i],
                verdict(ratios[i] >= goal)
            );
        }
    }
    let pair = |download| goal_case(TransportKind::Json, download).zip(goal_case(TransportKind::Grpc, download));
    for (download, goal, what) in [(true, GRPC_READS_OF_JSON, "reads"), (false, GRPC_WRITES_OF_JSON, "writes")] {
        if let Some((json, grpc)) = pair(download) {
            let of_json = ratios[grpc] / ratios[json];
            println!("goal grpc {what}: {of_json:.2}x of JSON's, goal {goal:.2}x: {}", verdict(of_json >= goal));
        }
    }
    for (transport, goal) in WRITE_CLIENT_CPU {
        if let Some(i) = goal_case(transport, false) {
            let (client, emulator) = figures.cpus[i];
            println!(
                "goal {} writes CPU: client {client:.2} s/GiB, goal <= {goal:.2}: {}; emulator {emulator:.2} s/GiB, goal <= {WRITE_EMULATOR_CPU:.2}: {}",
                transport.name(),
                verdict(client <= goal),
                verdict(emulator <= WRITE_EMULATOR_CPU)
            );
        }
    }
    if let Some((json, grpc)) = pair(false) {
        print_write_cpu("", runs, &runs.measured[json], &runs.measured[grpc]);
    }
    let kept_write =
        |transport| cases.iter().position(|c| c.transport == transport && !c.download && c.kept && c.streams == 1);
    if let Some((json, grpc)) = kept_write(TransportKind::Json).zip(kept_write(TransportKind::Grpc)) {
        print_write_cpu(", emulator keeps bytes", runs, &runs.measured[json], &runs.measured[grpc]);
    }
    let small_frames_write = |transport| cases.iter().position(|c| c.transport == transport && c.small_frames);
    if let Some((json, grpc)) = small_frames_write(TransportKind::Json).zip(small_frames_write(TransportKind::Grpc)) {
        print_write_cpu(", 16 KiB frames", runs, &runs.measured[json], &runs.measured[grpc]);
    }
}

/// Issue 43's figures, trial by trial: client CPU per GiB of one-stream
/// writes with crc32c beside the raw socket sender's measured just before
/// the trial, the emulator's per transport, and gRPC's ratios to both;
/// then, not a goal, gRPC's ratio to the raw sender plus one crc32c pass
/// (the checksum's work, which the raw sender does not do), and both
/// clients' to a reference sender with no protocol: it reads the payload's
/// pool and checksums each write as it sends it.
fn print_write_cpu(condition: &str, runs: &Runs, json: &[Measured], grpc: &[Measured]) {
    let said = |values: &[f64]| {
        let each: Vec<String> = values.iter().map(|v| format!("{v:.3}")).collect();
        format!("{} (median {:.3}, range {:.3}-{:.3})", each.join(" "), median(values), min(values), max(values))
    };
    let raw_cpu: Vec<f64> = runs.raw_one.iter().take(json.len()).map(|r| r.sender_cpu_s_per_gib).collect();
    let raw_and_crc: Vec<f64> = raw_cpu.iter().zip(&runs.crc_pass).map(|(raw, crc)| raw + crc).collect();
    let cpu = |runs: &[Measured]| runs.iter().map(|m| m.client_cpu_s_per_gib).collect::<Vec<_>>();
    let emulator = |runs: &[Measured]| runs.iter().map(|m| m.emulator_cpu_s_per_gib).collect::<Vec<_>>();
    let (json_cpu, grpc_cpu) = (cpu(json), cpu(grpc));
    println!("client CPU per GiB, writes of one stream, one request, crc32c{condition}, trial by trial (s/GiB):");
    println!("  raw socket sender: {}", said(&raw_cpu));
    println!("  http-json client:  {}; emulator {}", said(&json_cpu), said(&emulator(json)));
    println!("  grpc client:       {}; emulator {}", said(&grpc_cpu), said(&emulator(grpc)));
    let of_json = ratios(&grpc_cpu, &json_cpu);
    let of_raw = ratios(&grpc_cpu, &raw_cpu);
    println!(
        "goal grpc writes CPU of JSON's{condition}: {}x, goal <= {GRPC_WRITE_CPU_OF_JSON:.1}x: {}",
        said(&of_json),
        verdict(median(&of_json) <= GRPC_WRITE_CPU_OF_JSON)
    );
    println!(
        "goal grpc writes CPU of the raw sender's{condition}: {}x, goal <= {GRPC_WRITE_CPU_OF_RAW:.1}x: {}",
        said(&of_raw),
        verdict(median(&of_raw) <= GRPC_WRITE_CPU_OF_RAW)
    );
    println!("  http-json client of the raw sender's{condition}: {}x (not a goal)", said(&ratios(&json_cpu, &raw_cpu)));
    println!("  one crc32c pass, no I/O: {}", said(&runs.crc_pass[..raw_cpu.len()]));
    println!("  raw socket sender + one crc32c pass: {}", said(&raw_and_crc));
    println!("  grpc client of that{condition}: {}x (not a goal)", said(&ratios(&grpc_cpu, &raw_and_crc)));
    let from_pool = &runs.raw_from_pool[..raw_cpu.len()];
    println!("  raw socket sender from a 32 MiB pool, as the payload: {}", said(from_pool));
    println!("  grpc client of that{condition}: {}x (not a goal)", said(&ratios(&grpc_cpu, from_pool)));
    let reference = &runs.raw_checksummed[..raw_cpu.len()];
    println!("  reference sender (the pool, crc32c of each write as it goes, no protocol): {}", said(reference));
    println!("  reference sender of the raw sender's: {}x", said(&ratios(reference, &raw_cpu)));
    println!("  http-json client of that{condition}: {}x (not a goal)", said(&ratios(&json_cpu, reference)));
    println!("  grpc client of that{condition}: {}x (not a goal)", said(&ratios(&grpc_cpu, reference)));
}

/// Trial by trial: each of `a` over the trial's `b`.
fn ratios(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter().zip(b).map(|(a, b)| a / b).collect()
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
