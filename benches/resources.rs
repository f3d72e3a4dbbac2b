//! What a fleet's pod needs: the Kubernetes manifest's command (`run --size
//! 64MiB --iterations 5 --concurrency 4`, both transports) against the
//! emulator command running as a process of its own, plaintext and TLS,
//! three trials each. Printed per trial and as median (range): the client
//! CPU per GiB each transport's report gives, the whole process's CPU
//! (user + system, from the kernel's accounting of that one child) per GiB
//! it moved, and its peak RSS.
//!
//! `cargo bench --bench resources`. The guide's Resources figures (docs/fleets.md) are these.

#[path = "support/emulator_process.rs"]
mod emulator_process;

const TRIALS: usize = 3;
const SIZE_MIB: f64 = 64.0;
const ITERATIONS: f64 = 5.0;
const CONCURRENCY: f64 = 4.0;
const BUCKET: &str = "bench-resources";

/// One trial: each transport's s/GiB as reported, the process's CPU-s per
/// GiB moved, its peak RSS in MiB.
struct Trial {
    reported: Vec<(String, f64)>,
    process_s_per_gib: f64,
    peak_rss_mib: f64,
}

fn main() {
    println!("the manifest's command against `emulator` in another process ({} CPUs)", cpus());
    for tls in [false, true] {
        let (mut emulator, run_args) = emulator(tls);
        let trials: Vec<Trial> = (0..TRIALS).map(|_| trial(&run_args)).collect();
        let _ = emulator.kill();
        let _ = emulator.wait();
        let name = if tls { "TLS" } else { "plaintext" };
        for (i, t) in trials.iter().enumerate() {
            let reported: Vec<String> = t.reported.iter().map(|(k, v)| format!("{k} {v:.2} s/GiB")).collect();
            println!(
                "{name} trial {}: {}; whole process {:.2} CPU-s/GiB, peak RSS {:.0} MiB",
                i + 1,
                reported.join(", "),
                t.process_s_per_gib,
                t.peak_rss_mib
            );
        }
        for transport in ["http-json", "grpc"] {
            let values: Vec<f64> =
                trials.iter().flat_map(|t| t.reported.iter().filter(|r| r.0 == transport).map(|r| r.1)).collect();
            println!("{name} {transport}: client CPU {} s/GiB", spread(&values, 2));
        }
        println!(
            "{name} whole process: {} CPU-s/GiB",
            spread(&trials.iter().map(|t| t.process_s_per_gib).collect::<Vec<_>>(), 2)
        );
        println!("{name} peak RSS: {} MiB", spread(&trials.iter().map(|t| t.peak_rss_mib).collect::<Vec<_>>(), 0));
    }
}

fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `0.43 (0.41-0.45)`: the median and the range.
fn spread(values: &[f64], decimals: usize) -> String {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |i: usize| format!("{:.*}", decimals, sorted[i]);
    format!("{} ({}-{})", at(sorted.len() / 2), at(0), at(sorted.len() - 1))
}

/// The emulator command, and the `run` arguments its ready hint gives.
fn emulator(tls: bool) -> (std::process::Child, Vec<String>) {
    emulator_process::emulator(BUCKET, if tls { &["--tls"] } else { &[] })
}

fn trial(run_args: &[String]) -> Trial {
    use std::io::Read;
    // Reaped below by wait4, which also gives its rusage.
    #[allow(clippy::zombie_processes)]
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui"))
        .arg("run")
        .args(run_args)
        .args(["--size", "64MiB", "--iterations", "5", "--concurrency", "4", "--format", "json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut stdout).unwrap();
    // wait4: this one child's own CPU and peak RSS, not the sum of all children's.
    // SAFETY: wait4 fills the status and rusage we own, for our own child.
    let (status, usage) = unsafe {
        let (mut status, mut usage): (libc::c_int, libc::rusage) = (0, std::mem::zeroed());
        libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage);
        (status, usage)
    };
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "the run failed: {run_args:?}");
    let report: serde_json::Value = serde_json::from_slice(&stdout).expect("the run's JSON report");
    let reported = report["transports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["transport"].as_str().unwrap().to_string(), t["cpu_s_per_gib"].as_f64().unwrap()))
        .collect();
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    // The timed rounds of both transports (the warmup's small objects aside).
    let gib = 2.0 * SIZE_MIB * ITERATIONS * CONCURRENCY / 1024.0;
    Trial { reported, process_s_per_gib: cpu_s / gib, peak_rss_mib: usage.ru_maxrss as f64 / 1024.0 }
}
