//! A finished run's pictures: its rounds' rates over the run's time, and
//! each row's latency at the percentiles a reader asks about.

use super::{Axes, Series, lines_svg, side_by_side};
use engine::finished::FinishedRun;

/// The percentiles the latency picture marks, as fractions.
pub const PERCENTILES: [f64; 6] = [0.5, 0.75, 0.9, 0.95, 0.99, 0.999];

/// Throughput over time beside latency by percentile, in one SVG.
pub fn run_svg(run: &dyn FinishedRun) -> String {
    side_by_side(&[throughput_svg(run), latency_svg(run)])
}

/// Each row's complete rounds: rate against when the round began.
pub fn throughput_svg(run: &dyn FinishedRun) -> String {
    let mut series: Vec<Series> = Vec::new();
    for point in run.round_rates() {
        match series.iter_mut().find(|s| s.name == point.row) {
            Some(line) => line.points.push((point.at_s, point.rate)),
            None => {
                let colour = series.len();
                series.push(Series { name: point.row, points: vec![(point.at_s, point.rate)], colour, dashed: false })
            }
        }
    }
    series.iter_mut().for_each(|s| s.points.sort_by(|a, b| a.0.total_cmp(&b.0)));
    // As the table says it: small objects in objects/s.
    let unit = if run.judged_on_items() { "objects/s" } else { run.unit().name() };
    let title = format!("{}: each round's rate", run.short_target());
    let axes =
        Axes { title: &title, x_label: "seconds into the timed rounds", y_label: unit, log_x: false, x_ticks: &[] };
    lines_svg(&axes, &series)
}

/// Each row's latency at each of `PERCENTILES`, the x axis in nines
/// (1: p90, 2: p99, 3: p99.9), so the tail gets the room it needs.
pub fn latency_svg(run: &dyn FinishedRun) -> String {
    let open_loop = if run.open_loop().is_empty() { "" } else { ", from intended start" };
    let series: Vec<Series> = run
        .latency_histograms()
        .into_iter()
        .enumerate()
        .map(|(colour, (name, histogram))| Series {
            name,
            points: PERCENTILES.iter().map(|&q| (nines(q), histogram.value_at_quantile(q) as f64 / 1000.0)).collect(),
            colour,
            dashed: false,
        })
        .collect();
    let title = format!("latency by percentile{open_loop}");
    let axes = Axes {
        title: &title,
        x_label: "nines: 0.3 = p50, 1 = p90, 2 = p99, 3 = p99.9",
        y_label: "ms",
        log_x: false,
        x_ticks: &[],
    };
    lines_svg(&axes, &series)
}

/// -log10(1 - q): p90 is 1, p99 is 2, p99.9 is 3.
pub fn nines(quantile: f64) -> f64 {
    -(1.0 - quantile).log10()
}
