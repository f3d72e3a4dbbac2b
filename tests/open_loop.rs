//! Open-loop load against the built-in emulator with a known stall: the
//! whole server pauses for 1 s on every 200th upload. A closed loop sends
//! nothing while it waits, so its p99 hides the pause; an open loop keeps
//! sending at the offered rate, so the arrivals due during the pause wait
//! for its end and its p99 shows it. Every expected value is worked out
//! here from the schedule (rate, arrivals, where the pauses fall).

mod common;
use common::run;
use serde_json::Value;

const RATE: f64 = 100.0;
const ARRIVALS: usize = 400;
const PAUSE_S: f64 = 1.0;
const PAUSE_EVERY: usize = 200;

fn report(extra: &[&str]) -> Value {
    let fault = format!("pause-server-for-1s:every={PAUSE_EVERY}");
    let base = ["run", "--transports", "http-json", "--size", "1KiB", "--warmup=false", "--format", "json"];
    let args: Vec<&str> = [&base[..], &["--emulator-fault", &fault], extra].concat();
    let output = run(&args, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    serde_json::from_slice(&output.stdout).expect("a JSON report")
}

/// The latency from intended start each arrival would see from the pauses
/// alone: arrival i is due at i / RATE; the nth pause starts when the
/// (n * PAUSE_EVERY)th arrival is served and holds every arrival due
/// before it ends.
fn delays_from_the_schedule() -> Vec<f64> {
    // In whole arrivals (1 / RATE apart), so no rounding decides who is held.
    let pause_arrivals = (PAUSE_S * RATE) as usize;
    let starts: Vec<usize> = (1..=ARRIVALS / PAUSE_EVERY).map(|n| n * PAUSE_EVERY - 1).collect();
    (0..ARRIVALS)
        .map(|i| match starts.iter().find(|start| (**start..**start + pause_arrivals).contains(&i)) {
            Some(start) => (start + pause_arrivals - i) as f64 / RATE,
            None => 0.0,
        })
        .collect()
}

/// The value at rank ceil(q * n) of the sorted values, as HdrHistogram reads a quantile.
fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((q * values.len() as f64).ceil() as usize).max(1) - 1]
}

#[test]
fn the_closed_loop_p99_hides_a_stall_that_the_open_loop_p99_shows() {
    let delays = delays_from_the_schedule();
    let stalled = delays.iter().filter(|d| **d > 0.0).count();
    // 100 arrivals fall in the first pause (the first included), 1 in the
    // second (the last arrival, which starts it).
    assert_eq!(stalled, 101);
    let expected_open_p99 = quantile(&delays, 0.99);
    assert!((expected_open_p99 - 0.97).abs() < 1e-9, "{expected_open_p99}");

    let arrivals = ARRIVALS.to_string();
    let rate = RATE.to_string();
    let open = report(&["--concurrency", &arrivals, "--iterations", "1", "--rate", &rate]);
    let open_p99 = open["transports"][0]["p99_s"].as_f64().unwrap();
    // Service time adds a millisecond or so; the pacer is not late by more.
    assert!(
        open_p99 >= expected_open_p99 - 0.03 && open_p99 <= expected_open_p99 + 0.2,
        "open-loop p99 {open_p99} s, the schedule gives {expected_open_p99} s"
    );
    let figures = &open["open_loop"][0]["transports"][0];
    assert_eq!(figures["offered"].as_u64(), Some(ARRIVALS as u64));
    assert_eq!(figures["started"].as_u64(), Some(ARRIVALS as u64));
    assert_eq!(figures["dropped"].as_u64(), Some(0), "100 in flight is far below the default 1000");
    let service_p99_ms = figures["service_p99_ms"].as_f64().unwrap();
    assert!(service_p99_ms / 1000.0 >= expected_open_p99 - 0.03, "the held arrivals' service took the pause too");

    // Closed loop: one upload at a time, the same count. Two of 400 (under
    // the 1% a p99 leaves out) wait out a pause, as the rounds' max shows.
    let closed = report(&["--concurrency", "1", "--iterations", &arrivals]);
    let closed_p99 = closed["transports"][0]["p99_s"].as_f64().unwrap();
    let closed_max = closed["transports"][0]["max_s"].as_f64().unwrap();
    assert!(closed_max >= PAUSE_S, "the pause happened: the slowest round took {closed_max} s");
    assert!(closed_p99 < 0.1, "the closed-loop p99 {closed_p99} s does not show it");
    assert!(open_p99 > 5.0 * closed_p99);
    eprintln!(
        "stall: open-loop p99 {open_p99:.3} s (the schedule gives {expected_open_p99:.3} s), \
         closed-loop p99 {closed_p99:.4} s, closed-loop slowest {closed_max:.3} s"
    );
}
