//! What a fleet test checks a merge against, worked out here from the hosts'
//! own JSON (not with the merge's code): the common window, each host's rate
//! inside it, and the percentiles of every host's samples together.

use gcs_speed_tui::engine::start::parse_rfc3339;
use serde_json::Value;

/// Microseconds since the epoch of an RFC 3339 text.
pub fn micros(text: &str) -> i64 {
    let at = parse_rfc3339(text).unwrap_or_else(|| panic!("an RFC 3339 time: {text}"));
    at.duration_since(std::time::UNIX_EPOCH).unwrap().as_micros() as i64
}

/// A round's wall-clock span in microseconds, as its host wrote it.
pub fn span_of(round: &Value) -> (i64, i64) {
    (micros(round["started_at"].as_str().unwrap()), micros(round["ended_at"].as_str().unwrap()))
}

/// A host's rate of one transport inside [start, end]: each complete round
/// counts for the part of it inside, its work taken as even over the round.
pub fn rate_in(report: &Value, transport: &str, (start, end): (i64, i64), amount: impl Fn(&Value) -> f64) -> f64 {
    let (mut work, mut seconds) = (0.0, 0.0);
    for round in report["rounds"].as_array().unwrap() {
        if round["transport"] != transport || round["ok"] != true {
            continue;
        }
        let (from, to) = span_of(round);
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

/// The common window worked out from the hosts' rounds: from the last
/// host's first start to the first host's last end, and who those were.
#[derive(Debug, PartialEq)]
pub struct ExpectedWindow {
    pub start: i64,
    pub end: i64,
    /// Cut off before the window (from the earliest start) and after it (to the latest end), in µs.
    pub trimmed_start: i64,
    pub trimmed_end: i64,
    pub last_to_start: String,
    pub first_to_end: String,
}

/// `hosts`: each host's name and its own report.
pub fn expected_window(hosts: &[(&str, &Value)]) -> ExpectedWindow {
    let bounds: Vec<(&str, i64, i64)> = hosts
        .iter()
        .map(|(name, report)| {
            let spans: Vec<(i64, i64)> = report["rounds"].as_array().unwrap().iter().map(span_of).collect();
            assert!(!spans.is_empty(), "{name} ran rounds");
            (*name, spans.iter().map(|s| s.0).min().unwrap(), spans.iter().map(|s| s.1).max().unwrap())
        })
        .collect();
    let last_to_start = bounds.iter().max_by_key(|b| b.1).unwrap();
    let first_to_end = bounds.iter().min_by_key(|b| b.2).unwrap();
    let earliest = bounds.iter().map(|b| b.1).min().unwrap();
    let latest = bounds.iter().map(|b| b.2).max().unwrap();
    ExpectedWindow {
        start: last_to_start.1,
        end: first_to_end.2,
        trimmed_start: last_to_start.1 - earliest,
        trimmed_end: latest - first_to_end.2,
        last_to_start: last_to_start.0.to_string(),
        first_to_end: first_to_end.0.to_string(),
    }
}

/// The merged report's window, in the same terms.
pub fn merged_window(merged: &Value) -> ExpectedWindow {
    let window = &merged["fleet"]["window"];
    let (start, end) = self::window(merged);
    let seconds = |field: &str| (window[field].as_f64().unwrap() * 1e6).round() as i64;
    ExpectedWindow {
        start,
        end,
        trimmed_start: seconds("trimmed_start_s"),
        trimmed_end: seconds("trimmed_end_s"),
        last_to_start: window["last_to_start"].as_str().unwrap().to_string(),
        first_to_end: window["first_to_end"].as_str().unwrap().to_string(),
    }
}

/// Every finished sample's time of one transport over all hosts, sorted.
pub fn finished_times(hosts: &[&Value], transport: &str) -> Vec<f64> {
    let mut times: Vec<f64> = hosts
        .iter()
        .flat_map(|host| host["samples"].as_array().unwrap())
        .filter(|s| s["transport"] == transport && s["ok"] == true)
        .map(|s| s["elapsed_s"].as_f64().unwrap())
        .collect();
    times.sort_by(f64::total_cmp);
    times
}

/// The nearest-rank percentile of sorted times: the ceil(p% of n)-th.
pub fn nearest_rank(sorted: &[f64], percent: usize) -> f64 {
    assert!(!sorted.is_empty(), "a percentile of no samples");
    let rank = (percent * sorted.len()).div_ceil(100).max(1);
    sorted[rank - 1]
}

/// A reported percentile is the true one within HdrHistogram's 3 significant
/// digits (a bucket is under 1/1000 of its value wide), times kept in whole µs.
pub fn assert_within_hdr_precision(reported: f64, exact: f64, what: &str) {
    let slack = exact / 1000.0 + 1e-6;
    assert!(reported >= exact - 1e-6 && reported <= exact + slack, "{what}: reported {reported} s, exact {exact} s");
}
