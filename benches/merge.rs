//! Is merging a fleet's reports ever slow? A fleet's reports are read
//! (parsed) whatever one does with them; the bench times that as the
//! baseline, in the same run, and the whole merge (parse, the checks, the
//! fleet's window, rows and verdict, the merged JSON written), and prints
//! their ratio against its goal.
//!
//! `cargo bench --bench merge` (`-- --quick`: a smaller fleet).

#[path = "../tests/common/synthetic.rs"]
mod synthetic;

use gcs_speed_tui::fleet::command::merge_loaded;
use gcs_speed_tui::fleet::inputs::{Loaded, parse};
use std::time::Instant;

/// The whole merge, at most this many times the parse of its inputs.
const GOAL: f64 = 3.0;
const TRIALS: usize = 5;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn parsed(texts: &[String]) -> Vec<Loaded> {
    texts.iter().enumerate().flat_map(|(i, text)| parse(&format!("pod-{i}.json"), text).unwrap()).collect()
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let (hosts, pairs) = if quick { (16, 100) } else { (64, 250) };
    let texts: Vec<String> = (0..hosts)
        .map(|i| {
            let mib: Vec<u64> = (0..pairs).map(|k| 64 + (i + k) as u64 % 7).collect();
            synthetic::host(&format!("pod-{i:03}"), (i % 5) as f64 * 0.1, &mib, 60, 0.25, "64MiB").to_json()
        })
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let (mut parse_s, mut merge_s) = (Vec::new(), Vec::new());
    let mut merged_bytes = 0;
    for _ in 0..TRIALS {
        let started = Instant::now();
        std::hint::black_box(parsed(&texts));
        parse_s.push(started.elapsed().as_secs_f64());
        let started = Instant::now();
        let merged = merge_loaded(&parsed(&texts)).unwrap().to_json();
        merge_s.push(started.elapsed().as_secs_f64());
        merged_bytes = merged.len();
    }
    let (parse_s, merge_s) = (median(parse_s), median(merge_s));
    let ratio = merge_s / parse_s;
    println!(
        "merge of {hosts} reports, {pairs} pairs of rounds (and objects) each: {:.1} MiB of JSON in, {:.1} MiB out; medians of {TRIALS} trials",
        bytes as f64 / (1 << 20) as f64,
        merged_bytes as f64 / (1 << 20) as f64
    );
    println!("parse only (the baseline)   {:>8.3} s", parse_s);
    println!("whole merge                 {:>8.3} s  ({:.1} ms per host)", merge_s, merge_s * 1e3 / hosts as f64);
    let verdict = if ratio <= GOAL { "met" } else { "not met" };
    println!("whole merge / parse         {ratio:>8.2}x  goal <= {GOAL:.1}x: {verdict}");
}
