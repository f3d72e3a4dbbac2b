//! One transport's lane: a gauge of the planned work, the current and
//! average rate, the percentiles of each operation (a w1r3 run's uploads
//! and reads apart, as the table's rows), a sparkline and a histogram.

use super::super::Theme;
use super::first_that_fits;
use crate::engine::plan::TransportKind;
use crate::tui::live::{Lane, Live};
use crate::units::format_size;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Gauge, Paragraph, Sparkline};

pub fn render_lane(frame: &mut Frame, area: Rect, (lane, live): (&Lane, &Live), range: (f64, f64), theme: &Theme) {
    let kind = lane.transport.unwrap_or(TransportKind::Json);
    let block = Block::bordered().title(title(lane, live, theme, area.width.saturating_sub(2)));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let figures = figure_lines(lane, live);
    // The figures first; the sparkline and histogram get what is left.
    let text_height = (figures.len() as u16).min(inner.height.saturating_sub(1));
    let spark_height = match inner.height.saturating_sub(1 + text_height) {
        rest if rest >= 6 => 3,
        rest => rest.min(1),
    };
    let [gauge, text, spark, histogram] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(text_height),
        Constraint::Length(spark_height),
        Constraint::Min(0),
    ])
    .areas(inner);
    let (ratio, labels) = gauge_labels(lane, live);
    render_gauge(frame, gauge, ratio, &first_that_fits(&labels, gauge.width), theme.transport(kind));
    let lines: Vec<Line> = figures.iter().map(|texts| Line::from(first_that_fits(texts, text.width))).collect();
    frame.render_widget(Paragraph::new(lines), text);
    let visible = spark.width as usize;
    let samples = &lane.sparkline[lane.sparkline.len().saturating_sub(visible)..];
    frame.render_widget(Sparkline::default().data(samples).style(theme.transport(kind)), spark);
    super::histogram::render(frame, histogram, lane, (range, live.work), theme, kind);
}

/// The lane's title in `width` columns: the transport, and what it is doing
/// in as many words as fit (a word is dropped whole, never cut).
fn title<'a>(lane: &Lane, live: &Live, theme: &Theme, width: u16) -> Line<'a> {
    let kind = lane.transport.unwrap_or(TransportKind::Json);
    let name = format!(" {} ", kind.name());
    let room = (width as usize).saturating_sub(name.chars().count());
    let mut title = vec![Span::styled(name, theme.transport(kind))];
    if lane.warmup {
        let warmup = first_that_fits(&["warmup (not counted) ".into(), "warmup ".into()], room as u16);
        title.push(Span::styled(warmup, theme.warning()));
    } else if lane.in_round {
        title.push(Span::styled(live.work.doing(lane.current_part()), theme.accent()));
    }
    Line::from(title)
}

/// How much of the plan is done, and its label's wordings, longest first.
fn gauge_labels(lane: &Lane, live: &Live) -> (f64, Vec<String>) {
    let done = lane.done();
    if let Some(duration) = live.duration_s {
        // A timed run: the gauge follows the clock, as rounds are not known ahead.
        let clock = format!("{} rounds · {:.0}/{duration:.0} s", lane.rounds_done, live.at_s.min(duration));
        return ((live.at_s / duration).clamp(0.0, 1.0), vec![format!("{} · {clock}", live.work.amount(done)), clock]);
    }
    let ratio = if lane.bytes_planned == 0 { 0.0 } else { (done as f64 / lane.bytes_planned as f64).min(1.0) };
    let bytes = format!("{} / {}", format_size(done), format_size(lane.bytes_planned));
    let objects = format!("{}/{} {}", lane.objects_done, lane.objects_planned, live.work.items);
    let labels = match live.work.weighed {
        // Small objects are counted first, as their report rates them.
        true if lane.per_object() => vec![format!("{objects} · {bytes}"), objects],
        true => vec![format!("{bytes} · {objects}"), bytes],
        false => {
            let round = (lane.rounds_done + u32::from(lane.in_round && !lane.warmup)).min(lane.rounds_planned);
            let counted = live.work.counted;
            vec![
                format!("{done} / {} {counted} · round {round}/{}", lane.bytes_planned, lane.rounds_planned),
                format!("{done} / {} {counted}", lane.bytes_planned),
            ]
        }
    };
    (ratio, labels)
}

/// A gauge whose filled part shows with or without colour: without, a
/// Gauge draws the cells under its label with swapped default colours,
/// which is nothing, so those cells are drawn in reverse video instead.
fn render_gauge(frame: &mut Frame, area: Rect, ratio: f64, label: &str, style: ratatui::style::Style) {
    frame.render_widget(Gauge::default().ratio(ratio).label(label.to_string()).gauge_style(style), area);
    if style.fg.is_some() || area.is_empty() {
        return;
    }
    // The Gauge fills `width * ratio` cells, rounded (it draws no partial blocks here).
    let end = area.left() + (f64::from(area.width) * ratio).round() as u16;
    let buffer = frame.buffer_mut();
    for x in area.left()..end.min(area.right()) {
        let cell = &mut buffer[(x, area.top())];
        if cell.symbol() != ratatui::symbols::block::FULL {
            cell.modifier.insert(Modifier::REVERSED);
        }
    }
}

/// The lines under the gauge, each as its wordings longest first: the
/// rates, then the percentiles; a w1r3 run's uploads and reads each on
/// their own lines, as the table's rows.
fn figure_lines(lane: &Lane, live: &Live) -> Vec<Vec<String>> {
    let measuring = lane.in_round && !lane.warmup;
    let now = lane.current.filter(|_| measuring);
    let errors = if lane.errors > 0 { format!(" · {} failed", lane.errors) } else { String::new() };
    let recovery = if lane.retries + lane.resumes > 0 {
        let plural = crate::engine::report::plural;
        format!(" · {}, {}", plural(lane.retries as usize, "retry"), plural(lane.resumes as usize, "resume"))
    } else {
        String::new()
    };
    let text = |rate: Option<f64>| rate.map_or_else(|| "-".into(), |r| live.format_rate(r));
    let number = |rate: Option<f64>| rate.map_or_else(|| "-".into(), |r| live.rate_number(r));
    let unit = live.rate_name();
    if lane.parts.len() < 2 {
        let average = lane.average(0);
        let rates = vec![
            format!("now {} · avg {}{errors}{recovery}", text(now), text(average)),
            // Narrower: the unit said once, then the average alone; never a figure cut short.
            format!("now {} · avg {} {unit}{errors}", number(now), number(average)),
            format!("avg {}{errors}", text(average)),
            format!("avg {}", text(average)),
        ];
        return vec![rates, percentile_texts(lane, 0, live.work.one)];
    }
    let mut lines = vec![vec![
        format!("now {}{errors}{recovery}", text(now)),
        format!("now {}{errors}", text(now)),
        format!("now {}", number(now)),
    ]];
    for (index, part) in lane.parts.iter().enumerate() {
        let name = part.name;
        let average = lane.average(index);
        lines.push(vec![
            format!("{name}s: avg {}", text(average)),
            format!("{name} avg {}", text(average)),
            format!("{name} {}", number(average)),
        ]);
        // Indented where narrow wordings drop the name: they belong to the line above.
        let texts = percentile_texts(lane, index, name);
        lines.push(texts.into_iter().map(|t| if t.starts_with(name) { t } else { format!("  {t}") }).collect());
    }
    lines
}

/// `upload p50 0.176 s · p90 0.196 s · p99 0.206 s`, as the table's cells.
fn percentile_texts(lane: &Lane, part: usize, one: &str) -> Vec<String> {
    let Some([p50, p90, p99]) = lane.percentiles(part) else {
        if lane.latencies_per_round() && lane.done() > 0 {
            // Requests were answered: their times come whole with each complete round.
            return vec![format!("{one} times come at round end"), "times at round end".into()];
        }
        return vec![format!("{one} times: none finished yet"), format!("no {one} done")];
    };
    vec![
        format!("{one} p50 {p50} · p90 {p90} · p99 {p99}"),
        format!("{one} p50 {p50} · p99 {p99}"),
        format!("p50 {p50} · p99 {p99}"),
        format!("p50 {p50}"),
    ]
}
