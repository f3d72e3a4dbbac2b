//! A lane's histogram of object (or request) times, in buckets shared by
//! both lanes so that their bars compare.

use super::super::Theme;
use super::{distinct_labels, first_that_fits};
use crate::engine::plan::TransportKind;
use crate::tui::live::{Lane, Live, Work};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Bar, BarChart, BarGroup, Paragraph};

const HISTOGRAM_BUCKETS: usize = 6;

/// The shared span of all objects' times, so both histograms use the same buckets.
pub fn latency_range(live: &Live) -> (f64, f64) {
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

pub fn render(
    frame: &mut Frame,
    area: Rect,
    lane: &Lane,
    ((min, max), work): ((f64, f64), Work),
    theme: &Theme,
    kind: TransportKind,
) {
    let one = work.one;
    if area.height < 3 {
        return; // too short to read: the percentiles above say it in numbers
    }
    if lane.latencies.is_empty() {
        let text = first_that_fits(&[format!("{one} times appear here"), "times appear here".into()], area.width);
        frame.render_widget(Paragraph::new(text).style(theme.dim()), area);
        return;
    }
    // Milliseconds for sub-second uploads, so labels stay short enough for the bars.
    let (scale, unit) = if max < 1.0 { (1000.0, "ms") } else { (1.0, "s") };
    let [caption, area] = Layout::vertical([Constraint::Length(1), Constraint::Min(2)]).areas(area);
    let caption_text = first_that_fits(
        &match work.weighed {
            true => [format!("{one}s per time bucket (upper edge, {unit})"), format!("{one}s by time ({unit})")],
            // Lanes whose latencies come per round get a sample of each round's histogram, not every request.
            false => [format!("% of {one}s by time ({unit})"), format!("% by time ({unit})")],
        },
        caption.width,
    );
    frame.render_widget(Paragraph::new(caption_text).style(theme.dim()), caption);
    let width = ((max - min) / HISTOGRAM_BUCKETS as f64).max(f64::EPSILON);
    let mut counts = [0u64; HISTOGRAM_BUCKETS];
    for &latency in lane.latencies.iter() {
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
    let total: u64 = counts.iter().sum();
    let bars: Vec<Bar> = counts
        .iter()
        .zip(labels)
        .map(|(&count, label)| {
            let bar = Bar::default().value(count).label(Line::from(label));
            match work.weighed {
                // A sample of the round's histogram: its counts mean nothing
                // on their own, its shares do.
                false => bar.text_value(percent(count, total)),
                true => bar,
            }
        })
        .collect();
    let chart = BarChart::default()
        .data(BarGroup::default().bars(&bars))
        .bar_width(bar_width)
        .bar_gap(1)
        .bar_style(theme.transport(kind));
    frame.render_widget(chart, area);
}

/// `count` of `total` as a whole percentage; a share that rounds to 0 but is
/// not empty says `<1%`, so a bar is never labelled as holding nothing.
fn percent(count: u64, total: u64) -> String {
    let share = 100.0 * count as f64 / total.max(1) as f64;
    if count > 0 && share < 0.5 { "<1%".into() } else { format!("{share:.0}%") }
}

#[cfg(test)]
mod tests {
    use super::percent;

    #[test]
    fn shares_are_whole_percentages_and_a_sliver_is_not_zero() {
        assert_eq!(percent(198, 200), "99%");
        assert_eq!(percent(2, 200), "1%");
        assert_eq!(percent(1, 400), "<1%");
        assert_eq!(percent(0, 400), "0%");
    }
}
