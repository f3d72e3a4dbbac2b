//! Pure views: each takes the state and draws; none reads the clock.

pub mod form;
mod history;
mod live;
mod results;
mod sweep;
mod theme;

use super::app::{App, Pane};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
pub use theme::Theme;

pub const MIN_WIDTH: u16 = 100;
pub const MIN_HEIGHT: u16 = 30;
/// The form's width up to 160 columns; a quarter of wider screens, so that
/// longer values (endpoints with their ports, paths) show whole there.
const FORM_WIDTH: u16 = 42;
/// The form and the live lanes need this much; the results get the rest.
const MIN_TOP_HEIGHT: u16 = 11;
/// With a result to read, the form and lanes may shrink to this.
const MIN_TOP_HEIGHT_WITH_RESULTS: u16 = 8;

pub fn render(frame: &mut Frame, app: &App) {
    let theme = Theme::new(app.color);
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return too_small(frame, area, &theme);
    }
    let shown = match app.pane {
        Pane::History if app.history.pair().is_some() => None,
        Pane::History => app.history.selected_run(),
        Pane::Run => app.report.as_ref(),
    };
    let sweep_shown = app.pane == Pane::Run && app.showing_sweep && app.sweep.is_some();
    let wanted = match (app.pane, shown) {
        (Pane::Run, _) if sweep_shown => sweep::height(app),
        (Pane::History, None) if app.history.pair().is_some() => history::comparison_height(app, area.width),
        (Pane::History, None) => 12,
        (_, Some(report)) => results::height(report, area.width),
        (_, None) => 3,
    };
    let min_top = if shown.is_some() || sweep_shown { MIN_TOP_HEIGHT_WITH_RESULTS } else { MIN_TOP_HEIGHT };
    // A status a line cannot hold (a verdict with its interval) gets two.
    let status_text = words(app, &app.status.clone().unwrap_or_default());
    let status_rows = results::wrapped_line_count(&status_text, area.width as usize).clamp(1, 2) as u16;
    let results_height = wanted.min(area.height.saturating_sub(3 + status_rows + min_top));
    let [header, top, bottom, status, footer] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(min_top),
        Constraint::Length(results_height),
        Constraint::Length(status_rows),
        Constraint::Length(1),
    ])
    .areas(area);
    let [form_area, right] =
        Layout::horizontal([Constraint::Length(FORM_WIDTH.max(area.width / 4)), Constraint::Min(40)]).areas(top);
    render_header(frame, header, app, &theme);
    form::render(frame, form_area, app, &theme);
    match app.pane {
        Pane::Run => live::render(frame, right, app, &theme),
        Pane::History => history::render_list(frame, right, app, &theme),
    }
    match app.pane {
        Pane::History if app.history.pair().is_some() => history::render_comparison(frame, bottom, app, &theme),
        Pane::History => {
            let shown = app.history.selected_run();
            results::render(frame, bottom, (shown, shown.and_then(|r| app.point_of(r))), app.results_scroll, &theme)
        }
        Pane::Run if sweep_shown => sweep::render(frame, bottom, app, &theme),
        Pane::Run => {
            let shown = app.report.as_ref();
            results::render(frame, bottom, (shown, shown.and_then(|r| app.point_of(r))), app.results_scroll, &theme)
        }
    }
    if let Some((input, _, _)) = &app.export_prompt {
        render_export_prompt(frame, status, input, &theme);
    } else {
        // Beyond two lines, the rest is cut with "…" (the results pane has it whole).
        let width = status.width as usize;
        // Numbers keep their units (and a verdict its "3 pairs") when it wraps.
        let mut text = results::units_kept(&status_text);
        while results::wrapped_line_count(&text, width) > 2 {
            // Cut at a word, not inside one ("the 95% inte…").
            let words: Vec<&str> = text.trim_end_matches('…').split(' ').collect();
            if words.len() < 2 {
                text = form::ellipsized(&text, width);
                break;
            }
            text = format!("{}…", words[..words.len() - 1].join(" "));
        }
        let paragraph = Paragraph::new(Line::from(Span::styled(text, theme.status()))).wrap(Wrap { trim: true });
        frame.render_widget(paragraph, status);
    }
    frame.render_widget(Paragraph::new(footer_keys(app)).style(theme.dim()), footer);
    if app.help {
        render_help(frame, area, &theme);
    }
}

fn render_export_prompt(frame: &mut Frame, area: Rect, input: &tui_input::Input, theme: &Theme) {
    const PROMPT: &str = "export to (.json or .csv; type to replace, Enter saves, Esc cancels): ";
    let width = (area.width as usize).saturating_sub(PROMPT.len() + 1);
    let scroll = input.visual_scroll(width);
    let shown: String = input.value().chars().skip(scroll).take(width).collect();
    frame.render_widget(Paragraph::new(Line::from(vec![Span::styled(PROMPT, theme.accent()), Span::raw(shown)])), area);
    let column = (input.visual_cursor().saturating_sub(scroll)) as u16;
    frame.set_cursor_position(ratatui::layout::Position::new(area.x + PROMPT.len() as u16 + column, area.y));
}

fn too_small(frame: &mut Frame, area: Rect, theme: &Theme) {
    let text = format!(
        "The window is {}x{}; gcs-speed-tui needs at least {MIN_WIDTH}x{MIN_HEIGHT}.\nEnlarge the window (q quits).",
        area.width, area.height
    );
    frame.render_widget(Paragraph::new(text).style(theme.warning()).wrap(Wrap { trim: true }), area);
}

/// A sentence shared with the CLI, in the form's words: fields, not flags.
pub fn words(app: &App, text: &str) -> String {
    results::said(text, &app.form.options.target)
}

/// What the target is, plainly: nobody should mistake loopback for GCS.
pub fn target_label(app: &App) -> String {
    match &app.form.checked {
        Ok(planned) => planned.where_said(),
        Err(_) => format!("unknown until the {} field is fixed", invalid_label(app)),
    }
}

/// The label of the field the form's error is about.
fn invalid_label(app: &App) -> &'static str {
    let error = app.form.checked.as_ref().err().map_or("", |e| e.field);
    app.form.fields().iter().find(|f| f.key == error).map_or("a", |f| f.label)
}

fn render_header(frame: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let (mut state, brief_state) = header_state(app);
    let fault = app.form.checked.as_ref().ok().and_then(|planned| planned.built_in_fault());
    let fault = fault.map(|fault| format!("  FAULT {fault}")).unwrap_or_default();
    // What gives way when the row is narrow, in turn: the target's details in
    // parentheses, the state's count of runs, then the target's tail, so that
    // the fault and the state always show whole.
    let mut label = target_label(app);
    let width = area.width as usize;
    let fixed =
        |state: &str| " gcs-speed-tui ".len() + "  target: ".len() + fault.chars().count() + 3 + state.chars().count();
    if fixed(&state) + label.chars().count() > width {
        label = without_details(&label);
    }
    if fixed(&state) + label.chars().count() > width {
        state = brief_state;
    }
    if fixed(&state) + label.chars().count() > width {
        label = form::ellipsized(&label, width.saturating_sub(fixed(&state)).max(1));
    }
    let mut first = Line::from(vec![
        Span::styled(" gcs-speed-tui ", theme.title()),
        Span::raw("  target: "),
        Span::styled(label, theme.target(app.form.checked.as_ref().is_ok_and(|planned| planned.on_built_in_server()))),
    ]);
    // The fault before the state: of the two it is the one that must not be cut.
    if !fault.is_empty() {
        first.spans.push(Span::styled(fault, theme.warning()));
    }
    first.spans.push(Span::raw("   "));
    first.spans.push(Span::styled(state, theme.accent()));
    // The run's own target while it runs; else what the form will run (the
    // last run's target would contradict a form edited since).
    let second = match app.live.as_ref().filter(|l| app.running && !l.target.is_empty()) {
        Some(live) => format!(" {}", live.target),
        None => match &app.form.checked {
            Ok(planned) => format!(" {}", planned.sign_in_said()),
            Err(_) => " r runs nothing until then: the field's sentence is under the form".into(),
        },
    };
    let second = fitted(&second, area.width as usize);
    frame.render_widget(Paragraph::new(vec![first, Line::styled(second, theme.dim())]), area);
}

/// The header's state, and the same said briefly (without the session's
/// count of runs) for a narrow row.
fn header_state(app: &App) -> (String, String) {
    let state = if app.cancelling {
        format!("cancelling {:.1} s", app.elapsed_s())
    } else if app.running {
        format!("running {:.1} s", app.elapsed_s())
    } else if app.live.as_ref().is_some_and(|live| live.setup_failed.is_some()) {
        // The last r did not start: not "ready", not the run before's ending.
        "could not start".into()
    } else if let Some(last) = app.history.this_session().last() {
        // The last run's own ending: a cancelled run is not "done".
        let ended = match last.outcome() {
            crate::engine::report::RunOutcome::Cancelled => "cancelled",
            crate::engine::report::RunOutcome::TimedOut => "timed out",
            crate::engine::report::RunOutcome::SetupFailed => "could not start",
            _ => "done",
        };
        let runs = crate::engine::report::plural(app.history.this_session().len(), "run");
        return (format!("{ended} · {runs} this session"), ended.to_string());
    } else if app.report.is_some() {
        // A report opened from a file (--open): nothing has run yet.
        "ready · showing an opened report".into()
    } else {
        "ready".into()
    };
    (state.clone(), state)
}

/// A line that must fit one row: whole if it does; else without its
/// parenthesized details (the emulator's addresses), which the run's report
/// keeps; else cut with "…".
fn fitted(line: &str, width: usize) -> String {
    if line.chars().count() <= width {
        return line.to_string();
    }
    form::ellipsized(&without_details(line), width)
}

/// `line` without its parenthesized details.
fn without_details(line: &str) -> String {
    let mut plain = String::new();
    let mut depth = 0;
    for c in line.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth > 0 => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    plain.trim_end().replace("  ", " ").replace(" ,", ",")
}

fn footer_keys(app: &App) -> String {
    if app.editing() {
        " editing: type · Enter accept · Esc revert · Ctrl-U clear".into()
    } else if app.pane == Pane::History {
        " ↑/↓ select · Space mark for comparison · e export · h/Esc back · ? help · q quit".into()
    } else if app.running && app.sweep.is_some() {
        " Esc cancel the sweep · s sweep or table · h history · ? help · Ctrl-C cancel and quit".into()
    } else if app.running {
        " Esc cancel run · h history · ? help · Ctrl-C cancel and quit".into()
    } else if app.sweep.is_some() {
        " ↑/↓ move · Enter edit · r run · s sweep or table · h history · e export · ? help · q quit".into()
    } else {
        " ↑/↓ move · Enter edit · Space toggle · ←/→ choose · r run · h history · e export · ? help · q quit".into()
    }
}

pub const HELP: &[(&str, &str)] = &[
    ("Tab / Shift-Tab / ↑ / ↓", "move between fields (also j / k)"),
    ("PgUp / PgDn / Home / End", "move a page, or to the first or last field"),
    ("Enter / → on advanced", "open the advanced options (← closes them)"),
    ("Enter", "edit a text field (Enter accepts, Esc reverts, Ctrl-U clears)"),
    ("Space", "flip a toggle"),
    ("← / →", "change a choice"),
    ("r or F5", "start a run (again, with the form's values)"),
    ("Esc", "cancel the run: it stops; what it made is deleted (kept if Cleanup off)"),
    ("h", "history of runs, this session's and the last 50 kept from earlier ones"),
    ("Space (history)", "mark a run; select another to compare"),
    ("e", "export the run shown (or selected): type a path, .json or .csv"),
    ("s", "a sweep's picture, or the result table of its last point"),
    ("] / [", "scroll the results down or up (a merged report's rows can be many)"),
    ("?", "this help"),
    ("q", "quit (asks first while a run is going)"),
    ("Ctrl-C", "cancel and clean up a run, then quit; twice: quit at once"),
];

fn render_help(frame: &mut Frame, area: Rect, theme: &Theme) {
    const KEYS_WIDTH: usize = 26;
    let longest = HELP.iter().map(|(_, what)| what.chars().count()).max().unwrap_or(0);
    let width = ((KEYS_WIDTH + longest + 4) as u16).min(area.width);
    let height = (HELP.len() as u16 + 2).min(area.height);
    let popup = Rect::new(area.x + (area.width - width) / 2, area.y + (area.height - height) / 2, width, height);
    let lines: Vec<Line> = HELP
        .iter()
        .map(|(keys, what)| {
            Line::from(vec![Span::styled(format!(" {keys:<w$}", w = KEYS_WIDTH - 1), theme.accent()), Span::raw(*what)])
        })
        .collect();
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" keys · any key closes ").style(theme.popup())),
        popup,
    );
}
