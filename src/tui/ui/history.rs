//! The history pane: every run of the session, and two of them side by side.

use super::Theme;
use crate::config::TransportKind;
use crate::engine::report::RunOutcome;
use crate::tui::app::App;
use crate::tui::finished::Finished;
use crate::tui::history::{differences, format_rate, key_options, shown_rate};
use crate::tui::ui::form::ellipsized;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph, Wrap};

pub fn render_list(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let history = &app.history;
    let block = Block::bordered().title(" history · Space marks a run to compare ");
    if history.runs.is_empty() {
        frame.render_widget(Paragraph::new(" No runs yet: press r.").style(theme.dim()).block(block), area);
        return;
    }
    let width = area.width.saturating_sub(3) as usize;
    let items: Vec<ListItem> = history
        .runs
        .iter()
        .enumerate()
        .map(|(i, report)| {
            let mark = if history.marked == Some(i) { "*" } else { " " };
            let day = report.started_at().get(5..10).unwrap_or("");
            let rate = |kind| shown_rate(report, kind);
            let first = format!(
                "{mark}#{:<2} {day} {}  {} · {}",
                i + 1,
                &report.started_at().get(11..19).unwrap_or(""),
                report.place(),
                key_options(report)
            );
            let second = format!(
                "     http-json {} · grpc {}{}",
                rate(TransportKind::Json),
                rate(TransportKind::Grpc),
                outcome_mark(report)
            );
            ListItem::new(vec![Line::from(ellipsized(&first, width)), Line::from(ellipsized(&second, width))])
        })
        .collect();
    let mut state = ListState::default().with_selected(Some(history.selected));
    frame.render_stateful_widget(List::new(items).block(block).highlight_style(theme.selected()), area, &mut state);
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
    let Some((base, other)) = app.history.pair() else {
        return;
    };
    let base_n = app.history.marked.unwrap_or(0) + 1;
    let other_n = app.history.selected + 1;
    let describe = |n: usize, report: &Finished| {
        format!(" #{n}: {} · {}{}", report.place(), key_options(report), outcome_mark(report))
    };
    let mut lines =
        vec![Line::styled(describe(base_n, base), theme.dim()), Line::styled(describe(other_n, other), theme.dim())];
    if !base.same_place(other) {
        lines.push(Line::styled(
            " these runs went to different targets: the change below is the targets', not only the options'",
            theme.warning(),
        ));
    }
    lines.push(Line::from(""));
    let rows = differences(base, other);
    if rows.is_empty() && std::mem::discriminant(base) != std::mem::discriminant(other) {
        lines.push(Line::from(" these runs measured different things (GCS and etcd): nothing to compare"));
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
        let said = super::results::said(&report.summary_line(), matches!(report, Finished::Etcd(_)));
        lines.push(Line::from(format!(" #{n}: {said}")));
    }
    let block = Block::bordered().title(format!(" run #{other_n} against run #{base_n} "));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(block), area);
}
