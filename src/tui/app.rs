//! The app's state and its one update function (Elm style). `update` never
//! does I/O: it returns the effects for the event loop to carry out.

use super::form::{Access, FIELDS, Form};
use super::history::History;
use super::live::Live;
use crate::config::{BenchConfig, Environment, Options};
use crate::events::RunEvent;
use crate::report::RunReport;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

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
}

#[derive(Debug, PartialEq)]
pub enum Effect {
    StartRun(Box<BenchConfig>),
    CancelRun,
    SaveForm(Box<Options>),
    Export { path: String, contents: String },
}

pub struct App {
    pub form: Form,
    pub pane: Pane,
    pub help: bool,
    pub live: Option<Live>,
    pub report: Option<RunReport>,
    pub history: History,
    pub status: Option<String>,
    /// A run is going (or cleaning up after a cancel).
    pub running: bool,
    pub cancelling: bool,
    pub run_started_s: f64,
    pub now_s: f64,
    pub confirm_quit: bool,
    /// Quit once the running run has cleaned up.
    pub quit_after_run: bool,
    pub quit: bool,
    pub color: bool,
}

impl App {
    pub fn new(options: Options, env: Environment, color: bool) -> Self {
        Self {
            form: Form::new(options, env),
            pane: Pane::Run,
            help: false,
            live: None,
            report: None,
            history: History::default(),
            status: None,
            running: false,
            cancelling: false,
            run_started_s: 0.0,
            now_s: 0.0,
            confirm_quit: false,
            quit_after_run: false,
            quit: false,
            color,
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
            RunEvent::SetupFailed(message) => {
                self.status = Some(format!("could not start: {message}"));
                self.running = false;
            }
            RunEvent::CleanupDone { deleted, left } if self.cancelling => {
                self.status = Some(format!("cancelled: deleted {deleted}, left {}", left.len()));
            }
            RunEvent::Finished(report) => {
                self.running = false;
                if !self.cancelling {
                    self.status = Some(report.summary_line());
                }
                self.cancelling = false;
                self.history.push((*report).clone());
                self.report = Some(*report);
            }
            _ => {}
        }
        if !self.running && self.quit_after_run {
            self.quit = true;
        }
        Vec::new()
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('c') {
            return self.ctrl_c();
        }
        if self.editing() {
            match key.code {
                KeyCode::Enter => self.form.accept(),
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
            _ if self.pane == Pane::History => self.history_key(key.code),
            _ => self.form_key(key),
        }
        Vec::new()
    }

    fn form_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Tab | KeyCode::Down => self.form.move_by(1),
            KeyCode::BackTab | KeyCode::Up => self.form.move_by(-1),
            KeyCode::Enter => self.form.activate(),
            KeyCode::Char(' ') => self.form.flip(),
            KeyCode::Left => self.form.step_choice(-1),
            KeyCode::Right => self.form.step_choice(1),
            _ => {}
        }
    }

    fn history_key(&mut self, code: KeyCode) {
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
        let config = match &self.form.checked {
            Ok(config) => config.clone(),
            Err(error) => {
                if let Some(index) = FIELDS.iter().position(|f| f.key == error.field) {
                    self.form.selected = index;
                }
                self.status = Some(format!("cannot run: {}", error.message));
                return Vec::new();
            }
        };
        self.live = Some(Live::new(&config));
        self.running = true;
        self.pane = Pane::Run;
        self.run_started_s = self.now_s;
        self.status = config.notes.first().cloned().or_else(|| Some("connecting".into()));
        vec![Effect::SaveForm(Box::new(self.form.options.clone())), Effect::StartRun(Box::new(config))]
    }

    fn cancel(&mut self) -> Vec<Effect> {
        if !self.running || self.cancelling {
            return Vec::new();
        }
        self.cancelling = true;
        self.status = Some("cancelling: stopping uploads and deleting what this run created".into());
        vec![Effect::CancelRun]
    }

    fn quit_key(&mut self) -> Vec<Effect> {
        if self.running {
            self.confirm_quit = true;
            self.status = Some("a run is going: quit anyway (cancel and clean up)? y/n".into());
            Vec::new()
        } else {
            self.quit = true;
            Vec::new()
        }
    }

    /// Ctrl-C: cancel and clean up a run first, then leave; a second one leaves at once.
    fn ctrl_c(&mut self) -> Vec<Effect> {
        if !self.running || self.quit_after_run {
            self.quit = true;
            return Vec::new();
        }
        self.quit_after_run = true;
        self.cancel()
    }

    fn export(&mut self) -> Vec<Effect> {
        let report = match self.pane {
            Pane::History => self.history.selected_run(),
            Pane::Run => self.report.as_ref(),
        };
        match report {
            Some(report) => {
                let path = format!("gcs-speed-tui-{}.json", report.run_id);
                vec![Effect::Export { contents: report.to_json() + "\n", path }]
            }
            None => {
                self.status = Some("nothing to export yet: press r to run".into());
                Vec::new()
            }
        }
    }

    /// Seconds the current (or last) run has been going.
    pub fn elapsed_s(&self) -> f64 {
        (self.now_s - self.run_started_s).max(0.0)
    }

    /// The field being edited is a text field (for the cursor).
    pub fn editing_index(&self) -> Option<usize> {
        self.editing().then_some(self.form.selected).filter(|&i| matches!(FIELDS[i].access, Access::Text(_)))
    }
}
