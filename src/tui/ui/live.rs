//! The live pane: per transport side by side a gauge, current and average
//! MiB/s, a sparkline and a latency histogram; below, both transports on one chart.

use super::Theme;
use crate::config::TransportKind;
use crate::events::Phase;
use crate::tui::app::App;
use crate::tui::live::{Lane, Live};
use crate::units::{format_mib_s, format_size, significant};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Axis, Bar, BarChart, BarGroup, Block, Chart, Dataset, Gauge, GraphType, Paragraph, Sparkline, Wrap,
};

const HISTOGRAM_BUCKETS: usize = 6;

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some(live) = &app.live else {
        return welcome(frame, area, app, theme);
    };
    if let Some(message) = &live.setup_failed {
        let text = format!("The run could not start:\n\n{message}\n\nFix the form and press r to try again.");
        let block = Block::bordered().title(" live ");
        frame.render_widget(Paragraph::new(text).style(theme.error()).wrap(Wrap { trim: true }).block(block), area);
        return;
    }
    let [lanes_area, chart_area] = Layout::vertical([Constraint::Length(11), Constraint::Min(5)]).areas(area);
    let columns = Layout::horizontal(vec![Constraint::Ratio(1, live.lanes.len().max(1) as u32); live.lanes.len()])
        .split(lanes_area);
    let range = latency_range(live);
    for (lane, column) in live.lanes.iter().zip(columns.iter()) {
        render_lane(frame, *column, lane, live, range, theme);
    }
    render_chart(frame, chart_area, live, theme);
}

fn welcome(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let text = vec![
        Line::from(""),
        Line::from(vec![
            Span::raw("  Press "),
            Span::styled("r", theme.accent()),
            Span::raw(" to upload to the "),
            Span::raw(super::target_label(app)),
            Span::raw("."),
        ]),
        Line::from(""),
        Line::from("  Both transports upload the same payload in turn; this pane shows their"),
        Line::from("  throughput live, and the table below compares them when the run ends."),
        Line::from(""),
        Line::from("  Set --bucket (or the Bucket field) for real GCS; ? lists the keys."),
    ];
    frame.render_widget(Paragraph::new(text).block(Block::bordered().title(" live ")), area);
}

fn render_lane(frame: &mut Frame, area: Rect, lane: &Lane, live: &Live, range: (f64, f64), theme: &Theme) {
    let kind = lane.transport.unwrap_or(TransportKind::Json);
    let mut title = vec![Span::styled(format!(" {} ", kind.name()), theme.transport(kind))];
    if lane.warmup {
        title.push(Span::styled("warmup (not counted) ", theme.warning()));
    } else if lane.in_round {
        title.push(Span::styled("uploading ", theme.accent()));
    }
    let block = Block::bordered().title(Line::from(title));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [gauge, numbers, spark, histogram] =
        Layout::vertical([Constraint::Length(1), Constraint::Length(1), Constraint::Length(3), Constraint::Min(3)])
            .areas(inner);
    let done = lane.bytes_done + lane.round_bytes;
    let (ratio, label) = match live.duration_s {
        // A timed run: the gauge follows the clock, as rounds are not known ahead.
        Some(duration) => (
            (live.at_s / duration).clamp(0.0, 1.0),
            format!(
                "{} · {} rounds · {:.0}/{duration:.0} s",
                format_size(done),
                lane.rounds_done,
                live.at_s.min(duration)
            ),
        ),
        None => (
            if lane.bytes_planned == 0 { 0.0 } else { (done as f64 / lane.bytes_planned as f64).min(1.0) },
            format!(
                "{} / {} · {}/{} objects",
                format_size(done),
                format_size(lane.bytes_planned),
                lane.objects_done,
                lane.objects_planned
            ),
        ),
    };
    frame.render_widget(Gauge::default().ratio(ratio).label(label).gauge_style(theme.transport(kind)), gauge);
    let now = if lane.in_round && !lane.warmup { format_mib_s(lane.current_mib_s) } else { "-".into() };
    let errors = if lane.errors > 0 { format!(" · {} failed", lane.errors) } else { String::new() };
    let recovery = if lane.retries + lane.resumes > 0 {
        format!(" · {} retries, {} resumes", lane.retries, lane.resumes)
    } else {
        String::new()
    };
    let text = format!("now {now} · avg {}{errors}{recovery}", format_mib_s(lane.average_mib_s()));
    frame.render_widget(Paragraph::new(text), numbers);
    let visible = spark.width as usize;
    let samples = &lane.sparkline[lane.sparkline.len().saturating_sub(visible)..];
    frame.render_widget(Sparkline::default().data(samples).style(theme.transport(kind)), spark);
    render_histogram(frame, histogram, lane, range, theme, kind);
}

/// The shared span of all objects' times, so both histograms use the same buckets.
fn latency_range(live: &Live) -> (f64, f64) {
    let all = live.lanes.iter().flat_map(|l| l.latencies.iter().copied());
    let (min, max) = all.fold((f64::MAX, 0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if min > max {
        (0.0, 0.0)
    } else if max - min < max * 0.05 {
        // All about the same: spread the buckets around that value.
        (min * 0.95, max * 1.05)
    } else {
        (min, max)
    }
}

fn render_histogram(
    frame: &mut Frame,
    area: Rect,
    lane: &Lane,
    (min, max): (f64, f64),
    theme: &Theme,
    kind: TransportKind,
) {
    if lane.latencies.is_empty() {
        frame.render_widget(Paragraph::new("per-object times appear here").style(theme.dim()), area);
        return;
    }
    let width = ((max - min) / HISTOGRAM_BUCKETS as f64).max(f64::EPSILON);
    let mut counts = [0u64; HISTOGRAM_BUCKETS];
    for &latency in &lane.latencies {
        let bucket = (((latency - min) / width) as usize).min(HISTOGRAM_BUCKETS - 1);
        counts[bucket] += 1;
    }
    let bars: Vec<Bar> = counts
        .iter()
        .enumerate()
        .map(|(i, &count)| {
            Bar::default().value(count).label(Line::from(significant(min + width * (i as f64 + 1.0), 2)))
        })
        .collect();
    let bar_width = ((area.width as usize / HISTOGRAM_BUCKETS).saturating_sub(1)).clamp(1, 8) as u16;
    let chart = BarChart::default()
        .data(BarGroup::default().bars(&bars))
        .bar_width(bar_width)
        .bar_gap(1)
        .bar_style(theme.transport(kind));
    frame.render_widget(chart, area);
}

fn render_chart(frame: &mut Frame, area: Rect, live: &Live, theme: &Theme) {
    let x_max = live.lanes.iter().flat_map(|l| l.chart.last().map(|p| p.0)).fold(1.0f64, f64::max);
    let y_max = live.lanes.iter().flat_map(|l| l.chart.iter().map(|p| p.1)).fold(1.0f64, f64::max) * 1.1;
    let datasets: Vec<Dataset> = live
        .lanes
        .iter()
        .map(|lane| {
            let kind = lane.transport.unwrap_or(TransportKind::Json);
            Dataset::default()
                .name(kind.name())
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(theme.transport(kind))
                .data(&lane.chart)
        })
        .collect();
    let phase = match live.phase {
        Some(Phase::Connecting) => "connecting",
        Some(Phase::Warmup) => "warmup (not counted)",
        Some(Phase::Measuring) => "measuring",
        Some(Phase::CleaningUp) => "cleaning up",
        None => "",
    };
    let title = if live.finished {
        " throughput over the run (MiB/s) · finished ".to_string()
    } else {
        format!(" throughput over the run (MiB/s) · {phase} ")
    };
    let chart = Chart::new(datasets)
        .block(Block::bordered().title(title))
        .x_axis(
            Axis::default()
                .bounds([0.0, x_max])
                .labels(["0 s".to_string(), format!("{} s", significant(x_max, 3))])
                .style(theme.dim()),
        )
        .y_axis(
            Axis::default().bounds([0.0, y_max]).labels(["0".to_string(), significant(y_max, 3)]).style(theme.dim()),
        );
    frame.render_widget(chart, area);
}
