//! The app's export prompt (`e`) and its goodbye: what it writes and what it
//! tells the shell on leaving. Apart from `app.rs` so that file stays about
//! keys and runs.

use super::app::{App, Effect, Pane};
use crate::finished::Finished;
use crate::sweep::report::SweepReport;
use engine::finished::Leftovers;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

/// What `e` writes: the shown run, or the whole sweep shown (every point
/// finished, as `run --sweep` writes it, so `--open` reads it back).
pub enum Exported {
    Run(Box<Finished>),
    Sweep(Box<SweepReport>),
}

impl Exported {
    fn suggested_path(&self) -> String {
        match self {
            Exported::Run(report) => format!("gcs-speed-tui-{}.json", report.run_id()),
            Exported::Sweep(sweep) => {
                let first = sweep.points.first().map_or("empty", |p| p.report.run_id());
                format!("gcs-speed-tui-sweep-{first}.json")
            }
        }
    }

    fn contents(&self, csv: bool) -> String {
        let format = if csv { crate::cli::Format::Csv } else { crate::cli::Format::Json };
        match self {
            Exported::Run(report) => report.render(format),
            Exported::Sweep(sweep) => sweep.render(format),
        }
    }
}

impl App {
    /// `e`: asks where to export the shown run (or sweep), the default name filled in.
    pub(super) fn export(&mut self) -> Vec<Effect> {
        let sweep = self.sweep.as_ref().filter(|s| self.showing_sweep && !s.points.is_empty());
        let exported = match (self.pane, sweep) {
            (Pane::Run, Some(sweep)) => Some(Exported::Sweep(Box::new(sweep.clone()))),
            (Pane::History, _) => self.history.selected_run().map(|r| Exported::Run(Box::new(r.clone()))),
            (Pane::Run, None) => self.report.as_ref().map(|r| Exported::Run(Box::new(r.clone()))),
        };
        match exported {
            Some(exported) => {
                let path = exported.suggested_path();
                self.export_prompt = Some((tui_input::Input::new(path), exported, true));
            }
            None => self.status = Some("nothing to export yet: press r to run".into()),
        }
        Vec::new()
    }

    /// Typing the export path: Enter writes JSON (or CSV for a `.csv` name), Esc gives up.
    pub(super) fn export_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        use tui_input::backend::crossterm::EventHandler;
        match key.code {
            KeyCode::Esc => {
                self.export_prompt = None;
                self.status = Some("export cancelled".into());
            }
            KeyCode::Enter => {
                let Some((input, report, _)) = self.export_prompt.take() else { return Vec::new() };
                let path = input.value().trim().to_string();
                if path.is_empty() {
                    self.status = Some("export cancelled: no path given".into());
                    return Vec::new();
                }
                let contents = report.contents(path.to_ascii_lowercase().ends_with(".csv"));
                return vec![Effect::Export { path, contents }];
            }
            _ => {
                if let Some((input, _, pristine)) = &mut self.export_prompt {
                    if std::mem::take(pristine)
                        && matches!(key.code, KeyCode::Char(_))
                        && !key.modifiers.contains(KeyModifiers::CONTROL)
                    {
                        *input = tui_input::Input::default(); // typing a path replaces the suggestion
                    }
                    input.handle_event(&Event::Key(key));
                }
            }
        }
        Vec::new()
    }

    /// What the app tells the shell on leaving: every run's cleanup, and
    /// what may be left behind.
    pub fn farewell(&self) -> Vec<String> {
        let runs = self.history.this_session();
        let targets: Vec<&str> =
            crate::targets::TARGETS.iter().copied().filter(|t| runs.iter().any(|r| r.target() == *t)).collect();
        // Objects and keys are not added up: a session of both says each.
        if targets.len() > 1 {
            let of = |target: &str| runs.iter().filter(|r| r.target() == target).cloned().collect::<Vec<_>>();
            return targets.iter().flat_map(|t| cleanup_lines(&of(t), Some(t))).collect();
        }
        cleanup_lines(runs, None)
    }
}

/// What `runs` (of one target) deleted and left, `target` named when the
/// session had runs of another too.
fn cleanup_lines(runs: &[Finished], target: Option<&str>) -> Vec<String> {
    if runs.is_empty() {
        return Vec::new();
    }
    let leftovers: Vec<Leftovers> = runs.iter().map(|run| run.leftovers()).collect();
    let deleted: usize = leftovers.iter().map(|l| l.deleted).sum();
    let left: Vec<&String> = leftovers.iter().flat_map(|l| l.left.iter()).collect();
    let kept: usize = leftovers.iter().map(|l| l.kept).sum();
    let what = match target {
        Some(target) => format!("{} of {target}", crate::engine::report::plural(runs.len(), "run")),
        None => crate::engine::report::plural(runs.len(), "run"),
    };
    let mut lines = vec![format!(
        "{what}: cleanup deleted {deleted}, left {}{}",
        left.len(),
        if kept > 0 { format!(", kept {kept} on purpose (Cleanup off)") } else { String::new() }
    )];
    lines.extend(left.iter().map(|name| format!("left behind: {name}")));
    lines
}
