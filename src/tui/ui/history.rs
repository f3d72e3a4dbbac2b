//! The history pane: every run of the session, and two of them side by side.

use super::Theme;
use super::results::{scroll_note, units_kept, wrapped_line_count};
use crate::engine::plan::TransportKind;
use crate::engine::report::RunOutcome;
use crate::finished::Finished;
use crate::tui::app::App;
use crate::tui::history::{differences, format_rate, shown_rate};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph, Wrap};

pub fn render_list(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let history = &app.history;
    let mut block = Block::bordered().title(" history · Space marks a run to compare ");
    if history.runs.is_empty() {
        frame.render_widget(Paragraph::new(" No runs yet: press r.").style(theme.dim()).block(block), area);
        return;
    }
    let width = area.width.saturating_sub(2) as usize;
    let entries: Vec<Vec<String>> =
        history.runs.iter().enumerate().map(|(i, report)| entry_lines(app, i, report, width)).collect();
    let heights: Vec<usize> = entries.iter().map(Vec::len).collect();
    let (first, end) = visible(&heights, history.selected, area.height.saturating_sub(2) as usize);
    // As the form says it: how many runs lie beyond the pane, either way.
    if first > 0 {
        block = block.title_top(Line::from(format!(" ↑ {first} more ")).right_aligned());
    }
    if end < entries.len() {
        block = block.title_bottom(Line::from(format!(" ↓ {} more ", entries.len() - end)).right_aligned());
    }
    let items: Vec<ListItem> = entries[first..end]
        .iter()
        .map(|lines| ListItem::new(lines.iter().map(|line| Line::from(line.clone())).collect::<Vec<_>>()))
        .collect();
    let mut state = ListState::default().with_selected(Some(history.selected - first));
    frame.render_stateful_widget(List::new(items).block(block).highlight_style(theme.selected()), area, &mut state);
}

/// Continuation lines start under the run's day.
const INDENT: &str = "    ";

/// A run as the list shows it, wrapped at words to `width`: its number,
/// when, where and what it ran, then the rate each transport reached (the
/// one its report judged on) and how it ended.
fn entry_lines(app: &App, i: usize, report: &Finished, width: usize) -> Vec<String> {
    let mark = if app.history.marked == Some(i) { "*" } else { " " };
    let day = report.started_at().get(5..10).unwrap_or("");
    let time = report.started_at().get(11..19).unwrap_or("");
    // "chunk 16 MiB" is one option: kept on one line.
    let options = report.key_options().replace("chunk ", "chunk\u{a0}");
    let point = app.point_of(report).map(|p| format!(" · sweep point {p}")).unwrap_or_default();
    let what = format!("#{} {day} {time} · {} · {options}{point}", i + 1, report.place_said());
    let rates = format!(
        "http-json {} · grpc {}{}",
        shown_rate(report, TransportKind::Json),
        shown_rate(report, TransportKind::Grpc),
        outcome_mark(report)
    );
    let mut lines = wrap_words(&units_kept(&what), width, mark, INDENT);
    lines.extend(wrap_words(&units_kept(&rates), width, INDENT, INDENT));
    lines
}

/// Whole words to a line of `width`, the first line after `first`, the
/// others after `rest`; a word is split only when no line could hold it.
pub fn wrap_words(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut words_on_line = 0;
    for word in text.split(' ').filter(|word| !word.is_empty()) {
        if words_on_line > 0 && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::replace(&mut line, rest.to_string()));
            words_on_line = 0;
        }
        if words_on_line > 0 {
            line.push(' ');
        }
        line.push_str(word);
        words_on_line += 1;
    }
    lines.push(line);
    lines
}

/// The entries shown, `[first, end)`: from the top while the selected one
/// fits, else scrolled just far enough that it shows whole at the bottom.
fn visible(heights: &[usize], selected: usize, room: usize) -> (usize, usize) {
    let mut first = 0;
    while first < selected && heights[first..=selected].iter().sum::<usize>() > room {
        first += 1;
    }
    let (mut end, mut used) = (first, 0);
    while end < heights.len() && used + heights[end] <= room {
        used += heights[end];
        end += 1;
    }
    (first, end.max(selected + 1))
}

/// Says when a run did not run its course, so its figures are read as partial.
fn outcome_mark(report: &Finished) -> &'static str {
    match report.outcome() {
        RunOutcome::Completed => "",
        RunOutcome::CompletedWithErrors => " · with failed uploads",
        RunOutcome::Cancelled => " · CANCELLED",
        RunOutcome::TimedOut => " · TIMED OUT",
        RunOutcome::FailedFast => " · stopped at a failure",
        RunOutcome::SetupFailed => " · NOT STARTED",
    }
}

pub fn render_comparison(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let Some((title, lines)) = comparison(app, theme) else {
        return;
    };
    // Scrolled by ] and [ as the results pane is, never past the last screenful.
    let total = wrapped_total(&lines, area.width);
    let room = area.height.saturating_sub(2) as usize;
    let scroll = (app.results_scroll as usize).min(total.saturating_sub(room));
    let mut block = Block::bordered().title(title);
    if let Some(note) = scroll_note(scroll, total.saturating_sub(scroll + room)) {
        block = block.title_bottom(Line::from(note).right_aligned());
    }
    let paragraph = Paragraph::new(lines).wrap(Wrap { trim: false }).scroll((scroll as u16, 0));
    frame.render_widget(paragraph.block(block), area);
}

/// Rows the comparison needs to show whole at this width (borders included).
pub fn comparison_height(app: &App, width: u16) -> u16 {
    let lines = comparison(app, &Theme::new(false)).map_or(Vec::new(), |(_, lines)| lines);
    (wrapped_total(&lines, width) + 2) as u16
}

/// Lines the comparison's text takes, wrapped inside a pane `width` wide.
fn wrapped_total(lines: &[Line], width: u16) -> usize {
    let inner = width.saturating_sub(2).max(1) as usize;
    lines
        .iter()
        .map(|line| line.spans.iter().map(|span| span.content.as_ref()).collect::<String>())
        // A line's leading space is kept by the paragraph (trim off): counted
        // as part of the first word, as it wraps with it.
        .map(|text| wrapped_line_count(&text.replacen(' ', "_", usize::from(text.starts_with(' '))), inner))
        .sum()
}

/// The comparison's title and lines, when two runs are chosen.
fn comparison(app: &App, theme: &Theme) -> Option<(String, Vec<Line<'static>>)> {
    let (base, other) = app.history.pair()?;
    let base_n = app.history.marked.unwrap_or(0) + 1;
    let other_n = app.history.selected + 1;
    let describe = |n: usize, report: &Finished| {
        units_kept(&format!(" #{n}: {} · {}{}", report.place_said(), report.key_options(), outcome_mark(report)))
    };
    let mut lines =
        vec![Line::styled(describe(base_n, base), theme.dim()), Line::styled(describe(other_n, other), theme.dim())];
    let other_target = base.target() != other.target();
    // Runs of two targets compare nothing: no word of "the change below".
    if !other_target && !base.same_place(other) {
        lines.push(Line::styled(
            " these runs went to different targets: the change below is the targets', not only the options'",
            theme.warning(),
        ));
    }
    lines.push(Line::from(""));
    let rows = differences(base, other);
    if rows.is_empty() && other_target {
        // "a GCS" and "an etcd" report: said without their articles.
        let kinds = [other, base].map(|r| r.kind_said().split_whitespace().last().unwrap_or_default());
        lines.push(Line::from(format!(
            " these runs measured different things ({} and {}): nothing to compare",
            kinds[0], kinds[1]
        )));
    } else if rows.is_empty() && base.judged_on_items() != other.judged_on_items() {
        // Small objects are judged in objects/s, others in bytes a second.
        let unit = |r: &Finished| if r.judged_on_items() { "objects/s" } else { r.unit().name() };
        lines.push(Line::from(format!(
            " these runs are judged in different units ({} and {}): a change from one to the other means nothing; read each run's table",
            unit(base),
            unit(other)
        )));
    } else if rows.is_empty() {
        lines.push(Line::from(
            " these runs share no row with a timed round: no transport did the same operation (upload, download, put...) in both",
        ));
    }
    let width = rows.iter().map(|row| row.1.chars().count()).max().unwrap_or(0);
    let shown: Vec<(String, String)> =
        rows.iter().map(|r| (format_rate(other, r.2), format_rate(other, r.3))).collect();
    // Right-aligned to the widest figure, whatever its unit's length.
    let figure = shown.iter().map(|(a, b)| a.chars().count().max(b.chars().count())).max().unwrap_or(0);
    for ((kind, name, _, _, percent), (a, b)) in rows.into_iter().zip(shown) {
        lines.push(Line::styled(
            format!(" {name:<width$}  #{base_n} {a:>figure$}   #{other_n} {b:>figure$}   {percent:+.1}%"),
            theme.transport(kind),
        ));
    }
    lines.push(Line::from(""));
    for (n, report) in [(base_n, base), (other_n, other)] {
        let said = super::results::said(&report.summary_line(), report.target());
        lines.push(Line::from(units_kept(&format!(" #{n}: {said}"))));
    }
    Some((format!(" run #{other_n} against run #{base_n} "), lines))
}
