//! An open-loop run's latency against time: each complete round's p50
//! and p99 from the requests' intended starts, per transport. The offered
//! rate is fixed, so latency is what moves: a stall shows as a spike here
//! where a closed loop would only have sent less.

use super::{chart_style, legend, run_time_axis};
use crate::engine::plan::TransportKind;
use crate::tui::live::Live;
use crate::tui::ui::Theme;
use crate::units::{format_latency, significant};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, Paragraph};

type Points = Vec<(f64, f64)>;

/// The y axis is log10 of milliseconds: a 1 s stall and 1 ms service
/// times are both readable on it.
fn log_ms(seconds: f64) -> f64 {
    (seconds * 1e3).max(1e-3).log10()
}

pub fn render(frame: &mut Frame, area: Rect, (live, rate, state): (&Live, f64, &str), theme: &Theme) {
    let block = Block::bordered().title(title(live, (rate, state), area.width.saturating_sub(2), theme));
    // (p50 line, p99 line) per lane, in (run seconds, log10 ms).
    let lines: Vec<(Points, Points)> = live
        .lanes
        .iter()
        .map(|lane| lane.round_latency.iter().map(|&(at, p50, p99)| ((at, log_ms(p50)), (at, log_ms(p99)))).unzip())
        .collect();
    let all = || lines.iter().flat_map(|(p50, p99)| p50.iter().chain(p99));
    if all().next().is_none() {
        let text = " Each complete round's p50 and p99 appear here as it ends.";
        frame.render_widget(Paragraph::new(text).style(theme.dim()).block(block), area);
        return;
    }
    let x_max = all().map(|p| p.0).fold(1.0f64, f64::max);
    // Whole decades around the data, so each label is a round figure.
    let low = all().map(|p| p.1).fold(f64::INFINITY, f64::min).floor();
    let high = all().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max).ceil().max(low + 1.0);
    let mut datasets = Vec::new();
    for (lane, (p50, p99)) in live.lanes.iter().zip(&lines) {
        let kind = lane.transport.unwrap_or(TransportKind::Json);
        let (marker, graph, _) = chart_style(kind);
        for points in [p50, p99] {
            datasets
                .push(Dataset::default().marker(marker).graph_type(graph).style(theme.transport(kind)).data(points));
        }
    }
    // `10 ms`, not `10.0 ms`: each is a power of ten.
    let decades: Vec<String> = (low as i32..=high as i32)
        .map(|d| format_latency(10f64.powi(d) / 1e3).replace(".00 ", " ").replace(".0 ", " "))
        .collect();
    let chart = Chart::new(datasets)
        .block(block)
        .legend_position(None)
        .x_axis(run_time_axis(x_max, theme))
        .y_axis(Axis::default().bounds([low, high]).labels(decades).style(theme.dim()));
    frame.render_widget(chart, area);
}

/// The chart's title, its legend included, in the longest wording that
/// fits `width`: the rate, each transport's mark, which line is which.
fn title<'a>(live: &Live, (rate, state): (f64, &str), width: u16, theme: &Theme) -> Line<'a> {
    let wordings = [
        (
            format!(" latency from intended start at {}/s (log) · ", significant(rate, 3)),
            format!("p99 upper, p50 lower, per round · {state} "),
        ),
        (" latency from intended start · ".to_string(), format!("upper p99, lower p50 · {state} ")),
        (" latency · ".to_string(), "upper p99, lower p50 ".to_string()),
    ];
    let mut line = Line::default();
    for (lead, lines) in wordings {
        line = Line::from(Span::raw(lead));
        line.spans.extend(legend(live, theme));
        line.spans.push(Span::raw(lines));
        if line.width() <= width as usize {
            break;
        }
    }
    line
}
