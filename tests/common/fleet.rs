//! What a fleet test checks a merge against, worked out here from the hosts'
//! own JSON (not with the merge's code): each host's rate inside a window.

use gcs_speed_tui::engine::start::parse_rfc3339;
use serde_json::Value;

/// Microseconds since the epoch of an RFC 3339 text.
pub fn micros(text: &str) -> i64 {
    let at = parse_rfc3339(text).unwrap_or_else(|| panic!("an RFC 3339 time: {text}"));
    at.duration_since(std::time::UNIX_EPOCH).unwrap().as_micros() as i64
}

/// A host's rate of one transport inside [start, end]: each complete round
/// counts for the part of it inside, its work taken as even over the round.
pub fn rate_in(report: &Value, transport: &str, (start, end): (i64, i64), amount: impl Fn(&Value) -> f64) -> f64 {
    let (mut work, mut seconds) = (0.0, 0.0);
    for round in report["rounds"].as_array().unwrap() {
        if round["transport"] != transport || round["ok"] != true {
            continue;
        }
        let (from, to) = (micros(round["started_at"].as_str().unwrap()), micros(round["ended_at"].as_str().unwrap()));
        let inside = (to.min(end) - from.max(start)).max(0) as f64;
        work += amount(round) * inside / (to - from) as f64;
        seconds += inside / 1e6;
    }
    work / seconds
}

/// The merged report's window in microseconds.
pub fn window(merged: &Value) -> (i64, i64) {
    let window = &merged["fleet"]["window"];
    (micros(window["started_at"].as_str().unwrap()), micros(window["ended_at"].as_str().unwrap()))
}

/// Every round's two clocks agree: its wall-clock span is its elapsed time.
pub fn assert_clocks_agree(report: &Value) {
    for round in report["rounds"].as_array().unwrap() {
        let wall = (micros(round["ended_at"].as_str().unwrap()) - micros(round["started_at"].as_str().unwrap())) as f64;
        let monotonic = (round["end_s"].as_f64().unwrap() - round["start_s"].as_f64().unwrap()) * 1e6;
        assert!((wall - monotonic).abs() <= 2.0, "{wall} µs on the wall clock, {monotonic} µs monotonic: {round}");
        let elapsed = round["elapsed_s"].as_f64().unwrap() * 1e6;
        assert!((monotonic - elapsed).abs() <= 2.0, "the span is the round's elapsed time: {round}");
    }
}
