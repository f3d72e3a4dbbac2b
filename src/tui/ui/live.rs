//! The live pane: per transport side by side a gauge, current and average
//! rates, percentiles, a sparkline and a latency histogram; below, both
//! transports on one chart.

mod histogram;
mod lane;
mod latency;
mod welcome;

use super::Theme;
use crate::engine::events::Phase;
use crate::engine::plan::TransportKind;
use crate::engine::report::RunOutcome;
use crate::tui::app::App;
use crate::tui::live::Live;
use crate::units::significant;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph, Wrap};

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some(live) = &app.live else {
        return welcome::welcome(frame, area, app, theme);
    };
    if let Some(message) = &live.setup_failed {
        let text = format!("The run could not start:\n\n{message}\n\nFix the form and press r to try again.");
        let block = Block::bordered().title(" live ");
        frame.render_widget(Paragraph::new(text).style(theme.error()).wrap(Wrap { trim: true }).block(block), area);
        return;
    }
    // The chart only where it can be read; the lanes keep their figures first.
    let show_chart = area.height >= LANES_HEIGHT + MIN_CHART_HEIGHT;
    let lanes_height = if show_chart { LANES_HEIGHT } else { area.height };
    let [lanes_area, chart_area] = Layout::vertical([Constraint::Length(lanes_height), Constraint::Min(0)]).areas(area);
    let columns = Layout::horizontal(vec![Constraint::Ratio(1, live.lanes.len().max(1) as u32); live.lanes.len()])
        .split(lanes_area);
    let range = histogram::latency_range(live);
    for (lane, column) in live.lanes.iter().zip(columns.iter()) {
        lane::render_lane(frame, *column, (lane, live), range, theme);
    }
    if show_chart {
        // The run's own ending once its report is in: a cancelled run is not "finished".
        let outcome = app.history.this_session().last().map(|r| r.outcome()).filter(|_| live.finished);
        let state = if app.cancelling { "cancelling" } else { state(live, outcome) };
        match live.open_rate {
            Some(rate) => latency::render(frame, chart_area, (live, rate, state), theme),
            None => render_chart(frame, chart_area, (live, state), theme),
        }
    }
}

const LANES_HEIGHT: u16 = 12;
const MIN_CHART_HEIGHT: u16 = 7;

/// The first (longest) wording that fits the width, else the last one cut with "…".
fn first_that_fits(texts: &[String], width: u16) -> String {
    let width = width as usize;
    match texts.iter().find(|t| t.chars().count() <= width) {
        Some(text) => text.clone(),
        None => super::form::ellipsized(texts.last().map_or("", String::as_str), width),
    }
}

/// Bucket edges printed with as few significant digits as keep them apart
/// (two by default, up to six), so no two labels read the same.
pub fn distinct_labels(values: &[f64]) -> Vec<String> {
    crate::units::distinct_significant(values, 2)
}

/// How each transport is drawn on the chart: a braille line for JSON, a line of dots for gRPC,
/// so the two can be told apart without colour too.
pub(super) fn chart_style(kind: TransportKind) -> (Marker, GraphType, &'static str) {
    match kind {
        TransportKind::Json => (Marker::Braille, GraphType::Line, "⠤ http-json"),
        TransportKind::Grpc => (Marker::Dot, GraphType::Line, "• grpc"),
        TransportKind::GrpcReadObject => (Marker::HalfBlock, GraphType::Line, "▀ grpc-read-object"),
    }
}

/// What the chart's title says of the run: its phase, or how it ended.
fn state(live: &Live, outcome: Option<RunOutcome>) -> &'static str {
    match (live.finished, outcome) {
        (true, Some(RunOutcome::Cancelled)) => "cancelled",
        (true, Some(RunOutcome::TimedOut)) => "timed out",
        (true, Some(RunOutcome::FailedFast)) => "stopped at a failure",
        (true, Some(RunOutcome::SetupFailed)) => "not started",
        (true, Some(RunOutcome::CompletedWithErrors)) => "finished with errors",
        (true, _) => "finished",
        (false, _) => match live.phase {
            Some(Phase::Connecting) => "connecting",
            Some(Phase::Warmup) => "warmup (not counted)",
            Some(Phase::Measuring) => "measuring",
            Some(Phase::CleaningUp) => "cleaning up",
            None => "",
        },
    }
}

fn render_chart(frame: &mut Frame, area: Rect, (live, state): (&Live, &str), theme: &Theme) {
    let x_max = live.lanes.iter().flat_map(|l| l.chart.last().map(|p| p.0)).fold(1.0f64, f64::max);
    let y_max = live.lanes.iter().flat_map(|l| l.chart.iter().map(|p| p.1)).fold(1.0f64, f64::max) * 1.1;
    let datasets: Vec<Dataset> = live
        .lanes
        .iter()
        .map(|lane| {
            let kind = lane.transport.unwrap_or(TransportKind::Json);
            let (marker, graph, legend) = chart_style(kind);
            Dataset::default()
                .name(legend)
                .marker(marker)
                .graph_type(graph)
                .style(theme.transport(kind))
                .data(&lane.chart)
        })
        .collect();
    // The legend is in the title: always visible, and it covers no data.
    let mut title = vec![Span::raw(format!(" {} · ", live.rate_name()))];
    title.extend(legend(live, theme));
    title.push(Span::raw(format!("{state} ")));
    // Before the first sample (or in a run that never started) the axes
    // have no scale to show: numbers there would be made up.
    let measured = live.lanes.iter().any(|l| !l.chart.is_empty());
    let y_labels = if measured { distinct_labels(&[0.0, y_max / 2.0, y_max]) } else { Vec::new() };
    let x_axis = if measured { run_time_axis(x_max, theme) } else { Axis::default().style(theme.dim()) };
    let chart = Chart::new(datasets)
        .block(Block::bordered().title(Line::from(title)))
        .legend_position(None)
        .x_axis(x_axis)
        .y_axis(Axis::default().bounds([0.0, y_max]).labels(y_labels).style(theme.dim()));
    frame.render_widget(chart, area);
}

/// Each transport's mark and name, as a chart's title gives its legend.
fn legend<'a>(live: &Live, theme: &Theme) -> Vec<Span<'a>> {
    let mut spans = Vec::new();
    for lane in &live.lanes {
        let kind = lane.transport.unwrap_or(TransportKind::Json);
        spans.push(Span::styled(chart_style(kind).2, theme.transport(kind)));
        spans.push(Span::raw(" · "));
    }
    spans
}

/// The run's seconds, from 0 to the newest point.
fn run_time_axis<'a>(x_max: f64, theme: &Theme) -> Axis<'a> {
    Axis::default()
        .bounds([0.0, x_max])
        .labels(["0 s".to_string(), format!("{} s", significant(x_max, 3))])
        .style(theme.dim())
}
