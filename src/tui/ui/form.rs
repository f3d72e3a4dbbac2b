//! The option form: one line per field, the invalid one marked, its sentence below.

use super::Theme;
use crate::tui::app::App;
use crate::tui::form::FIELDS;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph, Wrap};

const LABEL_WIDTH: usize = 18;

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let form = &app.form;
    let error = form.checked.as_ref().err();
    let error_height = if error.is_some() { 4 } else { 0 };
    let block = Block::bordered().title(" options ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [list_area, error_area] = Layout::vertical([Constraint::Min(3), Constraint::Length(error_height)]).areas(inner);
    let value_width = (list_area.width as usize).saturating_sub(LABEL_WIDTH + 1);
    let items: Vec<ListItem> = FIELDS
        .iter()
        .enumerate()
        .map(|(index, field)| {
            let editing = app.editing_index() == Some(index);
            let value = match (&form.editing, editing) {
                (Some(input), true) => {
                    let scroll = input.visual_scroll(value_width);
                    input.value().chars().skip(scroll).collect()
                }
                _ => form.value(index),
            };
            let invalid = form.error_for(index).is_some();
            let label = format!("{:<LABEL_WIDTH$}", field.label);
            let value_style = if invalid { theme.error() } else { ratatui::style::Style::new() };
            let mut line =
                Line::from(vec![Span::styled(label, theme.dim()), Span::raw(" "), Span::styled(value, value_style)]);
            if index == form.selected && !editing {
                line = line.style(theme.selected());
            }
            ListItem::new(line)
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(form.selected));
    frame.render_stateful_widget(List::new(items), list_area, &mut state);
    if let Some(error) = error {
        frame.render_widget(
            Paragraph::new(error.message.as_str()).style(theme.error()).wrap(Wrap { trim: true }),
            error_area,
        );
    }
    if let (Some(input), Some(index)) = (&form.editing, app.editing_index()) {
        let row = index.saturating_sub(state.offset()) as u16;
        let column = (input.visual_cursor().saturating_sub(input.visual_scroll(value_width))) as u16;
        frame.set_cursor_position(Position::new(list_area.x + LABEL_WIDTH as u16 + 1 + column, list_area.y + row));
    }
}
