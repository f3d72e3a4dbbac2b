//! What the live pane says before the first run: how to start one, and
//! what the run will do, in the form's target's words.

use super::super::Theme;
use crate::tui::app::App;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

pub fn welcome(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let words = app.form.options.welcome();
    let first = match &app.form.checked {
        Ok(_) => Line::from(vec![
            Span::raw("Press "),
            Span::styled("r", theme.accent()),
            Span::raw(words.verb),
            Span::raw(words.place(super::super::target_label(app))),
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
    let mut text = vec![first, Line::from(""), Line::from(words.what), Line::from(""), Line::from(words.hint)];
    // A sweep is many runs: said before r starts it, with its field named.
    if let Ok(Some(sweep)) = app.form.sweep() {
        let options: Vec<&str> = sweep.axes.iter().map(|a| a.option.as_str()).collect();
        let said = format!(
            "The Sweep field is set: r runs {} points (over {}) one after another, each a full comparison, in a shuffled order.",
            sweep.points.len(),
            options.join(" x ")
        );
        text.insert(1, Line::styled(said, theme.warning()));
    }
    let block = Block::bordered().title(" live ").padding(ratatui::widgets::Padding::horizontal(1));
    frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }).block(block), area);
}
