//! The live pane: per transport side by side a gauge, current and average
//! MiB/s, a sparkline and a latency histogram; below, both transports on one chart.

use super::Theme;
use crate::config::TransportKind;
use crate::engine::events::Phase;
use crate::tui::app::App;
use crate::tui::live::Work;
use crate::tui::live::{Lane, Live};
use crate::units::{format_size, significant};
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
    // The chart only where it can be read; the lanes keep their figures first.
    let show_chart = area.height >= LANES_HEIGHT + MIN_CHART_HEIGHT;
    let lanes_height = if show_chart { LANES_HEIGHT } else { area.height };
    let [lanes_area, chart_area] = Layout::vertical([Constraint::Length(lanes_height), Constraint::Min(0)]).areas(area);
    let columns = Layout::horizontal(vec![Constraint::Ratio(1, live.lanes.len().max(1) as u32); live.lanes.len()])
        .split(lanes_area);
    let range = latency_range(live);
    for (lane, column) in live.lanes.iter().zip(columns.iter()) {
        render_lane(frame, *column, lane, live, range, theme);
    }
    if show_chart {
        render_chart(frame, chart_area, live, theme);
    }
}

const LANES_HEIGHT: u16 = 12;
const MIN_CHART_HEIGHT: u16 = 7;

fn welcome(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let etcd = app.form.etcd();
    let w1r3 = !etcd && app.form.options.workload.trim() == "w1r3";
    let reads = w1r3 || (!etcd && app.form.options.workload.trim() == "download");
    // The form remembers its fields: say a remembered range, which changes what is read.
    let range = app.form.options.range_size.trim();
    let reads_what = if reads && !matches!(range, "" | "0") {
        format!(" Each read takes {range} of each object (Read range size, under advanced).")
    } else {
        String::new()
    };
    let first = match &app.form.checked {
        Ok(_) => Line::from(vec![
            Span::raw("Press "),
            Span::styled("r", theme.accent()),
            Span::raw(match (etcd, reads, w1r3) {
                (true, ..) => " to run against ",
                (false, _, true) => " to write to and read from ",
                (false, true, false) => " to read from ",
                (false, false, _) => " to upload to ",
            }),
            // "the built-in emulator", "the endpoint ...", but "gs://b on GCS".
            Span::raw(match super::target_label(app) {
                label if label.starts_with("gs://") || etcd => label,
                label => format!("the {label}"),
            }),
            Span::raw("."),
        ]),
        Err(error) => Line::styled(
            format!(
                "Fix the {} field (marked) to run: its sentence is below the form.",
                app.form.fields().iter().find(|f| f.key == error.field).map_or(error.field, |f| f.label)
            ),
            theme.error(),
        ),
    };
    // The hint follows the form: with a bucket (or an endpoint) set, it is
    // not "set the Bucket field".
    let gcs_hint = match (app.form.options.bucket.trim(), app.form.options.endpoint.trim()) {
        ("", "") => "Set the Bucket field for real GCS; ? lists the keys.",
        (_, "") => {
            "Runs go to that bucket on real GCS (clear the Bucket field for the built-in emulator); ? lists the keys."
        }
        _ => "Runs go to the JSON endpoint set under advanced; ? lists the keys.",
    };
    let (what, hint) = if etcd {
        (
            "Both transports send the same puts, ranges or watches in turn (HTTP gateway and gRPC, which goes first alternating by round); this pane shows their ops/s live, and the table below compares them when the run ends.",
            "Set Endpoints to the cluster's client URL, and User and Password if it has auth on; ? lists the keys.",
        )
    } else if w1r3 {
        (
            "Each round writes new objects and then reads each of them three times, on one transport and then the other; this pane shows their throughput live, and the table below compares uploads and reads, each with its own verdict.",
            gcs_hint,
        )
    } else if reads {
        (
            "The objects to read are uploaded first (not timed); then both transports read them in turn; this pane shows their throughput live, and the table below compares them when the run ends.",
            gcs_hint,
        )
    } else {
        (
            "Both transports upload the same payload in turn; this pane shows their throughput live, and the table below compares them when the run ends.",
            gcs_hint,
        )
    };
    let text = vec![first, Line::from(""), Line::from(format!("{what}{reads_what}")), Line::from(""), Line::from(hint)];
    let block = Block::bordered().title(" live ").padding(ratatui::widgets::Padding::horizontal(1));
    frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }).block(block), area);
}

fn render_lane(frame: &mut Frame, area: Rect, lane: &Lane, live: &Live, range: (f64, f64), theme: &Theme) {
    let kind = lane.transport.unwrap_or(TransportKind::Json);
    let mut title = vec![Span::styled(format!(" {} ", kind.name()), theme.transport(kind))];
    if lane.warmup {
        title.push(Span::styled("warmup (not counted) ", theme.warning()));
    } else if lane.in_round {
        let doing = match live.work {
            Work::Uploads => "uploading ",
            Work::Downloads => "reading ",
            Work::WritesThenReads => "writing and reading ",
            Work::Requests | Work::Events => "running ",
        };
        title.push(Span::styled(doing, theme.accent()));
    }
    let block = Block::bordered().title(Line::from(title));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [gauge, numbers, latency, spark, histogram] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(if inner.height >= 9 { 3 } else { 1 }),
        Constraint::Min(0),
    ])
    .areas(inner);
    let done = lane.bytes_done + lane.round_bytes;
    let (ratio, labels) = match live.duration_s {
        // A timed run: the gauge follows the clock, as rounds are not known ahead.
        Some(duration) => (
            (live.at_s / duration).clamp(0.0, 1.0),
            vec![
                format!(
                    "{} · {} rounds · {:.0}/{duration:.0} s",
                    live.work.amount(done),
                    lane.rounds_done,
                    live.at_s.min(duration)
                ),
                format!("{} rounds · {:.0}/{duration:.0} s", lane.rounds_done, live.at_s.min(duration)),
            ],
        ),
        None => (
            if lane.bytes_planned == 0 { 0.0 } else { (done as f64 / lane.bytes_planned as f64).min(1.0) },
            match live.work {
                Work::Uploads | Work::Downloads | Work::WritesThenReads => vec![
                    format!(
                        "{} / {} · {}/{} objects",
                        format_size(done),
                        format_size(lane.bytes_planned),
                        lane.objects_done,
                        lane.objects_planned
                    ),
                    format!("{} / {}", format_size(done), format_size(lane.bytes_planned)),
                ],
                Work::Requests | Work::Events => {
                    let round = (lane.rounds_done + u32::from(lane.in_round && !lane.warmup)).min(lane.rounds_planned);
                    let counted = live.work.counted();
                    vec![
                        format!("{done} / {} {counted} · round {round}/{}", lane.bytes_planned, lane.rounds_planned),
                        format!("{done} / {} {counted}", lane.bytes_planned),
                    ]
                }
            },
        ),
    };
    let label = first_that_fits(&labels, gauge.width);
    frame.render_widget(Gauge::default().ratio(ratio).label(label).gauge_style(theme.transport(kind)), gauge);
    let now = if lane.in_round && !lane.warmup { live.unit.format(lane.current_mib_s) } else { "-".into() };
    let errors = if lane.errors > 0 { format!(" · {} failed", lane.errors) } else { String::new() };
    let recovery = if lane.retries + lane.resumes > 0 {
        format!(" · {} retries, {} resumes", lane.retries, lane.resumes)
    } else {
        String::new()
    };
    let average = lane.average_mib_s().map(|r| live.unit.format(r)).unwrap_or_else(|| "-".into());
    // Narrower: the unit said once, then the average alone; never a figure cut short.
    let number = |rate: Option<f64>| rate.map(|r| live.unit.number(r)).unwrap_or_else(|| "-".into());
    let now_number = if lane.in_round && !lane.warmup { number(Some(lane.current_mib_s)) } else { "-".into() };
    let unit = live.unit.name();
    let texts = [
        format!("now {now} · avg {average}{errors}{recovery}"),
        format!("now {now_number} · avg {} {unit}{errors}", number(lane.average_mib_s())),
        format!("avg {average}{errors}"),
        format!("avg {average}"),
    ];
    frame.render_widget(Paragraph::new(first_that_fits(&texts, numbers.width)), numbers);
    let latency_text = match lane.latency_percentiles() {
        Some((p50, p90, p99)) => first_that_fits(
            &[
                format!(
                    "{} p50 {} · p90 {} · p99 {}",
                    live.work.one(),
                    live.work.latency(p50),
                    live.work.latency(p90),
                    live.work.latency(p99)
                ),
                format!("p50 {} · p99 {}", live.work.latency(p50), live.work.latency(p99)),
            ],
            latency.width,
        ),
        None => first_that_fits(
            &[format!("{} times: none finished yet", live.work.one()), format!("no {} done", live.work.one())],
            latency.width,
        ),
    };
    frame.render_widget(Paragraph::new(latency_text), latency);
    let visible = spark.width as usize;
    let samples = &lane.sparkline[lane.sparkline.len().saturating_sub(visible)..];
    frame.render_widget(Sparkline::default().data(samples).style(theme.transport(kind)), spark);
    render_histogram(frame, histogram, lane, (range, live.work), theme, kind);
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
    ((min, max), work): ((f64, f64), Work),
    theme: &Theme,
    kind: TransportKind,
) {
    let one = work.one();
    if area.height < 3 {
        return; // too short to read: the percentiles above say it in numbers
    }
    if lane.latencies.is_empty() {
        let text = first_that_fits(&[format!("{one} times (s) appear here"), "times appear here".into()], area.width);
        frame.render_widget(Paragraph::new(text).style(theme.dim()), area);
        return;
    }
    // Milliseconds for sub-second uploads, so labels stay short enough for the bars.
    let (scale, unit) = if max < 1.0 { (1000.0, "ms") } else { (1.0, "s") };
    let [caption, area] = Layout::vertical([Constraint::Length(1), Constraint::Min(2)]).areas(area);
    let caption_text = first_that_fits(
        &match work {
            Work::Uploads | Work::Downloads | Work::WritesThenReads => {
                [format!("{one}s per time bucket (upper edge, {unit})"), format!("{one}s by time ({unit})")]
            }
            // The etcd lanes get a sample of each round's histogram, not every request.
            Work::Requests | Work::Events => {
                [format!("share of {one}s by time, 0.5% a count ({unit})"), format!("{one} shares by time ({unit})")]
            }
        },
        caption.width,
    );
    frame.render_widget(Paragraph::new(caption_text).style(theme.dim()), caption);
    let width = ((max - min) / HISTOGRAM_BUCKETS as f64).max(f64::EPSILON);
    let mut counts = [0u64; HISTOGRAM_BUCKETS];
    for &latency in &lane.latencies {
        let bucket = (((latency - min) / width) as usize).min(HISTOGRAM_BUCKETS - 1);
        counts[bucket] += 1;
    }
    let edges: Vec<f64> = (1..=HISTOGRAM_BUCKETS).map(|i| (min + width * i as f64) * scale).collect();
    let bar_width = ((area.width as usize / HISTOGRAM_BUCKETS).saturating_sub(1)).clamp(1, 8) as u16;
    let mut labels = distinct_labels(&edges);
    // A label wider than its bar would be cut into something wrong: then only
    // the first and the last bar are labelled, and only if they fit.
    if labels.iter().any(|l| l.chars().count() > bar_width as usize) {
        let last = labels.len() - 1;
        for (i, label) in labels.iter_mut().enumerate() {
            if (i != 0 && i != last) || label.chars().count() > bar_width as usize {
                label.clear();
            }
        }
    }
    let bars: Vec<Bar> =
        counts.iter().zip(labels).map(|(&count, label)| Bar::default().value(count).label(Line::from(label))).collect();
    let chart = BarChart::default()
        .data(BarGroup::default().bars(&bars))
        .bar_width(bar_width)
        .bar_gap(1)
        .bar_style(theme.transport(kind));
    frame.render_widget(chart, area);
}

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
    let mut digits = 2;
    loop {
        let labels: Vec<String> = values.iter().map(|v| significant(*v, digits)).collect();
        let mut unique = labels.clone();
        unique.dedup();
        if unique.len() == labels.len() || digits >= 6 {
            return labels;
        }
        digits += 1;
    }
}

/// How each transport is drawn on the chart: a braille line for JSON, a line of dots for gRPC,
/// so the two can be told apart without colour too.
fn chart_style(kind: TransportKind) -> (Marker, GraphType, &'static str) {
    match kind {
        TransportKind::Json => (Marker::Braille, GraphType::Line, "⠤ http-json"),
        TransportKind::Grpc => (Marker::Dot, GraphType::Line, "• grpc"),
    }
}

fn render_chart(frame: &mut Frame, area: Rect, live: &Live, theme: &Theme) {
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
    let phase = match live.phase {
        Some(Phase::Connecting) => "connecting",
        Some(Phase::Warmup) => "warmup (not counted)",
        Some(Phase::Measuring) => "measuring",
        Some(Phase::CleaningUp) => "cleaning up",
        None => "",
    };
    let state = if live.finished { "finished" } else { phase };
    // The legend is in the title: always visible, and it covers no data.
    let mut title = vec![Span::raw(format!(" {} · ", live.unit.name()))];
    for lane in &live.lanes {
        let kind = lane.transport.unwrap_or(TransportKind::Json);
        title.push(Span::styled(chart_style(kind).2, theme.transport(kind)));
        title.push(Span::raw(" · "));
    }
    title.push(Span::raw(format!("{state} ")));
    let chart = Chart::new(datasets)
        .block(Block::bordered().title(Line::from(title)))
        .legend_position(None)
        .x_axis(
            Axis::default()
                .bounds([0.0, x_max])
                .labels(["0 s".to_string(), format!("{} s", significant(x_max, 3))])
                .style(theme.dim()),
        )
        .y_axis(
            Axis::default().bounds([0.0, y_max]).labels(distinct_labels(&[0.0, y_max / 2.0, y_max])).style(theme.dim()),
        );
    frame.render_widget(chart, area);
}
