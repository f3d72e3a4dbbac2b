//! The interactive app: a form, live per-transport throughput, the result
//! table, re-runs and history. Same runner and statistics as `run`.

pub mod app;
pub mod export;
pub mod fields;
pub mod form;
pub mod history;
pub mod live;
pub mod persist;
pub mod sweeping;
pub mod ui;

use crate::engine::events::RunEvent;
use crate::finished::Finished;
use crate::targets::{Environment, FormOptions};
use crate::targets::{Planned, Start};
use app::{App, Effect, Message};
use futures::StreamExt;
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::EventStream;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

/// About 30 frames a second, and only when something changed.
const FRAME: Duration = Duration::from_millis(33);

/// `given`: the option names the command line set, which win over the remembered form.
/// The app, with `opened` reports (`--open`) in its history and the last
/// of them in its results pane.
pub async fn start(
    command_line: FormOptions,
    given: Vec<String>,
    opened: Vec<crate::fleet::inputs::Loaded>,
) -> ExitCode {
    // A mistyped flag is the first thing to say, terminal or not.
    if let Err(error) = crate::targets::plan(&command_line, &Environment::from_process()) {
        engine::say_on_stderr!("error: {error}");
        return ExitCode::from(2);
    }
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        engine::say_on_stderr!(
            "error: the interactive app needs a terminal; in scripts use `gcs-speed-tui run` (see --help)"
        );
        return ExitCode::from(2);
    }
    let log = init_file_logging();
    let options =
        form::forget_invalid(form::merge(persist::load(), &command_line, &given), &given, &Environment::from_process());
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    // An opened sweep is drawn; its points, as any opened report, are runs of the history.
    let sweep = crate::sweep::opened::sweeps_in(&opened).pop();
    let opened: Vec<Finished> = opened.into_iter().map(|l| l.report).collect();
    let shown = opened.last().cloned();
    let mut earlier = persist::load_runs();
    // Opened reports read as earlier runs: kept elsewhere, not this session's to clean up.
    earlier.extend(opened);
    let history = history::History::with_earlier(earlier);
    let mut app = App::with_history(options, Environment::from_process(), color, history);
    app.show_opened(shown);
    app.show_sweep(sweep);
    let mut terminal = ratatui::init();
    let result = event_loop(&mut terminal, app).await;
    ratatui::restore();
    match result {
        Ok(app) => {
            if app.running {
                engine::say_on_stderr!("left during a run: what that run created (objects, keys) may remain");
            }
            for line in app.farewell() {
                engine::say_on_stderr!("{line}");
            }
            match app.interrupted {
                Some(signal) => ExitCode::from(signal.exit_code()),
                None => ExitCode::SUCCESS,
            }
        }
        Err(error) => {
            engine::say_on_stderr!(
                "error: the terminal failed: {error}{}",
                log.map(|p| format!(" (log: {})", p.display())).unwrap_or_default()
            );
            ExitCode::FAILURE
        }
    }
}

/// Logs go to a file: never to the screen being drawn.
fn init_file_logging() -> Option<std::path::PathBuf> {
    let dir = persist::config_dir()?;
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join("gcs-speed-tui.log");
    let file = std::fs::OpenOptions::new().create(true).append(true).open(&path).ok()?;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .try_init()
        .ok()?;
    Some(path)
}

/// Runs until the user quits; returns a message for after the screen is restored.
async fn event_loop(terminal: &mut DefaultTerminal, mut app: App) -> std::io::Result<App> {
    let clock = Instant::now();
    let mut interrupts = crate::signals::interrupts();
    let mut keys = EventStream::new();
    let (run_tx, mut run_rx) = mpsc::channel::<RunEvent>(1024);
    let (done_tx, mut done_rx) = mpsc::channel(1);
    let mut cancel = CancellationToken::new();
    let mut frame = tokio::time::interval(FRAME);
    frame.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut dirty = true;
    // What drawing costs, logged at exit (the UI must stay cheap beside a run).
    let (mut frames, mut drawing) = (0u64, Duration::ZERO);
    loop {
        let mut effects = Vec::new();
        tokio::select! {
            event = keys.next() => match event {
                Some(Ok(event)) => {
                    effects = app.update(Message::Terminal(event));
                    dirty = true;
                }
                Some(Err(error)) => return Err(error),
                None => break,
            },
            Some(event) = run_rx.recv() => {
                // Drain everything waiting: the screen shows the newest state.
                effects.extend(app.update(Message::Run(event)));
                while let Ok(event) = run_rx.try_recv() {
                    effects.extend(app.update(Message::Run(event)));
                }
                dirty = true;
            }
            Some(done) = done_rx.recv() => {
                // Whatever progress came before the end is shown first.
                while let Ok(event) = run_rx.try_recv() {
                    effects.extend(app.update(Message::Run(event)));
                }
                effects.extend(app.update(Message::RunFinished(done)));
                dirty = true;
            }
            Some(signal) = interrupts.recv() => {
                effects = app.update(Message::Interrupt(signal));
                dirty = true;
            }
            _ = frame.tick() => {
                app.update(Message::Tick(clock.elapsed().as_secs_f64()));
                if dirty || app.running {
                    let started = Instant::now();
                    terminal.draw(|f| ui::render(f, &app))?;
                    drawing += started.elapsed();
                    if frames == 0 {
                        tracing::info!(after_ms = clock.elapsed().as_secs_f64() * 1e3, "first frame drawn");
                    }
                    frames += 1;
                    dirty = false;
                }
            }
        }
        for effect in effects {
            carry_out(effect, &mut app, &mut cancel, (&run_tx, &done_tx));
        }
        if app.quit {
            break;
        }
    }
    tracing::info!(frames, drawing_s = drawing.as_secs_f64(), "frames drawn");
    Ok(app)
}

/// Does what the app asked: start or cancel a run, remember the form, the
/// target or a run, or write an export (whose outcome the app is told).
fn carry_out(effect: Effect, app: &mut App, cancel: &mut CancellationToken, run: (&mpsc::Sender<RunEvent>, &Done)) {
    match effect {
        Effect::StartRun(planned) => {
            *cancel = CancellationToken::new();
            tokio::spawn(run_planned(*planned, run.0.clone(), run.1.clone(), cancel.clone()));
        }
        Effect::CancelRun => cancel.cancel(),
        Effect::SaveForm(options) => {
            if let Err(error) = persist::save(&options) {
                tracing::warn!("could not remember the form: {error}");
            }
        }
        Effect::SaveTarget(target) => {
            if let Err(error) = persist::save_target(&target) {
                tracing::warn!("could not remember the target: {error}");
            }
        }
        Effect::SaveRun(report) => {
            if let Err(error) = persist::save_run(&report) {
                tracing::warn!("could not keep the run for the history: {error}");
            }
        }
        Effect::Export { path, contents } => {
            let status = match std::fs::write(&path, contents) {
                Ok(()) => format!("exported to {}", std::path::absolute(&path).unwrap_or(path.into()).display()),
                Err(error) => format!("could not write {path}: {error}"),
            };
            app.update(Message::Status(status));
        }
    }
}

/// Where a run's report goes: the app applies every event sent before it.
type Done = mpsc::Sender<Result<Finished, String>>;

/// Any target's run: its events to the app as they happen, its report
/// (or why it could not start) when it ends.
async fn run_planned(planned: Planned, events: mpsc::Sender<RunEvent>, done: Done, cancel: CancellationToken) {
    // The app cancels with its own key, and its farewell names what is left.
    let start = Start { events, cancel, host: None, begin: Default::default() };
    let result = planned.run(start, Box::new(|_| Ok(()))).await.map(Finished::new);
    let _ = done.send(result).await;
}
