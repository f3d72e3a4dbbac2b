//! A sweep's pictures: over one option, gRPC/JSON at each point with its
//! 95% interval; over two, a heatmap of the ratio; over `--rate`, each
//! transport's latency against the offered rate (where each one's knee is).

use super::report::SweepReport;
use crate::engine::finished::RatioFigure;
use crate::engine::plan::TransportKind;
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
    for name in report.points.iter().flat_map(|p| judged_on(&p.report)).map(|r| r.name) {
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
    report.points.iter().filter_map(move |p| Some((p, judged_on(&p.report).into_iter().find(|r| r.name == operation)?)))
}

/// What a point is drawn by: gRPC's rate over HTTP/JSON's; in open loop,
/// where the offered rate sets both rates, p99 latency from intended start
/// the other way up (HTTP/JSON's over gRPC's), so that above 1.0x is gRPC
/// ahead in every picture.
pub fn judged_on(report: &crate::finished::Finished) -> Vec<RatioFigure> {
    let open = report.open_loop();
    if open.is_empty() {
        return report.ratios();
    }
    let flipped = |summary: &crate::engine::open_loop::OpenLoopSummary| {
        let p99 = summary.ratios.iter().find(|r| r.percentile == "p99")?;
        Some(RatioFigure {
            name: format!("{OPEN_LOOP_RATIO} {}s", summary.work),
            ratio: p99.grpc_over_json.filter(|r| *r > 0.0).map(|r| 1.0 / r),
            interval: p99
                .ci_low
                .zip(p99.ci_high)
                .filter(|(low, _)| *low > 0.0)
                .map(|(low, high)| (1.0 / high, 1.0 / low)),
            readable: p99.readable(),
        })
    };
    open.iter().filter_map(flipped).collect()
}

/// How an open-loop point's figure is named: HTTP/JSON's p99 over gRPC's.
pub const OPEN_LOOP_RATIO: &str = "http-json/grpc p99 latency of";

fn ratios(report: &SweepReport, operation: &str, option: &str) -> String {
    let points: Vec<RatioPoint> = figures(report, operation)
        .map(|(point, figure)| RatioPoint {
            label: point.point.get(option).cloned().unwrap_or_default(),
            ratio: figure.ratio,
            interval: figure.interval.filter(|_| figure.readable),
        })
        .collect();
    let unit = report.points.first().map_or("", |p| p.report.unit().name());
    let axis = match operation.starts_with(OPEN_LOOP_RATIO) {
        true => "http-json p99 / grpc p99, from intended start".to_string(),
        false => format!("grpc / http-json, {unit}"),
    };
    ratio_svg(&format!("{operation} by {option}"), option, &axis, &points)
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

/// Each transport's p50 and p99 from intended start against the rate offered.
fn latency_against_rate(report: &SweepReport) -> String {
    let mut series: Vec<Series> = Vec::new();
    for point in &report.points {
        for summary in point.report.open_loop() {
            for row in &summary.transports {
                for (percentile, value) in [("p50", row.p50_ms), ("p99", row.p99_ms)] {
                    let Some(value) = value else { continue };
                    let name = format!("{} {} {percentile}", row.transport.name(), summary.work);
                    let at = (summary.offered.rate, value);
                    // A transport's colour; its p99 dashed.
                    let (colour, dashed) = (row.transport as usize, percentile == "p99");
                    match series.iter_mut().find(|s| s.name == name) {
                        Some(line) => line.points.push(at),
                        None => series.push(Series { name, points: vec![at], colour, dashed }),
                    }
                }
            }
        }
    }
    series.iter_mut().for_each(|s| s.points.sort_by(|a, b| a.0.total_cmp(&b.0)));
    let axes = Axes {
        title: "latency from intended start against offered rate",
        x_label: "offered rate, per second (log)",
        y_label: "ms",
        log_x: true,
    };
    lines_svg(&axes, &series)
}
