//! A sweep's pictures: over one option, gRPC/JSON at each point with its
//! 95% interval; over two, a heatmap of the ratio; over `--rate`, each
//! transport's latency against the offered rate (where each one's knee is).

use super::report::SweepReport;
use crate::engine::finished::RatioFigure;
use crate::engine::plan::TransportKind;
use crate::finished::OPEN_LOOP_RATIO;
use charts::{Axes, Cell, RatioPoint, Series, heatmap_svg, lines_svg, ratio_svg, side_by_side};

/// The transport a point's interval puts ahead: gRPC when all of a
/// readable 95% interval is above 1.0x, HTTP/JSON when all is below;
/// none when it crosses 1.0x, is too wide to read or was not measured.
pub fn ahead(figure: &RatioFigure) -> Option<TransportKind> {
    match figure.interval.filter(|_| figure.readable) {
        Some((low, _)) if low > 1.0 => Some(TransportKind::Grpc),
        Some((_, high)) if high < 1.0 => Some(TransportKind::Json),
        _ => None,
    }
}

/// The operations the points compare (`grpc/http-json uploads`, and
/// reads too for w1r3), in the order the first point that has each says them.
pub fn operations(report: &SweepReport) -> Vec<String> {
    let mut operations: Vec<String> = Vec::new();
    for name in report.points.iter().flat_map(|p| p.ratios.iter()).map(|r| r.name.clone()) {
        if !operations.contains(&name) {
            operations.push(name)
        }
    }
    operations
}

/// Every picture of the sweep, side by side in one SVG.
pub fn sweep_svg(report: &SweepReport) -> String {
    let mut pictures = Vec::new();
    for operation in &operations(report) {
        pictures.push(match report.sweep.options.as_slice() {
            [x, y] => heatmap(report, operation, x, y),
            [option] => ratios(report, operation, option),
            // Refused before the sweep runs (`headless::sweep`): a heatmap
            // of two of three options would lay points over each other.
            _ => continue,
        });
    }
    if report.sweep.options.iter().any(|o| o == "rate") {
        pictures.push(latency_against_rate(report));
    }
    side_by_side(&pictures)
}

/// The values an option took, in the grid's order.
pub fn values_of(report: &SweepReport, option: &str) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    for point in &report.points {
        if let Some(value) = point.point.get(option).filter(|v| !values.contains(v)) {
            values.push(value.clone());
        }
    }
    values
}

/// The ratio figure of `operation` at each point, with the point's values.
pub fn figures<'a>(
    report: &'a SweepReport,
    operation: &'a str,
) -> impl Iterator<Item = (&'a super::report::PointReport, RatioFigure)> {
    report.points.iter().filter_map(move |p| Some((p, p.ratios.iter().find(|r| r.name == operation)?.clone())))
}

fn ratios(report: &SweepReport, operation: &str, option: &str) -> String {
    let points: Vec<RatioPoint> = figures(report, operation)
        .map(|(point, figure)| RatioPoint {
            label: point.point.get(option).cloned().unwrap_or_default(),
            ratio: figure.ratio,
            interval: figure.interval.filter(|_| figure.readable),
            too_wide: figure.interval.is_some() && !figure.readable,
        })
        .collect();
    ratio_svg(&format!("{operation} by {option}"), option, ratio_axis(operation), &points)
}

/// What a ratio picture's axis (and its legend) says it plots: a ratio,
/// with no unit, and which way is gRPC ahead.
pub fn ratio_axis(operation: &str) -> &'static str {
    match operation.starts_with(OPEN_LOOP_RATIO) {
        true => "http-json p99 / grpc p99 latency (above 1: grpc ahead)",
        false => "grpc / http-json rate (above 1: grpc ahead)",
    }
}

fn heatmap(report: &SweepReport, operation: &str, x: &str, y: &str) -> String {
    let (columns, rows) = (values_of(report, x), values_of(report, y));
    let cells: Vec<Cell> = figures(report, operation)
        .filter_map(|(point, figure)| {
            let column = columns.iter().position(|v| Some(v) == point.point.get(x))?;
            let row = rows.iter().position(|v| Some(v) == point.point.get(y))?;
            Some(Cell { column, row, ratio: figure.ratio, significant: ahead(&figure).is_some() })
        })
        .collect();
    heatmap_svg(&format!("{operation} by {x} and {y}"), (x, &columns), (y, &rows), &cells)
}

/// Each transport's p50 and p99 from intended start against the rate
/// offered: a line per transport and percentile at each value of the other
/// options swept (a rate x size sweep draws each size's line apart).
fn latency_against_rate(report: &SweepReport) -> String {
    let others: Vec<&String> = report.sweep.options.iter().filter(|o| *o != "rate").collect();
    let mut other_values: Vec<String> = Vec::new();
    let mut series: Vec<Series> = Vec::new();
    for point in &report.points {
        let other = others.iter().filter_map(|o| Some(format!("{o}={}", point.point.get(*o)?))).collect::<Vec<_>>();
        let other = other.join(" ");
        if !other_values.contains(&other) {
            other_values.push(other.clone());
        }
        let shade = other_values.iter().position(|v| *v == other).unwrap_or(0);
        for summary in point.report.open_loop() {
            for row in &summary.transports {
                for (percentile, value) in [("p50", row.p50_ms), ("p99", row.p99_ms)] {
                    let Some(value) = value else { continue };
                    let name = format!("{} {} {percentile} {other}", row.transport.name(), summary.work);
                    let name = name.trim_end().to_string();
                    let at = (summary.offered.rate, value);
                    // A transport's colour (another pair for each other value); its p99 dashed.
                    let (colour, dashed) = (row.transport as usize + 2 * shade, percentile == "p99");
                    match series.iter_mut().find(|s| s.name == name) {
                        Some(line) => line.points.push(at),
                        None => series.push(Series { name, points: vec![at], colour, dashed }),
                    }
                }
            }
        }
    }
    series.iter_mut().for_each(|s| s.points.sort_by(|a, b| a.0.total_cmp(&b.0)));
    let mut rates: Vec<f64> = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    let axes = Axes {
        title: "latency from intended start against offered rate",
        x_label: "offered rate, per second (log)",
        y_label: "ms",
        log_x: true,
        x_ticks: &rates,
    };
    lines_svg(&axes, &series)
}
