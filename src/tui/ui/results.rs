//! The result table after a run: the same cells as `run --format table`,
//! the verdict, then protocols, errors and cleanup.

use super::Theme;
use crate::finished::Finished;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Row, Table, Wrap};

/// The pane, `scroll` lines down (table rows first, then the sentences; the
/// table's header stays).
pub fn render(
    frame: &mut Frame,
    area: Rect,
    (report, point): (Option<&Finished>, Option<String>),
    scroll: u16,
    theme: &Theme,
) {
    let Some(report) = report else {
        let block = Block::bordered().title(" results ");
        frame.render_widget(
            Paragraph::new(" The result table appears here when a run ends.").style(theme.dim()).block(block),
            area,
        );
        return;
    };
    let point = point.map(|p| format!(" · sweep point {p}")).unwrap_or_default();
    let block =
        Block::bordered().title(format!(" results · run {} · {}{point} ", report.run_id(), report.place_said()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let engine::finished::Table { headers, rows, kinds, priority } = report.table();
    let text = text_lines(report, area.width);
    let inner_width = inner.width.max(1) as usize;
    let text_total: usize = text.iter().map(|l| wrapped_line_count(l, inner_width)).sum();
    // Never past the end: the last screenful stays in view.
    // No rows (a run that never started): no header over nothing either.
    let header_rows = usize::from(!rows.is_empty());
    let content = rows.len() + text_total;
    let room = (inner.height as usize).saturating_sub(header_rows).max(1);
    let scroll = (scroll as usize).min(content.saturating_sub(room));
    let skipped_rows = scroll.min(rows.len());
    let text_scroll = (scroll - skipped_rows) as u16;
    let [table_area, text_area] =
        Layout::vertical([Constraint::Length((rows.len() - skipped_rows + header_rows) as u16), Constraint::Min(1)])
            .areas(inner);
    let shown = columns_that_fit(&headers, &rows, priority, table_area.width);
    let pick = |cells: &[String]| shown.iter().map(|&i| cells[i].clone()).collect::<Vec<_>>();
    let widths: Vec<Constraint> =
        shown.iter().map(|&i| Constraint::Length(column_width(&headers, &rows, i) as u16)).collect();
    let table = Table::new(
        rows.iter()
            .zip(&kinds)
            .skip(skipped_rows)
            .map(|(cells, kind)| Row::new(pick(cells)).style(theme.transport(*kind))),
        widths,
    )
    .header(Row::new(shown.iter().map(|&i| headers[i])).style(theme.accent()))
    .column_spacing(1);
    frame.render_widget(table, table_area);
    let wanted = text_total - text_scroll as usize;
    let lines: Vec<Line> = text
        .into_iter()
        .enumerate()
        .map(|(i, line)| match i {
            0 => Line::styled(line, theme.accent()),
            _ if line == NARROW_NOTE => Line::styled(line, theme.dim()),
            _ => Line::from(line),
        })
        .collect();
    // Wrapped: these sentences are the verdict and its caveats. Should the
    // window still be too short, the border says how much is below.
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).scroll((text_scroll, 0)), text_area);
    let hidden = wanted.saturating_sub(text_area.height as usize);
    if let Some(note) = scroll_note(scroll, hidden) {
        // Between the corners, so that the border's corners stay drawn.
        let inside = Rect { x: area.x + 1, width: area.width.saturating_sub(2), ..area };
        frame.render_widget(Block::new().title_bottom(Line::from(note).right_aligned()), inside);
    }
}

/// The border's note on what lies above and below a scrolled pane, and the
/// keys that scroll it (`]` and `[`), or none when all of it shows.
pub fn scroll_note(above: usize, below: usize) -> Option<String> {
    match (above, below) {
        (0, 0) => None,
        (0, below) => Some(format!(" ↓ {} below: ] scrolls down, or enlarge the window ", lines(below))),
        (above, 0) => Some(format!(" ↑ {} above: [ scrolls up ", lines(above))),
        (above, below) => Some(format!(" ↑ {above} above, ↓ {below} below: [ and ] scroll ")),
    }
}

fn lines(count: usize) -> String {
    crate::engine::report::plural(count, "line")
}

/// Rows the pane needs to show `report` whole at this width: borders, the
/// table, and every sentence below it wrapped.
pub fn height(report: &Finished, width: u16) -> u16 {
    let inner = width.saturating_sub(2).max(1) as usize;
    let lines: usize = text_lines(report, width).iter().map(|line| wrapped_line_count(line, inner)).sum();
    let rows = report.table().rows.len();
    (2 + rows + usize::from(rows > 0) + lines) as u16
}

/// The sentences under the table, as shown at this width.
fn text_lines(report: &Finished, width: u16) -> Vec<String> {
    let engine::finished::Table { headers, rows, priority, .. } = report.table();
    let mut lines = report.verdict_lines();
    let shown = columns_that_fit(&headers, &rows, priority, width.saturating_sub(2));
    if shown.len() < headers.len() {
        lines.push(NARROW_NOTE.to_string());
    }
    // The legend speaks of the columns shown: "Min-Max", "Min" or neither.
    let has = |name: &str| shown.iter().any(|&i| headers[i] == name);
    let round_columns = match (has("Min"), has("Max")) {
        (true, true) => "Min-Max: ",
        (true, false) => "Min: ",
        (false, true) => "Max: ",
        (false, false) => "",
    };
    let legend = |line: String| match line.strip_prefix("Min-Max: time per complete round · ") {
        Some(rest) if round_columns.is_empty() => rest.to_string(),
        Some(rest) => format!("{round_columns}time per complete round · {rest}"),
        None => line,
    };
    lines.extend(report.footer_lines().into_iter().map(legend));
    // The report's sentences are the CLI's; the app names its fields.
    lines.iter().map(|line| units_kept(&said(line, report.target()))).collect()
}

/// A report's sentence as the app says it: fields for flags, and an
/// interval with no width said as none.
pub fn said(line: &str, target: &str) -> String {
    interval_said(&crate::tui::fields::in_form_words(line, target))
}

/// "95% CI +55.6% to +55.6%" was never measured: rounds that vary give an
/// interval with width, and only identical rounds (a hand-made or damaged
/// report) give none. Said as what it is, not as a finding.
pub fn interval_said(line: &str) -> String {
    const CI: &str = "95% CI ";
    let Some(at) = line.find(CI) else { return line.to_string() };
    let Some((low, tail)) = line[at + CI.len()..].split_once(" to ") else { return line.to_string() };
    let end = tail.find([',', ';', ')']).unwrap_or(tail.len());
    if low != &tail[..end] {
        return line.to_string();
    }
    format!("{}no interval: every pair of rounds gave {low}{}", &line[..at], &tail[end..])
}

/// The units a figure may carry, which must stay on its line.
/// Units, and the count a verdict ends with ("3 pairs"), kept with their number.
const UNITS: [&str; 15] = [
    "MiB/s",
    "MB/s",
    "Gbit/s",
    "s/GiB",
    "objects/s",
    "ops/s",
    "events/s",
    "µs",
    "ms",
    "s",
    "B",
    "KiB",
    "MiB",
    "GiB",
    "pair",
];

/// `1642.87 MiB/s` with a no-break space, so that wrapping never puts a
/// number at a line's end and its unit at the next one's start.
pub fn units_kept(line: &str) -> String {
    let words: Vec<&str> = line.split(' ').collect();
    let mut out = String::with_capacity(line.len());
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            let number_before = words[i - 1].ends_with(|c: char| c.is_ascii_digit());
            let unit_here = UNITS.iter().any(|unit| word.starts_with(unit));
            out.push(if number_before && unit_here { '\u{a0}' } else { ' ' });
        }
        out.push_str(word);
    }
    out
}

const NARROW_NOTE: &str = "(a wider window shows every column; `run` prints them all)";

/// Lines `text` takes when wrapped at word boundaries to `width` columns,
/// as the paragraph below wraps it (a word longer than a line is split).
pub fn wrapped_line_count(text: &str, width: usize) -> usize {
    let (mut lines, mut used) = (1, 0);
    for word in text.split(' ') {
        let len = word.chars().count();
        if used > 0 && used + 1 + len > width {
            lines += 1;
            used = 0;
        }
        used += if used > 0 { 1 + len } else { len };
        while used > width {
            lines += 1;
            used -= width;
        }
    }
    lines
}

/// Indices of the columns that fit in `width`, taken in `priority` order
/// (what a reader needs first when space is short) and shown in table
/// order: whole cells or no column at all, never a cut one.
pub fn columns_that_fit(headers: &[&str], rows: &[Vec<String>], priority: &[usize], width: u16) -> Vec<usize> {
    let mut used = 0usize;
    let mut shown = Vec::new();
    for &i in priority {
        let needed = column_width(headers, rows, i) + usize::from(!shown.is_empty());
        if used + needed <= width as usize {
            used += needed;
            shown.push(i);
        }
    }
    shown.sort_unstable();
    shown
}

fn column_width(headers: &[&str], rows: &[Vec<String>], i: usize) -> usize {
    rows.iter().map(|r| r[i].chars().count()).chain([headers[i].chars().count()]).max().unwrap_or(4)
}

#[cfg(test)]
mod tests {
    use super::wrapped_line_count;

    #[test]
    fn an_interval_without_width_is_not_shown_as_measured() {
        let zero = "grpc was 55.6% faster than http-json (7000 vs 4500 ops/s; 95% CI +55.6% to +55.6%, 3 pairs)";
        assert_eq!(
            super::interval_said(zero),
            "grpc was 55.6% faster than http-json (7000 vs 4500 ops/s; no interval: every pair of rounds gave +55.6%, 3 pairs)"
        );
        let measured = "grpc was 55.6% faster than http-json (7000 vs 4500 ops/s; 95% CI +44.4% to +67.6%, 3 pairs)";
        assert_eq!(super::interval_said(measured), measured);
    }

    #[test]
    fn one_line_out_of_sight_is_one_line() {
        assert_eq!(super::scroll_note(0, 1).unwrap(), " ↓ 1 line below: ] scrolls down, or enlarge the window ");
        assert_eq!(super::scroll_note(1, 0).unwrap(), " ↑ 1 line above: [ scrolls up ");
        assert_eq!(super::scroll_note(0, 7).unwrap(), " ↓ 7 lines below: ] scrolls down, or enlarge the window ");
        assert_eq!(super::scroll_note(0, 0), None);
    }

    #[test]
    fn wrapping_is_counted_at_word_boundaries() {
        assert_eq!(wrapped_line_count("", 10), 1);
        assert_eq!(wrapped_line_count("aaaa bbbb", 9), 1);
        assert_eq!(wrapped_line_count("aaaa bbbbb", 9), 2, "the second word moves down whole");
        assert_eq!(wrapped_line_count("aaaaaaaaaaaaaaaaaaaa", 8), 3, "a long word is split");
    }
}
