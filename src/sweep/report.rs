//! A sweep's report: each point's full report (so that any of them reads
//! as a run of its own), and the points side by side: each row's rate, its
//! client CPU and connections, and the point's one ratio with its 95%
//! interval from the point's paired rounds, above 1 gRPC ahead: gRPC's
//! rate over HTTP/JSON's, or in open loop (where the offer sets both
//! rates) HTTP/JSON's p99 latency over gRPC's. Table, sentence, JSON, CSV,
//! chart and app all quote that one figure.

use super::{Point, said};
use crate::cli::Format;
use crate::engine::finished::RatioFigure;
use crate::finished::{Finished, OPEN_LOOP_RATIO};
use std::collections::BTreeMap;

#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct SweepReport {
    /// The report's format (`engine::report::REPORT_VERSION`).
    pub report_version: u32,
    pub sweep: SweepSaid,
    /// In grid order (the first option outermost), each with its place in
    /// the run order.
    pub points: Vec<PointReport>,
}

#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct SweepSaid {
    /// The options swept, as their flags spell them.
    pub options: Vec<String>,
    /// The points the grid has; `points` holds those that finished.
    pub planned: usize,
    /// Each point's `--duration` under `--sweep-budget`, in seconds.
    pub share_s: Option<f64>,
    /// The points in the order they ran.
    pub ran_in_order: Vec<String>,
    /// A cancel stopped the sweep: the points after it did not run, and
    /// the one it stopped is left out (its rounds were cut short).
    pub cancelled: bool,
}

#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct PointReport {
    /// The point's value of each option swept.
    pub point: BTreeMap<String, String>,
    /// Its place in the run order: 1 ran first.
    pub ran: usize,
    /// The point's ratio per operation (see `headline`): what every output
    /// of the sweep quotes for it.
    pub ratios: Vec<RatioFigure>,
    /// The point's whole report, as its target writes it (that target's schema).
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    pub report: Finished,
}

impl PointReport {
    pub fn new(point: &Point, ran: usize, report: Finished) -> Self {
        Self::of(point.iter().cloned().collect(), ran, report)
    }

    pub fn of(point: BTreeMap<String, String>, ran: usize, report: Finished) -> Self {
        PointReport { point, ran, ratios: report.headline_ratios(), report }
    }

    /// The point as its options were given: `size=1MiB concurrency=4`.
    pub(crate) fn said(&self, options: &[String]) -> String {
        let point: Point = options.iter().map(|o| (o.clone(), self.point[o].clone())).collect();
        said(&point)
    }
}

/// `0.79x (95% CI 0.75x to 0.83x)`; an interval nothing measured, or one
/// too wide to read (as the verdict's sentence says it), is said so.
pub fn ratio_said(figure: &RatioFigure) -> String {
    match (figure.ratio, figure.interval) {
        (None, _) => "-".into(),
        (Some(ratio), Some(_)) if !figure.readable => format!("{ratio:.2}x (95% CI too wide to read)"),
        (Some(ratio), Some((low, high))) => format!("{ratio:.2}x (95% CI {low:.2}x to {high:.2}x)"),
        (Some(ratio), None) => format!("{ratio:.2}x (no interval: too few paired rounds)"),
    }
}

/// The ratio of the operation a row belongs to (`grpc download` reads
/// `grpc/http-json downloads`); a run of one operation has one.
fn ratio_of<'a>(ratios: &'a [RatioFigure], row: &str) -> Option<&'a RatioFigure> {
    let operation = row.split_whitespace().nth(1);
    match (ratios, operation) {
        ([only], _) => Some(only),
        (_, Some(operation)) => ratios.iter().find(|r| r.name.ends_with(&format!("{operation}s"))),
        _ => None,
    }
}

/// One line of cells per row of each point's report.
pub(crate) fn rows(report: &SweepReport) -> Vec<[String; 6]> {
    let mut rows = Vec::new();
    for point in &report.points {
        let (finished, unit) = (&point.report, point.report.unit());
        let costs = finished.costs();
        for (index, (_, name, rate)) in finished.row_rates().into_iter().enumerate() {
            let cost = costs.iter().find(|c| c.name == name);
            let ratio = ratio_of(&point.ratios, &name).filter(|_| point.ratios.len() > 1 || index == 0);
            rows.push([
                if index == 0 { point.said(&report.sweep.options) } else { String::new() },
                name,
                rate.map_or("-".into(), |r| format!("{} {}", unit.number(r), unit.name())),
                cost.and_then(|c| c.cpu.clone()).unwrap_or_else(|| "-".into()),
                cost.map_or("-".into(), |c| c.connections.to_string()),
                ratio.map(|r| format!("{} {}", measure_of(r), ratio_said(r))).unwrap_or_default(),
            ]);
        }
    }
    rows
}

/// What a ratio is of, briefly: `rate` or `p99 latency`.
fn measure_of(figure: &RatioFigure) -> &'static str {
    if figure.name.starts_with(OPEN_LOOP_RATIO) { "p99 latency" } else { "rate" }
}

pub(crate) const HEADERS: [&str; 6] = ["Point", "Row", "Rate", "Client CPU", "Conns", "Ratio (above 1x: gRPC ahead)"];

impl SweepReport {
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Table => self.to_table(),
            Format::Json => serde_json::to_string_pretty(self).expect("a report serializes") + "\n",
            Format::Csv => self.to_csv(),
            Format::Html => crate::html::sweep_page(self),
        }
    }

    /// `sweep of size x concurrency: 4 of 4 points, each a paired comparison, ...`
    pub fn heading(&self) -> String {
        let s = &self.sweep;
        // One transport compares nothing: its points are measured, not paired.
        let paired = self.points.iter().any(|p| !p.report.ratios().is_empty());
        format!(
            "sweep of {}: {} of {} points, each {}, run in a shuffled order{}",
            s.options.join(" x "),
            self.points.len(),
            s.planned,
            if paired { "a paired comparison" } else { "a run of one transport" },
            if s.cancelled { " (cancelled: the points left out did not finish)" } else { "" }
        )
    }

    /// The heading, the points' table, and each point's verdict.
    pub fn to_table(&self) -> String {
        let s = &self.sweep;
        let mut out = format!("{}\n\n", self.heading());
        let rows = rows(self);
        let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).chain([HEADERS[i].len()]).max().unwrap_or(0);
        let widths: Vec<usize> = (0..HEADERS.len()).map(width).collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, &w)| format!("{c:<w$}")).collect();
            padded.join("  ").trim_end().to_string() + "\n"
        };
        out += &line(&HEADERS.map(String::from));
        for row in &rows {
            out += &line(row);
        }
        out += "\n";
        for point in &self.points {
            out += &format!("{}: {}\n", point.said(&s.options), point.report.summary_line());
        }
        out
    }

    /// A row per point and report row: the point's options, then the row's
    /// figures, each column one number in the unit its name says.
    pub fn to_csv(&self) -> String {
        let options = &self.sweep.options;
        let rate_column = self
            .points
            .first()
            .map_or("throughput".into(), |p| format!("throughput_{}", unit_slug(p.report.unit().name())));
        let mut out = options.join(",")
            + &format!(
                ",ran,row,transport,{rate_column},ratio_of,ratio,ratio_ci_low,ratio_ci_high,ratio_readable,p50_ms,p99_ms,latency_from,client_cpu_s_per_gib,client_cpu_us_per_item,connections\n"
            );
        for point in &self.points {
            let (finished, unit) = (&point.report, point.report.unit());
            let costs = finished.costs();
            let latencies = finished.latency_histograms();
            let from = if finished.open_loop().is_empty() { "request start" } else { "intended start" };
            for (transport, name, rate) in finished.row_rates() {
                let ratio = ratio_of(&point.ratios, &name);
                let cost = costs.iter().find(|c| c.name == name);
                let latency = latencies.iter().find(|(row, h)| *row == name && !h.is_empty()).map(|(_, h)| h);
                let ms = |q: f64| latency.map(|h| h.value_at_quantile(q) as f64 / 1000.0);
                let number = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
                let cells = options.iter().map(|o| csv_cell(&point.report_value(o))).chain([
                    point.ran.to_string(),
                    csv_cell(&name),
                    transport.name().to_string(),
                    number(rate.map(|r| unit.value(r))),
                    ratio.map_or(String::new(), |r| measure_of(r).replace(' ', "_")),
                    number(ratio.and_then(|r| r.ratio)),
                    number(ratio.and_then(|r| r.interval).map(|i| i.0)),
                    number(ratio.and_then(|r| r.interval).map(|i| i.1)),
                    ratio.map_or(String::new(), |r| r.readable.to_string()),
                    number(ms(0.5)),
                    number(ms(0.99)),
                    latency.map_or(String::new(), |_| from.to_string()),
                    number(cost.and_then(|c| c.cpu_s_per_gib)),
                    number(cost.and_then(|c| c.cpu_us_per_item)),
                    cost.map_or(String::new(), |c| c.connections.to_string()),
                ]);
                out += &(cells.collect::<Vec<_>>().join(",") + "\n");
            }
        }
        out
    }
}

/// A rate unit as a column name's part: `MiB/s` as `mib_per_s`.
fn unit_slug(unit: &str) -> String {
    unit.to_lowercase().replace("/s", "_per_s").replace(['/', ' '], "_")
}

impl PointReport {
    fn report_value(&self, option: &str) -> String {
        self.point.get(option).cloned().unwrap_or_default()
    }
}

/// A CSV cell, quoted when it holds a comma or a quote.
fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_string() }
}
