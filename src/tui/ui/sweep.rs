//! A sweep in the results pane: over one option, gRPC/JSON at each point
//! with its 95% interval and the 1.0x line; over two, a heatmap of the
//! ratio; beside the picture, each point's ratio and interval in words.

use super::Theme;
use crate::engine::finished::RatioFigure;
use crate::engine::plan::TransportKind;
use crate::sweep::chart::{ahead, figures, operations, values_of};
use crate::sweep::report::SweepReport;
use crate::tui::app::App;
use crate::units::significant;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph, Row, Table, Wrap};

/// Rows the pane would like: borders, and a picture that can be read or
/// the list of points, whichever is taller.
pub fn height(app: &App) -> u16 {
    let Some(report) = app.sweep.as_ref().filter(|s| !s.points.is_empty()) else { return 3 };
    let operations = operations(report).len().max(1);
    let picture = match report.sweep.options.as_slice() {
        [_, y] => operations * (values_of(report, y).len() + 3),
        _ => operations * 11,
    };
    let list = operations * (report.sweep.planned + 2) + 3;
    2 + picture.max(list).min(30) as u16
}

/// `gRPC/JSON uploads`, or in open loop `JSON/gRPC p99 of uploads`: what
/// a picture's ratio is of (above 1.0x gRPC is ahead either way).
fn ratio_name(operation: &str) -> String {
    match operation.strip_prefix(crate::finished::OPEN_LOOP_RATIO) {
        Some(work) => format!("JSON/gRPC p99 of{work}"),
        None => format!("gRPC/JSON{}", operation.strip_prefix("grpc/http-json").unwrap_or(operation)),
    }
}

/// The columns the list of points takes beside the picture.
const LIST_WIDTH: u16 = 46;

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some(report) = &app.sweep else { return };
    let running = app.sweep_run.as_ref().map(|run| run.point_said());
    let block = Block::bordered().title(format!(" {} · s shows the result table ", title(report, running.is_some())));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let operations = operations(report);
    if operations.is_empty() {
        let text = match &running {
            Some(point) => format!("{point} is running; each point's gRPC/JSON ratio is drawn here as it finishes."),
            None if report.points.is_empty() => "No point finished: the sweep ended before its first did.".into(),
            None => "Each point ran one transport: there is no gRPC/JSON ratio to draw.".into(),
        };
        frame.render_widget(Paragraph::new(text).style(theme.dim()).wrap(Wrap { trim: true }), inner);
        return;
    }
    // A heatmap is as wide as its cells; a chart takes what the list leaves.
    let picture_width = match report.sweep.options.as_slice() {
        [x, y] => Constraint::Length(heatmap_width(report, &operations[0], (x, y))),
        _ => Constraint::Min(30),
    };
    let [picture, list] = Layout::horizontal([picture_width, Constraint::Min(LIST_WIDTH)]).spacing(2).areas(inner);
    let shown = operations.len().min((picture.height / 6).max(1) as usize);
    let pictures = Layout::vertical(vec![Constraint::Ratio(1, shown as u32); shown]).split(picture);
    for (operation, area) in operations.iter().zip(pictures.iter()) {
        match report.sweep.options.as_slice() {
            [x, y] => heatmap(frame, *area, (report, operation), (x, y), theme),
            [option] => ratio_chart(frame, *area, (report, operation), option, theme),
            // A heatmap of two of them would lay points over each other.
            _ => {
                let text = "A picture draws one or two options; this sweep's points are listed beside it.";
                frame.render_widget(Paragraph::new(text).style(theme.dim()).wrap(Wrap { trim: true }), *area);
            }
        }
    }
    frame.render_widget(Paragraph::new(point_lines(report, &operations, running, theme)), list);
}

/// `sweep of size x concurrency · 3 of 4 points` (and how it ended).
fn title(report: &SweepReport, running: bool) -> String {
    let s = &report.sweep;
    let state = match (running, s.cancelled) {
        (true, _) => ", running",
        (false, true) => ", cancelled",
        (false, false) if report.points.len() < s.planned => ", stopped",
        _ => "",
    };
    format!("sweep of {} · {} of {} points{state}", s.options.join(" x "), report.points.len(), s.planned)
}

/// `1.25x` with three significant figures.
fn times(ratio: f64) -> String {
    format!("{}x", significant(ratio, 3))
}

/// The point's ratio with a mark for who is ahead: ▲ gRPC, ▼ HTTP/JSON,
/// ? when its interval does not tell.
fn marked(figure: &RatioFigure) -> String {
    let Some(ratio) = figure.ratio else { return "-".into() };
    let mark = match ahead(figure) {
        Some(TransportKind::Json) => "▼",
        Some(_) => "▲",
        None => "?",
    };
    format!("{}{mark}", times(ratio))
}

/// The interval in words: `1.10x to 1.40x`, or why there is none.
fn interval_words(figure: &RatioFigure) -> String {
    match figure.interval {
        Some(_) if !figure.readable => "too wide to read".into(),
        Some((low, high)) => format!("{} to {}", times(low), times(high)),
        None => "none (too few pairs)".into(),
    }
}

/// Each point's ratio and interval per operation, then the marks' key.
fn point_lines<'a>(
    report: &'a SweepReport,
    operations: &[String],
    running: Option<String>,
    theme: &Theme,
) -> Vec<Line<'a>> {
    let mut lines = Vec::new();
    let options = report.sweep.options.join(" ");
    let said = |p: &crate::sweep::report::PointReport| {
        report.sweep.options.iter().filter_map(|o| p.point.get(o)).cloned().collect::<Vec<_>>().join(" ")
    };
    // The points' column: as wide as the longest, with two spaces after.
    let width = report.points.iter().map(|p| said(p).chars().count()).chain([options.chars().count()]).max();
    let width = width.unwrap_or(0) + 2;
    for operation in operations {
        lines.push(Line::styled(format!("{} at each point", ratio_name(operation)), theme.accent()));
        lines.push(Line::styled(format!("{options:<width$}{:<8}95% CI", "ratio"), theme.dim()));
        for (point, figure) in figures(report, operation) {
            let style = ahead(&figure).map_or(theme.dim(), |kind| theme.transport(kind));
            lines.push(Line::from(vec![
                Span::raw(format!("{:<width$}", said(point))),
                Span::styled(format!("{:<8}", marked(&figure)), style),
                Span::raw(interval_words(&figure)),
            ]));
        }
    }
    lines.push(Line::styled("▲ gRPC ahead · ▼ HTTP/JSON ahead · ? interval", theme.dim()));
    lines.push(Line::styled("  crosses 1.0x, or too wide to read", theme.dim()));
    if let Some(point) = running {
        lines.push(Line::styled(format!("now: {point}"), theme.status()));
    }
    lines
}

/// gRPC/JSON at each value of the option, its interval a vertical bar,
/// and the 1.0x line across the middle (above it gRPC was faster).
fn ratio_chart(frame: &mut Frame, area: Rect, (report, operation): (&SweepReport, &str), option: &str, theme: &Theme) {
    let values = values_of(report, option);
    let mut line = Vec::new();
    let mut bars: Vec<[(f64, f64); 2]> = Vec::new();
    // Log2 of the ratio, 1.0x in the middle: as far up for twice as fast
    // as down for half as fast.
    let mut reach = 0.1f64;
    for (point, figure) in figures(report, operation) {
        let (Some(x), Some(ratio)) = (values.iter().position(|v| Some(v) == point.point.get(option)), figure.ratio)
        else {
            continue;
        };
        line.push((x as f64, ratio.log2()));
        reach = reach.max(ratio.log2().abs());
        if let Some((low, high)) = figure.interval.filter(|_| figure.readable) {
            bars.push([(x as f64, low.log2()), (x as f64, high.log2())]);
            reach = reach.max(low.log2().abs()).max(high.log2().abs());
        }
    }
    // One value has no span of its own: it sits in the middle.
    let (x_bounds, mut x_labels) = match values.len() {
        1 => ([-1.0, 1.0], vec![String::new(), values[0].clone(), String::new()]),
        n => ([0.0, (n - 1) as f64], values.clone()),
    };
    if x_labels.iter().map(|l| l.chars().count() + 1).sum::<usize>() > area.width.saturating_sub(8) as usize {
        x_labels = vec![values[0].clone(), values[values.len() - 1].clone()];
    }
    let one = [(x_bounds[0], 0.0), (x_bounds[1], 0.0)];
    let mut datasets =
        vec![Dataset::default().marker(Marker::Braille).graph_type(GraphType::Line).style(theme.dim()).data(&one)];
    // A thin line between the points, each point a dot on it.
    datasets
        .push(Dataset::default().marker(Marker::Braille).graph_type(GraphType::Line).style(theme.accent()).data(&line));
    datasets
        .push(Dataset::default().marker(Marker::Dot).graph_type(GraphType::Scatter).style(theme.accent()).data(&line));
    // The bars over the line, in braille's quarter rows (whole cells would
    // show an interval below 1.0x touching the line).
    for bar in &bars {
        datasets.push(
            Dataset::default().marker(Marker::Braille).graph_type(GraphType::Line).style(theme.status()).data(bar),
        );
    }
    let top = reach * 1.15;
    // The ends only: a middle label cannot sit on the 1.0x line in every height.
    let y_labels = crate::units::distinct_significant(&[(-top).exp2(), top.exp2()], 2);
    let name = ratio_name(operation);
    let wordings = [
        format!(" {name} by {option}, log scale · flat line: 1.0x · bars: 95% CI "),
        format!(" {name} by {option} (log) · flat line 1.0x · bars CI "),
        format!(" {name} (log) · flat line 1.0x · bars CI "),
        format!(" {name} (log), CI bars "),
    ];
    let fits = |t: &&String| t.chars().count() <= area.width as usize;
    let title = wordings.iter().find(fits).unwrap_or(&wordings[3]).clone();
    let chart = Chart::new(datasets)
        .block(Block::new().title(Span::styled(title, theme.accent())))
        .x_axis(Axis::default().bounds(x_bounds).labels(x_labels).style(theme.dim()))
        .y_axis(
            Axis::default()
                .bounds([-top, top])
                .labels(y_labels.into_iter().map(|l| format!("{l}x")))
                .style(theme.dim()),
        );
    frame.render_widget(chart, area);
}

/// gRPC/JSON at each pair of values: columns the first option's, rows
/// the second's; a cell's colour and mark say who was ahead.
fn heatmap(
    frame: &mut Frame,
    area: Rect,
    (report, operation): (&SweepReport, &str),
    (x, y): (&str, &str),
    theme: &Theme,
) {
    let (columns, rows) = (values_of(report, x), values_of(report, y));
    // Each point's figure once a frame, not once a cell.
    let all: Vec<_> = figures(report, operation).collect();
    let cell_of = |column: &str, row: &str| {
        all.iter().find(|(p, _)| {
            p.point.get(x).map(String::as_str) == Some(column) && p.point.get(y).map(String::as_str) == Some(row)
        })
    };
    let label_width = label_width(&rows, y);
    let header = std::iter::once(y.to_string()).chain(columns.iter().cloned());
    let table_rows = rows.iter().map(|row| {
        let cells = columns.iter().map(|column| match cell_of(column, row) {
            Some((_, figure)) => {
                // A cell that tells is filled (reversed video, colour or not); one that does not is plain.
                let style =
                    ahead(figure).map_or(theme.dim(), |kind| theme.transport(kind).add_modifier(Modifier::REVERSED));
                ratatui::widgets::Cell::from(Span::styled(marked(figure), style))
            }
            None => ratatui::widgets::Cell::from(Span::styled("not run", theme.dim())),
        });
        Row::new(std::iter::once(ratatui::widgets::Cell::from(row.clone())).chain(cells))
    });
    let widths = std::iter::once(Constraint::Length(label_width as u16))
        .chain(columns.iter().map(|c| Constraint::Length(cell_width(c) as u16)));
    let title = heatmap_title(operation, x, y);
    let table = Table::new(table_rows, widths)
        .header(Row::new(header).style(theme.accent()))
        .column_spacing(HEATMAP_SPACING)
        .block(Block::new().title(Span::styled(title, theme.accent())));
    frame.render_widget(table, area);
}

const HEATMAP_SPACING: u16 = 2;

/// The row labels' column: as wide as the longest value, or the option's name.
fn label_width(rows: &[String], y: &str) -> usize {
    rows.iter().map(|r| r.chars().count()).chain([y.chars().count()]).max().unwrap_or(4)
}

/// A cell holds its column's value or a ratio with its mark (`0.500x▼`).
fn cell_width(column: &str) -> usize {
    column.chars().count().max(8)
}

/// Columns the heatmap takes: its cells', or its title's when wider.
fn heatmap_width(report: &SweepReport, operation: &str, (x, y): (&str, &str)) -> u16 {
    let cells: usize = values_of(report, x).iter().map(|c| cell_width(c) + HEATMAP_SPACING as usize).sum();
    let title = heatmap_title(operation, x, y).chars().count();
    (label_width(&values_of(report, y), y) + cells).max(title) as u16
}

fn heatmap_title(operation: &str, x: &str, y: &str) -> String {
    format!(" {}: {x} across, {y} down ", ratio_name(operation))
}
