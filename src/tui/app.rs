//! The app's state and its one update function (Elm style). `update` never
//! does I/O: it returns the effects for the event loop to carry out.

use super::form::{Form, Kind};
use super::history::History;
use super::live::Live;
use crate::engine::events::RunEvent;
use crate::finished::Finished;
use crate::targets::{Environment, FormOptions};
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// Rows PgUp/PgDn move in the form.
const FORM_PAGE: isize = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Run,
    History,
}

pub enum Message {
    Terminal(Event),
    Run(RunEvent),
    /// Seconds since the app started, from the render tick.
    Tick(f64),
    /// The outcome of an effect, for the status line.
    Status(String),
    /// SIGTERM or SIGHUP: as Ctrl-C, cancel and clean up, then leave.
    Interrupt(crate::signals::Interrupt),
    /// The run's report, or why it never started.
    RunFinished(Result<Finished, String>),
}

#[derive(Debug, PartialEq)]
pub enum Effect {
    StartRun(Box<crate::targets::Planned>),
    CancelRun,
    SaveForm(Box<FormOptions>),
    /// The Target field changed: remembered alone (the rest of the form is
    /// remembered when a run starts).
    SaveTarget(String),
    /// Keep a finished run for later sessions' history.
    SaveRun(Box<Finished>),
    Export {
        path: String,
        contents: String,
    },
}

/// Lines `]` and `[` scroll the results pane by.
const RESULTS_STEP: u16 = 5;

pub struct App {
    pub form: Form,
    pub pane: Pane,
    pub help: bool,
    pub live: Option<Live>,
    pub report: Option<Finished>,
    pub history: History,
    pub status: Option<String>,
    /// A run is going (or cleaning up after a cancel).
    pub running: bool,
    pub cancelling: bool,
    /// What a cancel of the run going says it does, from the run's own
    /// options (the form may be edited while it runs).
    pub stopping: String,
    pub run_started_s: f64,
    pub now_s: f64,
    pub confirm_quit: bool,
    /// Quit once the running run has cleaned up.
    pub quit_after_run: bool,
    pub quit: bool,
    pub color: bool,
    /// How the user asked to stop a run on the way out, for the exit status.
    pub interrupted: Option<crate::signals::Interrupt>,
    /// The path being typed for an export, the report it is for, and whether
    /// the suggested name is still untouched (the first key typed replaces it).
    pub export_prompt: Option<(tui_input::Input, super::export::Exported, bool)>,
    /// Lines of the results pane scrolled past (`]` and `[`): a merged
    /// report's rows can outgrow any window.
    pub results_scroll: u16,
    /// The sweep last run or opened, drawn in the results pane while
    /// `showing_sweep`; the sweep under way.
    pub sweep: Option<crate::sweep::report::SweepReport>,
    pub showing_sweep: bool,
    pub sweep_run: Option<super::sweeping::SweepRun>,
}

impl App {
    /// The app over `options`: the whole form, or GCS options alone (the
    /// form's other fields at their defaults).
    pub fn new(options: impl Into<FormOptions>, env: Environment, color: bool) -> Self {
        Self::with_history(options, env, color, History::default())
    }

    pub fn with_history(options: impl Into<FormOptions>, env: Environment, color: bool, history: History) -> Self {
        Self {
            form: Form::new(options.into(), env),
            pane: Pane::Run,
            help: false,
            live: None,
            report: None,
            history,
            status: None,
            running: false,
            cancelling: false,
            stopping: String::new(),
            run_started_s: 0.0,
            now_s: 0.0,
            confirm_quit: false,
            quit_after_run: false,
            quit: false,
            color,
            interrupted: None,
            export_prompt: None,
            results_scroll: 0,
            sweep: None,
            showing_sweep: false,
            sweep_run: None,
        }
    }

    pub fn editing(&self) -> bool {
        self.form.editing.is_some()
    }

    pub fn update(&mut self, message: Message) -> Vec<Effect> {
        match message {
            Message::Tick(now) => {
                self.now_s = now;
                Vec::new()
            }
            Message::Status(text) => {
                self.status = Some(text);
                Vec::new()
            }
            Message::Run(event) => self.on_run_event(event),
            Message::RunFinished(Ok(report)) => self.finished(report),
            Message::RunFinished(Err(why)) => {
                let effects = self.on_run_event(RunEvent::SetupFailed(why.clone()));
                self.point_failed(&why);
                effects
            }
            Message::Interrupt(signal) => {
                self.interrupted.get_or_insert(signal);
                self.ctrl_c()
            }
            Message::Terminal(Event::Key(key)) if key.kind != KeyEventKind::Release => self.on_key(key),
            Message::Terminal(_) => Vec::new(),
        }
    }

    fn on_run_event(&mut self, event: RunEvent) -> Vec<Effect> {
        if let Some(live) = &mut self.live {
            live.apply(&event);
        }
        match event {
            RunEvent::Note(note) => self.status = Some(note),
            // The status follows the run, so it never says "connecting" mid-run.
            // A question waiting for its answer stays on the status line.
            RunEvent::Phase(phase) if !self.cancelling && !self.confirm_quit => {
                self.status = Some(self.with_point(super::live::phase_sentence(phase)))
            }
            RunEvent::RoundStarted { transport, round: Some(round), .. } if !self.cancelling && !self.confirm_quit => {
                // A `--duration` run has no planned count to show.
                let of = match self.live.as_ref().filter(|l| l.duration_s.is_none()).and_then(|l| l.lanes.first()) {
                    Some(lane) => format!("/{}", lane.rounds_planned),
                    None => String::new(),
                };
                self.status = Some(self.with_point(&format!("{} round {}{of}", transport.name(), round + 1)));
            }
            RunEvent::SetupFailed(message) => {
                self.status = Some(format!("could not start: {message}"));
                self.running = false;
            }
            RunEvent::CleanupDone { deleted, left } if self.cancelling => {
                self.status = Some(format!("cancelled: deleted {deleted}, left {}", left.len()));
            }
            _ => {}
        }
        if !self.running && self.quit_after_run {
            self.quit = true;
        }
        Vec::new()
    }

    /// A report opened from a file (`--open`): in the results pane, as if just run.
    pub fn show_opened(&mut self, report: Option<Finished>) {
        if let Some(report) = report {
            self.status = Some(format!("opened {}: {}", report.run_id(), report.summary_line()));
            self.report = Some(report);
            self.results_scroll = 0;
        }
    }

    /// A run of either target ended: its table, the history, and kept for later.
    fn finished(&mut self, report: Finished) -> Vec<Effect> {
        if let Some(live) = &mut self.live {
            live.finish();
        }
        self.running = false;
        self.confirm_quit = false; // nothing left to confirm
        let cancelled = std::mem::take(&mut self.cancelling);
        // "cancelling: stopping …" would outlive the stop it speaks of.
        self.status = Some(match cancelled {
            true => format!("cancelled: {}", report.summary_line()),
            false => report.summary_line(),
        });
        self.history.push(report.clone());
        self.report = Some(report.clone());
        self.results_scroll = 0;
        if self.quit_after_run {
            self.quit = true;
        }
        let mut effects = vec![Effect::SaveRun(Box::new(report.clone()))];
        effects.extend(self.point_finished(report, cancelled));
        effects
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            return self.ctrl_c();
        }
        if self.export_prompt.is_some() {
            return self.export_key(key);
        }
        if self.editing() {
            match key.code {
                KeyCode::Enter => {
                    self.form.accept();
                    // A sentence about a field that is now right is stale.
                    if self.form.checked.is_ok() && self.status.as_deref().is_some_and(|s| s.starts_with("cannot run:"))
                    {
                        self.status = None;
                    }
                }
                KeyCode::Esc => self.form.revert(),
                _ => self.form.edit(&Event::Key(key)),
            }
            return Vec::new();
        }
        if self.confirm_quit {
            self.confirm_quit = false;
            return match key.code {
                KeyCode::Char('y') | KeyCode::Char('q') => self.ctrl_c(),
                _ => {
                    self.status = Some("quit cancelled: the run goes on".into());
                    Vec::new()
                }
            };
        }
        if self.help {
            self.help = false;
            return Vec::new();
        }
        match key.code {
            KeyCode::Char('?') => self.help = true,
            KeyCode::Char('q') => return self.quit_key(),
            KeyCode::Char('r') | KeyCode::F(5) => return self.start_run(),
            KeyCode::Esc if self.running => return self.cancel(),
            KeyCode::Esc if self.pane == Pane::History => self.pane = Pane::Run,
            KeyCode::Char('h') => {
                self.pane = if self.pane == Pane::History { Pane::Run } else { Pane::History };
            }
            KeyCode::Char('e') => return self.export(),
            KeyCode::Char('s') => self.toggle_sweep(),
            KeyCode::Char(']') => self.results_scroll = self.results_scroll.saturating_add(RESULTS_STEP),
            KeyCode::Char('[') => self.results_scroll = self.results_scroll.saturating_sub(RESULTS_STEP),
            _ if self.pane == Pane::History => self.history_key(key.code),
            _ => return self.form_key(key),
        }
        Vec::new()
    }

    /// A key for the form; a new target is remembered at once (a later
    /// session opens on it), not only when a run starts.
    fn form_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let target = self.form.options.target.clone();
        match key.code {
            KeyCode::Tab | KeyCode::Down | KeyCode::Char('j') => self.form.move_by(1),
            KeyCode::BackTab | KeyCode::Up | KeyCode::Char('k') => self.form.move_by(-1),
            KeyCode::PageDown => self.form.move_by(FORM_PAGE),
            KeyCode::PageUp => self.form.move_by(-FORM_PAGE),
            KeyCode::Home => self.form.move_to_end(false),
            KeyCode::End => self.form.move_to_end(true),
            KeyCode::Enter => self.form.activate(),
            KeyCode::Char(' ') => self.form.flip(),
            KeyCode::Left => self.form.step_choice(-1),
            KeyCode::Right => self.form.step_choice(1),
            _ => {}
        }
        if self.form.options.target == target {
            return Vec::new();
        }
        if !self.running {
            // The last run's lanes belong to the other target; the live pane
            // says what the new one will run instead.
            self.live = None;
        }
        self.sweep_for_new_target();
        vec![Effect::SaveTarget(self.form.options.target.clone())]
    }

    fn history_key(&mut self, code: KeyCode) {
        self.results_scroll = 0; // another run shown, from its top
        match code {
            KeyCode::Up => self.history.move_by(-1),
            KeyCode::Down => self.history.move_by(1),
            KeyCode::Char(' ') => self.history.toggle_mark(),
            _ => {}
        }
    }

    fn start_run(&mut self) -> Vec<Effect> {
        if self.running {
            self.status = Some("a run is going: Esc cancels it".into());
            return Vec::new();
        }
        let checked = match self.form.checked.clone() {
            Ok(checked) => checked,
            Err(error) => {
                if let Some(index) = self.form.fields().iter().position(|f| f.key == error.field) {
                    self.form.select_field(index);
                }
                let said = self.form.error_message().unwrap_or_else(|| error.message.clone());
                self.status = Some(format!("cannot run: {said}"));
                return Vec::new();
            }
        };
        // The sweep was checked with the form (`checked` is its refusal).
        if let Ok(Some(sweep)) = self.form.sweep() {
            return self.start_sweep(sweep);
        }
        self.begin(&checked);
        let notes = checked.notes();
        self.running = true;
        self.pane = Pane::Run;
        self.run_started_s = self.now_s;
        self.status = notes.first().cloned().or_else(|| Some("connecting".into()));
        vec![Effect::SaveForm(Box::new(self.form.options.clone())), Effect::StartRun(Box::new(checked))]
    }

    fn cancel(&mut self) -> Vec<Effect> {
        if !self.running || self.cancelling {
            return Vec::new();
        }
        self.cancelling = true;
        let sweep = if self.sweep_run.is_some() { "; the sweep ends, keeping the points finished" } else { "" };
        self.status = Some(format!("cancelling: {}{sweep}", self.stopping));
        vec![Effect::CancelRun]
    }

    /// The live pane, and what a cancel will say, for the run `planned` starts.
    pub(super) fn begin(&mut self, planned: &crate::targets::Planned) {
        self.live = Some(crate::tui::live::Live::new(planned.lane_plan()));
        self.stopping = super::fields::in_form_words(&planned.stopping_sentence(), &self.form.options.target);
    }

    fn quit_key(&mut self) -> Vec<Effect> {
        if self.running {
            self.confirm_quit = true;
            self.status = Some("a run is going: quit anyway (cancel and clean up)? y/n".into());
        } else {
            self.quit = true;
        }
        Vec::new()
    }

    /// Ctrl-C: cancel and clean up a run first, then leave; a second one leaves at once.
    fn ctrl_c(&mut self) -> Vec<Effect> {
        if self.running {
            self.interrupted.get_or_insert(crate::signals::Interrupt::Int);
        }
        if !self.running || self.quit_after_run {
            self.quit = true;
            return Vec::new();
        }
        self.quit_after_run = true;
        self.cancel()
    }

    /// Seconds the current (or last) run has been going.
    pub fn elapsed_s(&self) -> f64 {
        (self.now_s - self.run_started_s).max(0.0)
    }

    /// The field being edited is a text field (for the cursor).
    pub fn editing_index(&self) -> Option<usize> {
        self.form.selected().filter(|&i| self.editing() && self.form.fields()[i].kind == Kind::Text)
    }
}
