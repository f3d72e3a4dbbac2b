//! The result table after a run: the same cells as `run --format table`,
//! the verdict, then protocols, errors and cleanup.

use super::Theme;
use crate::report::{RunReport, TABLE_HEADERS, table_rows};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Row, Table, Wrap};

pub fn render(frame: &mut Frame, area: Rect, report: Option<&RunReport>, theme: &Theme) {
    let Some(report) = report else {
        let block = Block::bordered().title(" results ");
        frame.render_widget(
            Paragraph::new(" The result table appears here when a run ends.").style(theme.dim()).block(block),
            area,
        );
        return;
    };
    let block = Block::bordered().title(format!(" results · run {} ", report.run_id));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = table_rows(report);
    let [table_area, text_area] =
        Layout::vertical([Constraint::Length(rows.len() as u16 + 1), Constraint::Min(1)]).areas(inner);
    let shown = columns_that_fit(&rows, table_area.width);
    let pick = |cells: &[String]| shown.iter().map(|&i| cells[i].clone()).collect::<Vec<_>>();
    let widths: Vec<Constraint> = shown.iter().map(|&i| Constraint::Length(column_width(&rows, i) as u16)).collect();
    let table = Table::new(
        rows.iter().zip(&report.transports).map(|(cells, t)| Row::new(pick(cells)).style(theme.transport(t.transport))),
        widths,
    )
    .header(Row::new(shown.iter().map(|&i| TABLE_HEADERS[i])).style(theme.accent()))
    .column_spacing(1);
    frame.render_widget(table, table_area);
    let mut lines = vec![Line::styled(report.summary_line(), theme.accent())];
    if shown.len() < TABLE_HEADERS.len() {
        lines.push(Line::styled("(a wider window shows every column; `run` prints them all)", theme.dim()));
    }
    lines.extend(report.footer_lines().into_iter().map(Line::from));
    // Wrapped, never cut: these sentences are the verdict and its caveats.
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), text_area);
}

/// Rows the pane needs to show `report` whole at this width: borders, the
/// table, and every sentence below it wrapped.
pub fn height(report: &RunReport, width: u16) -> u16 {
    let inner = width.saturating_sub(2).max(1) as usize;
    let text = std::iter::once(report.summary_line()).chain(report.footer_lines());
    // One spare line a sentence: word wrapping can take one more than the character count.
    let lines: usize = text.map(|line| line.chars().count().div_ceil(inner).max(1)).sum();
    (2 + report.transports.len() + 1 + lines + 1) as u16
}

/// Columns in the order a reader needs them when space is short; the table
/// keeps its usual order for whichever fit.
const COLUMN_PRIORITY: [usize; 12] = [0, 10, 4, 7, 9, 1, 11, 5, 8, 3, 6, 2];

/// Indices of the columns that fit in `width`, in table order: whole cells
/// or no column at all, never a cut one.
pub fn columns_that_fit(rows: &[Vec<String>], width: u16) -> Vec<usize> {
    let mut used = 0usize;
    let mut shown = Vec::new();
    for &i in &COLUMN_PRIORITY {
        let needed = column_width(rows, i) + usize::from(!shown.is_empty());
        if used + needed <= width as usize {
            used += needed;
            shown.push(i);
        }
    }
    shown.sort_unstable();
    shown
}

fn column_width(rows: &[Vec<String>], i: usize) -> usize {
    rows.iter().map(|r| r[i].chars().count()).chain([TABLE_HEADERS[i].len()]).max().unwrap_or(4)
}
