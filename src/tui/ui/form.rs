//! The option form: the essential fields, then the advanced group (open or
//! closed); a scrollbar and "n more" when it does not fit; the selected
//! field's help (the same text as `--help`); the invalid field's sentence in
//! full below.

use super::Theme;
use crate::tui::app::App;
use crate::tui::form::Row;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, List, ListItem, ListState, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState, Wrap,
};

/// The field help's least room; it takes more, to show whole, while the
/// list keeps `LIST_AT_LEAST` rows.
const HELP_HEIGHT: u16 = 3;
const LIST_AT_LEAST: u16 = 6;

pub fn render(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let form = &app.form;
    let rows = form.rows();
    let inner_width = area.width.saturating_sub(2);
    let error = form.error_message();
    let error = error.as_deref();
    let inner_height = area.height.saturating_sub(2);
    let wrapped = |text: &str| super::results::wrapped_line_count(text, inner_width.max(1) as usize) as u16;
    // The sentence is shown whole: as many lines as it wraps to, with one
    // row left for the field it is about.
    let error_height = error.map_or(0, |e| wrapped(e).min(inner_height.saturating_sub(1)));
    let help = match form.selected() {
        Some(index) => {
            super::words(app, &crate::cli::help_for(form.fields()[index].key, &form.options.target).unwrap_or_default())
        }
        None => format!("{} more options: Enter or → opens, ← closes", form.fields().len() - form.essentials()),
    };
    let room = inner_height.saturating_sub(error_height + LIST_AT_LEAST);
    // The help gives way to an error when the form is short (after a run,
    // beside the results): why r refuses matters more than `--help`'s text.
    let help_height = match error {
        Some(_) => wrapped(&help).min(room),
        None => wrapped(&help).clamp(HELP_HEIGHT, room.max(HELP_HEIGHT)),
    };
    let [list_area, help_area, error_area] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(help_height), Constraint::Length(error_height)])
            .areas(area.inner(ratatui::layout::Margin::new(1, 1)));
    let height = list_area.height as usize;
    let offset = form.cursor.saturating_sub(height.saturating_sub(1));
    let below = rows.len().saturating_sub(offset + height);
    let mut block = Block::bordered().title(" options ");
    if offset > 0 {
        block = block.title_top(Line::from(format!(" ↑ {offset} more ")).right_aligned());
    }
    if below > 0 {
        block = block.title_bottom(Line::from(format!(" ↓ {below} more ")).right_aligned());
    }
    frame.render_widget(block, area);

    // Labels take the longest one's width, values the rest but a column the
    // scrollbar may take: a loopback URL (`http://127.0.0.1:2379`) fits whole.
    let label_width = form.fields().iter().map(|f| f.label.chars().count()).max().unwrap_or(0);
    let value_width = (list_area.width as usize).saturating_sub(label_width + 2);
    let widths = (label_width, value_width);
    let items: Vec<ListItem> = rows.iter().enumerate().map(|(i, row)| item(app, *row, i, widths, theme)).collect();
    let mut state = ListState::default().with_selected(Some(form.cursor)).with_offset(offset);
    frame.render_stateful_widget(List::new(items), list_area, &mut state);
    if rows.len() > height {
        let mut scroll = ScrollbarState::new(rows.len().saturating_sub(height)).position(offset);
        let bar = Scrollbar::new(ScrollbarOrientation::VerticalRight).begin_symbol(None).end_symbol(None);
        frame.render_stateful_widget(bar, list_area, &mut scroll);
    }

    frame.render_widget(Paragraph::new(help).style(theme.dim()).wrap(Wrap { trim: true }), help_area);
    if let Some(error) = error {
        frame.render_widget(Paragraph::new(error).style(theme.error()).wrap(Wrap { trim: true }), error_area);
    }
    if let (Some(input), Some(index)) = (&form.editing, app.editing_index()) {
        let row = rows.iter().position(|r| *r == Row::Field(index)).unwrap_or(0).saturating_sub(offset) as u16;
        let column = (input.visual_cursor().saturating_sub(input.visual_scroll(value_width))) as u16;
        frame.set_cursor_position(Position::new(list_area.x + label_width as u16 + 1 + column, list_area.y + row));
    }
}

fn item<'a>(
    app: &App,
    row: Row,
    position: usize,
    (label_width, value_width): (usize, usize),
    theme: &Theme,
) -> ListItem<'a> {
    let form = &app.form;
    let mut line = match row {
        Row::Advanced => {
            let marker = if form.advanced_open { "▾" } else { "▸" };
            let count = form.fields().len() - form.essentials();
            Line::from(Span::styled(format!("{marker} advanced ({count} options)"), theme.accent()))
        }
        Row::Field(index) => {
            let editing = app.editing_index() == Some(index);
            let value = match (&form.editing, editing) {
                (Some(input), true) => {
                    input.value().chars().skip(input.visual_scroll(value_width)).take(value_width).collect()
                }
                // An invalid value is marked by a character too, not only by colour.
                _ if form.error_for(index).is_some() => ellipsized(&format!("✗ {}", form.value(index)), value_width),
                _ => value_shown(&form.value(index), value_width),
            };
            let value_style = if form.error_for(index).is_some() { theme.error() } else { Default::default() };
            let label = format!("{:<label_width$}", form.fields()[index].label);
            Line::from(vec![Span::styled(label, theme.dim()), Span::raw(" "), Span::styled(value, value_style)])
        }
    };
    if position == form.cursor && form.editing.is_none() {
        line = line.style(theme.selected());
    }
    ListItem::new(line)
}

/// A field's value in `width` columns. An address or a path is cut at its
/// start ("…127.0.0.1:23790"): its end (the port, the file) tells it apart,
/// and a cut end could read as another value (":2379…" for :23790).
fn value_shown(value: &str, width: usize) -> String {
    let count = value.chars().count();
    if count <= width || !value.contains('/') {
        return ellipsized(value, width);
    }
    let room = width.saturating_sub(1);
    let fits = |tail: &&str| tail.chars().count() <= room;
    // The address without its scheme, else the longest run of whole path
    // parts that fits, else the last characters.
    let after_scheme = value.split_once("://").map(|(_, rest)| rest).filter(fits);
    let parts = value.char_indices().filter(|&(_, c)| c == '/').map(|(i, _)| &value[i..]).find(fits);
    let tail = after_scheme.or(parts).map(str::to_string);
    let tail = tail.unwrap_or_else(|| value.chars().skip(count - room).collect());
    format!("…{tail}")
}

/// The text, or as much as fits with "…" saying there is more.
pub fn ellipsized(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::value_shown;

    #[test]
    fn an_address_too_long_keeps_its_end() {
        assert_eq!(value_shown("http://127.0.0.1:23790", 21), "…127.0.0.1:23790");
        assert_eq!(value_shown("/home/me/keys/service-account.json", 25), "…/service-account.json");
        assert_eq!(value_shown("http://127.0.0.1:23790", 22), "http://127.0.0.1:23790");
        assert_eq!(value_shown("a long plain value", 10), "a long pl…");
    }
}
