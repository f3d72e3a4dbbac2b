//! A text histogram of each operation's per-item latencies, as oha prints
//! one: ten bins of equal width from the fastest item to the slowest, the
//! same bins for both transports so their shapes compare at a glance.

use super::RunReport;
use crate::stats::{Items, Operation, Pooled, RoundSample};
use units::distinct_significant;

const BINS: usize = 10;
/// The longest bar, in characters.
const BAR: usize = 24;

impl RunReport {
    /// The histogram's lines, an operation at a time; none when no item finished.
    pub fn histogram_lines(&self) -> Vec<String> {
        let (mut lines, shown) = (Vec::new(), super::Shown::of(self));
        for &operation in Operation::of(self.config.workload) {
            let series: Vec<(String, Vec<(f64, u64)>)> = self
                .transports
                .iter()
                .filter(|t| t.operation == operation)
                .map(|t| {
                    let of_row = |r: &&RoundSample| r.transport == t.transport && r.operation == operation;
                    let rounds = self.rounds.iter().chain(&self.cut_off_rounds).filter(of_row);
                    let items = Items::of_lane(t.items.as_ref(), rounds);
                    (t.transport.name().to_string(), counted(&items.latency))
                })
                .collect();
            lines.extend(histogram(shown.item(operation), &series));
        }
        lines
    }
}

/// `series`: each transport's name and latencies, in seconds.
/// A histogram's times in seconds, each with how many it holds (a bucket's
/// top, cut to the slowest).
fn counted(pooled: &Pooled) -> Vec<(f64, u64)> {
    let values = pooled.histogram.iter_recorded();
    values.map(|v| ((v.value_iterated_to() as f64 / 1e6).min(pooled.slowest_s), v.count_at_value())).collect()
}

fn histogram(noun: &str, series: &[(String, Vec<(f64, u64)>)]) -> Vec<String> {
    let all = series.iter().flat_map(|(_, times)| times.iter().map(|(t, _)| *t));
    let (low, high) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| (lo.min(t), hi.max(t)));
    if !low.is_finite() {
        return Vec::new();
    }
    // All alike: one bin holds them all.
    let bins = if high > low { BINS } else { 1 };
    let width = (high - low) / bins as f64;
    let bin_of = |t: f64| if width > 0.0 { (((t - low) / width) as usize).min(bins - 1) } else { 0 };
    let counts: Vec<Vec<usize>> = series
        .iter()
        .map(|(_, times)| {
            let mut counts = vec![0; bins];
            times.iter().for_each(|&(t, n)| counts[bin_of(t)] += n as usize);
            counts
        })
        .collect();
    let tallest = counts.iter().flatten().copied().max().unwrap_or(0).max(1);
    let count_width = tallest.to_string().len();
    let cell = |count: usize| {
        let bar = "■".repeat((count * BAR).div_ceil(tallest));
        format!("[{count:>count_width$}] {bar:<BAR$}")
    };
    let names: String = series.iter().map(|(name, _)| format!("  {name:<w$}", w = count_width + 3 + BAR)).collect();
    let mut lines = vec![
        format!(
            "{noun} latency histogram (per {noun}; bins of equal width, each shown by its top{}):",
            if series.len() > 1 { ", alike for both" } else { "" }
        ),
        format!("  {:>10}{}", "up to", names.trim_end()),
    ];
    let tops: Vec<f64> =
        (0..bins).map(|bin| if bin + 1 == bins { high } else { low + width * (bin + 1) as f64 }).collect();
    // Narrow bins get the digits that tell them apart (0.6691 s, 0.6693 s).
    for (bin, top) in distinct_significant(&tops, 3).into_iter().enumerate() {
        let cells: String = counts.iter().map(|c| format!("  {}", cell(c[bin]))).collect();
        lines.push(format!("  {:>10}{}", format!("{top} s"), cells.trim_end()));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ones(times: &[f64]) -> Vec<(f64, u64)> {
        times.iter().map(|&t| (t, 1)).collect()
    }

    #[test]
    fn ten_bins_from_the_fastest_to_the_slowest_count_every_item_once() {
        let json: Vec<f64> = (0..20).map(|i| 0.010 + f64::from(i) * 0.001).collect(); // 10..29 ms
        let grpc = vec![0.010, 0.030, 0.030];
        let lines = histogram("upload", &[("http-json".into(), ones(&json)), ("grpc".into(), ones(&grpc))]);
        assert_eq!(lines.len(), 2 + BINS, "{lines:#?}");
        // Bins of 2 ms from 10 ms: JSON has 2 in each (the tallest: a whole
        // bar); gRPC 1 (half a bar) in the first, 2 in the last.
        let (whole, half) = ("■".repeat(BAR), "■".repeat(BAR / 2));
        assert_eq!(lines[2], format!("    0.0120 s  [2] {whole}  [1] {half}"), "{lines:#?}");
        assert_eq!(lines[3], format!("    0.0140 s  [2] {whole}  [0]"), "{lines:#?}");
        assert_eq!(lines[11], format!("    0.0300 s  [2] {whole}  [2] {whole}"), "ends at the slowest: {lines:#?}");
        let counted: usize = lines[2..]
            .iter()
            .flat_map(|l| l.split('[').skip(1).map(|c| c.split(']').next().unwrap().trim().parse::<usize>().unwrap()))
            .sum();
        assert_eq!(counted, json.len() + 3, "every item in exactly one bin");
    }

    #[test]
    fn narrow_bins_are_labelled_apart() {
        // 0.6690 to 0.6700 s: bins of 0.1 ms, whose tops three digits would all call 0.669 or 0.670.
        let times: Vec<f64> = (0..=10).map(|i| 0.669 + f64::from(i) * 0.0001).collect();
        let lines = histogram("upload", &[("grpc".into(), ones(&times))]);
        let labels: Vec<&str> = lines[2..].iter().map(|l| l.split(" s ").next().unwrap().trim()).collect();
        assert_eq!(
            labels,
            ["0.6691", "0.6692", "0.6693", "0.6694", "0.6695", "0.6696", "0.6697", "0.6698", "0.6699", "0.6700"]
        );
    }

    #[test]
    fn alike_times_make_one_bin_and_nothing_finished_makes_none() {
        let lines = histogram("read", &[("grpc".into(), vec![(0.5, 2)])]);
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[2], format!("     0.500 s  [2] {}", "■".repeat(BAR)), "{lines:#?}");
        assert!(histogram("read", &[("grpc".into(), vec![])]).is_empty());
    }
}
