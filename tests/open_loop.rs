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
    // One round of 4 s at 100/s: the 400 arrivals.
    let round_time = format!("{}s", ARRIVALS as f64 / RATE);
    let open = report(&["--round-time", &round_time, "--iterations", "1", "--rate", &rate]);
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
    // The pacer kept the schedule through the pause: the server held the
    // answers, not the starts.
    let achieved = figures["achieved_rate"].as_f64().unwrap();
    assert!((achieved / RATE - 1.0).abs() < 0.02, "started {achieved}/s of {RATE}/s");
    // The server's pause did not hold the starts: an arrival started late
    // would wait out the pause (1 s). When the pause ends a hundred answers
    // land at once on this 2-core machine and some starts slip by a few
    // milliseconds: the client's lag, counted and said as the client's.
    let lateness_p99_ms = figures["lateness_p99_ms"].as_f64().unwrap();
    assert!(lateness_p99_ms < 100.0, "starts waited {lateness_p99_ms} ms for the server");
    let late = figures["late"].as_u64().unwrap();
    // Late starts are said apart from the rate kept, which they do not change.
    assert_eq!(figures["client_late"].is_string(), late * 100 > ARRIVALS as u64, "{figures}");
    if let Some(why) = figures["client_late"].as_str() {
        assert!(why.starts_with(&format!("the client started {late} of {ARRIVALS}")), "{why}");
    }
    assert_eq!(figures["not_sustained"], Value::Null, "every arrival started, at the offered rate: {figures}");
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

#[test]
fn a_rate_for_a_duration_offers_rate_times_duration_arrivals_over_that_time() {
    // As wrk2, k6 and vegeta read it: 100/s for 4 s is 400 arrivals, here
    // in 4 paced rounds of 1 s, whatever a closed round's size would be.
    let base = ["run", "--transports", "http-json", "--size", "64KiB", "--warmup=false", "--format", "json"];
    let output = run(&[&base[..], &["--rate", "100", "--duration", "4s"]].concat(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let (rate, seconds) = (100.0, 4.0);
    let expected = (rate * seconds) as u64;
    let figures = &report["open_loop"][0]["transports"][0];
    assert_eq!(figures["offered"].as_u64(), Some(expected));
    // None dropped at the default 1000 in flight: every arrival started.
    assert_eq!(figures["dropped"].as_u64(), Some(0));
    let started = figures["started"].as_u64().unwrap();
    assert_eq!(started, expected);
    let achieved = figures["achieved_rate"].as_f64().unwrap();
    assert!((achieved / rate - 1.0).abs() < 0.05, "started {achieved}/s of {rate}/s");
    // Over about 4 s of rounds (each ends when its last answer comes).
    let rounds = report["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 4);
    let busy: f64 = rounds.iter().map(|r| r["elapsed_s"].as_f64().unwrap()).sum();
    assert!((seconds * 0.95..seconds * 1.5).contains(&busy), "the rounds took {busy} s");
    // The uploads the server stored match the starts: objects per second near the offer.
    let objects: u64 = report["transports"][0]["objects"].as_u64().unwrap();
    assert_eq!(objects, started);
}

#[test]
fn open_loop_flags_without_a_rate_are_refused_and_a_rate_too_low_for_a_round_too() {
    for (flags, says) in [
        (&["--arrivals", "poisson"][..], "--arrivals poisson is for open loop: add --rate"),
        (&["--max-in-flight", "50"][..], "--max-in-flight is for open loop: add --rate"),
        (&["--round-time", "2s"][..], "--round-time is for open loop: add --rate"),
        (
            &["--rate", "0.5"][..],
            "--rate 0.5/s offers under one arrival in a round of 1s: raise --rate, or give --round-time 2s",
        ),
        (&["--rate", "100", "--until-stable", "5%"][..], "--until-stable watches the throughput's interval"),
    ] {
        let output = run(&[&["run", "--transports", "http-json"][..], flags].concat(), &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flags:?}: {stderr}");
        assert!(stderr.contains(says), "{flags:?}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "one sentence: {stderr}");
    }
}
