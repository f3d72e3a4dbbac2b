//! The verdict says when the client itself may have decided it: a run in
//! which one transport's client costs markedly more CPU per GiB, on a host
//! kept busy, carries the caution naming that transport, in the table and
//! in the JSON.
//!
//! Why JSON's client costs more here, from the inputs: the emulator allows
//! only 16 KiB frames and JSON goes over HTTP/2 (`--json-http 2`), so
//! JSON's client writes every 16 KiB frame in a write of its own (reqwest's
//! connections cannot be wrapped), while gRPC's gathers its frames into
//! 512 KiB writes (`wire::bulk_writes`): about 2x the CPU per GiB
//! (docs/performance.md, "16 KiB frames"), above the caution's 1.25x.
//! Spinning threads keep every core busy throughout, so the host's busy
//! share is above the caution's 85% whatever else runs; they run at
//! SCHED_IDLE, taking only what nothing else wants, so they do not blur
//! the clients' own CPU figures (at normal priority, preempting both
//! clients alike, they pulled the ratio to 0.87-1.23x in three runs).

mod common;
use common::*;
use gcs_speed_tui::config::Options;
use gcs_speed_tui::emulator::EmulatorOptions;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Threads that keep every core busy until dropped, at SCHED_IDLE; not the
/// client's threads (those are named), so their CPU is the host's, not the
/// client's.
struct BusyHost {
    stop: Arc<AtomicBool>,
    spinners: Vec<std::thread::JoinHandle<()>>,
}

impl BusyHost {
    fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let spinners = (0..cores)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let idle = libc::sched_param { sched_priority: 0 };
                    // SAFETY: sets the calling thread's policy (pid 0) from a param we own.
                    let set = unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &idle) };
                    assert_eq!(set, 0, "SCHED_IDLE needs no privilege");
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::black_box(0u64);
                    }
                })
            })
            .collect();
        BusyHost { stop, spinners }
    }
}

impl Drop for BusyHost {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.spinners.drain(..).for_each(|s| s.join().unwrap());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_costlier_client_on_a_busy_host_is_named_beside_the_verdict() {
    let emulator = emulator_with(EmulatorOptions { max_frame: 16 * 1024, ..EmulatorOptions::default() }).await;
    let options = Options {
        transports: "json,grpc".into(),
        size: "128MiB".into(),
        iterations: "3".into(),
        chunk_size: "0".into(),
        checksum: "crc32c".into(),
        json_http: "2".into(),
        warmup: false,
        ..options_for(&emulator)
    };
    let busy = BusyHost::start();
    let report = run_bench(options).await;
    drop(busy);
    assert!(report.succeeded(), "{}", report.to_table());
    let row = |name: &str| report.transports.iter().find(|t| t.transport.name() == name).unwrap();
    let (json, grpc) = (row("http-json"), row("grpc"));
    assert_eq!((json.runs, grpc.runs), (3, 3), "every round complete: {}", report.to_table());
    // The inputs' premises, read back: the spinners kept the host busy in
    // JSON's rounds, and JSON's client took markedly more CPU a GiB.
    let busy = json.host_cpu_busy.expect("the host's CPU read in every round");
    assert!(busy >= 0.85, "every core was kept spinning: {busy}");
    let ratio = json.cpu_s_per_gib.unwrap() / grpc.cpu_s_per_gib.unwrap();
    assert!(ratio >= 1.25, "a write a 16 KiB frame costs JSON's client more: {ratio:.2}x\n{}", report.to_table());
    let caution = report.verdicts[0].caveat.as_deref().expect("a caution beside the verdict");
    let said = format!(
        "caution: the host's CPU was {:.0}% busy during http-json's rounds and http-json's client took {ratio:.2}x grpc's CPU per GiB",
        busy * 100.0
    );
    assert!(caution.starts_with(&said), "{caution}\nexpected it to start: {said}");
    let table = report.to_table();
    assert!(table.contains(&format!("  {caution}")), "under the verdict: {table}");
    let json_report: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json_report["verdicts"][0]["caveat"].as_str(), Some(caution), "JSON readers see it too");
}
