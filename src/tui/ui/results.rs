//! The result table after a run: the same cells as `run --format table`,
//! the verdict, then protocols, errors and cleanup.

use super::Theme;
use crate::report::{RunReport, TABLE_HEADERS, table_rows};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Row, Table};

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
    let widths = column_widths(&rows);
    let table = Table::new(
        rows.into_iter().zip(&report.transports).map(|(cells, t)| Row::new(cells).style(theme.transport(t.transport))),
        widths,
    )
    .header(Row::new(TABLE_HEADERS).style(theme.accent()))
    .column_spacing(1);
    frame.render_widget(table, table_area);
    let mut lines = vec![Line::styled(report.summary_line(), theme.accent())];
    lines.extend(report.footer_lines().into_iter().map(Line::from));
    frame.render_widget(Paragraph::new(lines), text_area);
}

fn column_widths(rows: &[Vec<String>]) -> Vec<Constraint> {
    TABLE_HEADERS
        .iter()
        .enumerate()
        .map(|(i, header)| {
            let widest = rows.iter().map(|r| r[i].chars().count()).chain([header.len()]).max().unwrap_or(4);
            Constraint::Length(widest as u16)
        })
        .collect()
}
