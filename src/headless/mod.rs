//! The headless run of any target (`run`, `etcd run`): a report to stdout
//! or a file, progress on stderr, Ctrl-C to cancel and clean up; or a sweep
//! of such runs (`--sweep`). Errors end here as one sentence and an exit code.

pub mod chart;
pub mod sweep;

use crate::cli::ReportArgs;
use crate::config::ConfigError;
use crate::finished::Finished;
use crate::progress;
use crate::signals::{self, Interrupt};
use crate::targets::{Begin, Environment, FormOptions, Planned, Remains, Start};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, OnceLock};
use tokio_util::sync::CancellationToken;

/// Bad usage or configuration: nothing was run.
pub const EXIT_USAGE: u8 = 2;
/// A `--fail-if` condition held of the run.
const EXIT_CROSSED: u8 = 3;

/// The form's run, or a sweep of runs when `--sweep` asks for one.
pub async fn start(form: FormOptions, report_args: &ReportArgs, env: &Environment) -> ExitCode {
    if report_args.sweep.is_empty() && report_args.sweep_budget.is_none() {
        return run(crate::targets::plan(&form, env), report_args).await;
    }
    sweep::run(&form, report_args, env).await
}

pub fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    engine::say_on_stderr!("error: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// `run` and `etcd run`: bad input and an unreachable or refusing target
/// end before anything is written; a run's failures exit 1 after the report.
pub async fn run(planned: Result<Planned, ConfigError>, report_args: &ReportArgs) -> ExitCode {
    let planned = match planned {
        Ok(planned) => planned,
        Err(error) => return usage_error(error),
    };
    let (start_at, host) = match report_args.start.resolve(std::time::SystemTime::now()) {
        Ok(start) => start,
        Err(error) => return usage_error(error),
    };
    let thresholds = match report_args.thresholds() {
        Ok(thresholds) => thresholds,
        Err(error) => return usage_error(error),
    };
    if let Err(message) = output_folder_exists(&report_args.output).and_then(|_| chart::check(&report_args.chart)) {
        return usage_error(message);
    }
    let samples = match engine::samples::checked_path(&report_args.samples, "records.ndjson") {
        Ok(samples) => samples,
        Err(error) => return usage_error(error),
    };
    for note in planned.notes() {
        engine::say_on_stderr!("note: {note}");
    }
    let (events, receiver) = tokio::sync::mpsc::channel(1024);
    let printer = tokio::spawn(progress::print(receiver, std::io::stderr().is_terminal(), planned.round_words()));
    let cancel = CancellationToken::new();
    let interrupted = Arc::new(OnceLock::new());
    let begin = Begin { start_at, samples };
    let start = Start { events, cancel: cancel.clone(), host: Some(host), begin };
    // The output opens once the target answered (nothing is written for one
    // that did not) and before any round (a typo in its path costs no run).
    let mut output = None;
    let connected = |remains: Remains| {
        output = Some(open_output(&report_args.output)?);
        let running = Arc::new(Mutex::new(Some(remains)));
        let said = Cancelling { what: "cancelling", kept: "", of: "run" };
        tokio::spawn(cancel_on_interrupt(signals::interrupts(), cancel, running, interrupted.clone(), said));
        Ok(())
    };
    let finished = match planned.run(start, Box::new(connected)).await {
        Ok(finished) => Finished::new(finished),
        Err(error) => return usage_error(error),
    };
    let _ = printer.await;
    let crossed = crossed_thresholds(&finished, &thresholds);
    let ended = ending(finished.succeeded(), crossed);
    let Some(mut output) = output else { return usage_error("the report has nowhere to go") };
    if let Some(path) = &report_args.chart
        && let Err(error) = chart::write(path, &finished.summary_line(), &charts::run_svg(&*finished))
    {
        engine::say_on_stderr!("error: {error}");
    }
    write_report(&mut output, &report_args.text(&finished), interrupted.get(), ended)
}

/// `--fail-if`: says each condition that held of the run, on stderr; true
/// if any did.
fn crossed_thresholds(finished: &Finished, thresholds: &[crate::engine::threshold::Threshold]) -> bool {
    let crossed: Vec<String> = thresholds.iter().flat_map(|t| finished.crossed(t)).collect();
    for line in &crossed {
        engine::say_on_stderr!("fail-if: {line}");
    }
    if !thresholds.is_empty() && crossed.is_empty() {
        let checked = crate::engine::report::plural(thresholds.len(), "condition");
        engine::say_on_stderr!("fail-if: {checked} checked, none held");
    }
    !crossed.is_empty()
}

/// Writes the report; the exit code says how the run ended (an interrupt's,
/// 1 for failures, 3 for a `--fail-if` that held, 0 when all went well).
pub fn write_report(
    output: &mut Box<dyn Write + Send>,
    text: &str,
    interrupted: Option<&Interrupt>,
    ended: u8,
) -> ExitCode {
    if let Err(error) = output.write_all(text.as_bytes()).and_then(|_| output.flush()) {
        engine::say_on_stderr!("error: cannot write the report: {error}");
        return ExitCode::FAILURE;
    }
    if let Some(signal) = interrupted {
        return ExitCode::from(signal.exit_code());
    }
    ExitCode::from(ended)
}

/// How a run ended, as its exit code: 1 when work failed (that comes
/// first), 3 when a `--fail-if` held, else 0.
fn ending(succeeded: bool, crossed: bool) -> u8 {
    match (succeeded, crossed) {
        (false, _) => 1,
        (true, true) => EXIT_CROSSED,
        (true, false) => 0,
    }
}

/// The report's file has a folder to go in: a typo in its path is said
/// before anything runs (the file itself is made once the target answered).
pub fn output_folder_exists(path: &Option<std::path::PathBuf>) -> Result<(), String> {
    let Some(path) = path.as_ref().filter(|p| p.as_os_str() != "-") else { return Ok(()) };
    let folder = path.parent().filter(|f| !f.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    match std::fs::metadata(folder) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(format!("cannot write {}: {} is not a folder", path.display(), folder.display())),
        Err(error) => Err(format!("cannot write {}: {error}", path.display())),
    }
}

/// The report's destination: a file, or stdout for none or `-`.
pub fn open_output(path: &Option<std::path::PathBuf>) -> Result<Box<dyn Write + Send>, String> {
    match path {
        Some(path) if path.as_os_str() != "-" => match std::fs::File::create(path) {
            Ok(file) => Ok(Box::new(file)),
            Err(error) => Err(format!("cannot write {}: {error}", path.display())),
        },
        _ => Ok(Box::new(std::io::stdout())),
    }
}

/// What a second interrupt must name: the leftovers of the run (or the
/// sweep's point) running, once it has connected.
pub type Running = Arc<Mutex<Option<Remains>>>;

/// How a cancel is said: of a run, or of a sweep (whose finished points
/// are kept).
pub struct Cancelling {
    /// `cancelling` or `cancelling the sweep`.
    pub what: &'static str,
    /// Said after what stops: `` or `; the points finished are reported`.
    pub kept: &'static str,
    /// Whose leftovers a second interrupt names: `run`, `point`.
    pub of: &'static str,
}

/// First Ctrl-C (or SIGTERM, SIGHUP): stop the work and clean up, then
/// report. A second: leave at once, naming what may be left.
pub async fn cancel_on_interrupt(
    mut interrupts: tokio::sync::mpsc::UnboundedReceiver<Interrupt>,
    cancel: CancellationToken,
    running: Running,
    received: Arc<OnceLock<Interrupt>>,
    said: Cancelling,
) {
    let Some(first) = interrupts.recv().await else { return };
    let _ = received.set(first);
    let stopping = running.lock().expect("not poisoned").as_ref().map(|r| r.stopping.clone());
    let stopping = stopping.unwrap_or_else(|| "nothing has started".into());
    engine::say_on_stderr!("{}: {stopping}{} (Ctrl-C again to leave at once)", said.what, said.kept);
    cancel.cancel();
    if let Some(second) = interrupts.recv().await {
        if let Some(remains) = running.lock().expect("not poisoned").as_ref() {
            let left = (remains.names)();
            let noun = remains.nouns[usize::from(left.len() != 1)];
            engine::say_on_stderr!("left at once: {} {noun} of this {} may remain", left.len(), said.of);
            for name in left {
                engine::say_on_stderr!("  {name}");
            }
        }
        std::process::exit(second.exit_code().into());
    }
}
