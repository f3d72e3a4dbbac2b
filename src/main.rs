//! Parse the command line and hand over to the app, the headless run or the
//! emulator. Errors end here as one sentence and an exit code.

use clap::{CommandFactory, FromArgMatches};
use gcs_speed_tui::cli::{Cli, Command, ReportArgs};
use gcs_speed_tui::config::{ConfigError, Environment};
use gcs_speed_tui::finished::Finished;
use gcs_speed_tui::progress;
use gcs_speed_tui::signals::{self, Interrupt};
use gcs_speed_tui::targets::{Action, Planned, Remains, Start};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};
use tokio_util::sync::CancellationToken;

mod emulator_command;

/// Bad usage or configuration: nothing was run.
const EXIT_USAGE: u8 = 2;
/// A `--fail-if` condition held of the run.
const EXIT_CROSSED: u8 = 3;

fn main() -> ExitCode {
    let parsed = Cli::command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(error) if !error.use_stderr() => {
            let _ = error.print(); // --help, --version
            return ExitCode::SUCCESS;
        }
        Err(error) => {
            let args: Vec<String> = std::env::args().collect();
            return usage_error(gcs_speed_tui::cli::one_sentence(&error, &args));
        }
    };
    gcs_speed_tui::emulator::malloc::keep_freed_memory();
    // Before any HTTP client of ours or of a library is built.
    gcs_speed_tui::tls::install_crypto_provider();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match cli.command {
        Some(Command::Target(command)) => {
            init_logging();
            match command.action(&Environment::from_process()) {
                Action::Run(planned, report) => runtime.block_on(run(planned, &report)),
                Action::Check(Err(error)) => usage_error(error),
                Action::Check(Ok(doctor)) => ExitCode::from(runtime.block_on(doctor.check())),
            }
        }
        Some(Command::Emulator(args)) => {
            init_logging();
            runtime.block_on(emulator_command::emulator(*args))
        }
        Some(Command::Merge(args)) => report_command(gcs_speed_tui::fleet::command::merge(&args), &args.output),
        Some(Command::Compare(args)) => report_command(gcs_speed_tui::fleet::command::compare(&args), &None),
        None => {
            let opened = match gcs_speed_tui::fleet::inputs::load(&cli.open) {
                Ok(opened) => opened.into_iter().map(|l| l.report).collect(),
                Err(error) => return usage_error(error),
            };
            runtime.block_on(gcs_speed_tui::tui::start(
                cli.bench.to_options().into(),
                given_on_command_line(&matches),
                opened,
            ))
        }
    }
}

/// The options the user typed (or set through the environment), by name.
fn given_on_command_line(matches: &clap::ArgMatches) -> Vec<String> {
    use clap::parser::ValueSource;
    matches
        .ids()
        .filter(|id| {
            matches!(matches.value_source(id.as_str()), Some(ValueSource::CommandLine | ValueSource::EnvVariable))
        })
        .map(|id| id.to_string())
        .collect()
}

/// Headless logs go to stderr, filtered by RUST_LOG. Without it only this
/// tool's own warnings show: a library retrying (gcp_auth trying the metadata
/// server, say) is not the user's to read unless they ask for it; the error
/// that ends the run is said in one sentence anyway.
fn init_logging() {
    let filter =
        tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "off,gcs_speed_tui=warn".into());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
}

fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// `run` and `etcd run`: bad input and an unreachable or refusing target
/// end before anything is written; a run's failures exit 1 after the report.
async fn run(planned: Result<Planned, ConfigError>, report_args: &ReportArgs) -> ExitCode {
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
    if let Err(message) = output_folder_exists(&report_args.output) {
        return usage_error(message);
    }
    for note in planned.notes() {
        eprintln!("note: {note}");
    }
    let (events, receiver) = tokio::sync::mpsc::channel(1024);
    let printer = tokio::spawn(progress::print(receiver, std::io::stderr().is_terminal(), planned.round_words()));
    let cancel = CancellationToken::new();
    let interrupted = Arc::new(OnceLock::new());
    let start = Start { events, cancel: cancel.clone(), start_at, host: Some(host) };
    // The output opens once the target answered (nothing is written for one
    // that did not) and before any round (a typo in its path costs no run).
    let mut output = None;
    let connected = |remains: Remains| {
        output = Some(open_output(&report_args.output)?);
        tokio::spawn(cancel_on_interrupt(signals::interrupts(), cancel, remains, interrupted.clone()));
        Ok(())
    };
    let finished = match planned.run(start, connected).await {
        Ok(finished) => finished,
        Err(error) => return usage_error(error),
    };
    let _ = printer.await;
    let crossed = crossed_thresholds(&finished, &thresholds);
    let ended = ending(finished.succeeded(), crossed);
    let Some(mut output) = output else { return usage_error("the report has nowhere to go") };
    write_report(&mut output, &report_args.text(&finished), interrupted.get(), ended)
}

/// `--fail-if`: says each condition that held of the run, on stderr; true
/// if any did.
fn crossed_thresholds(finished: &Finished, thresholds: &[gcs_speed_tui::engine::threshold::Threshold]) -> bool {
    let crossed: Vec<String> = thresholds.iter().flat_map(|t| finished.crossed(t)).collect();
    for line in &crossed {
        eprintln!("fail-if: {line}");
    }
    if !thresholds.is_empty() && crossed.is_empty() {
        let checked = gcs_speed_tui::engine::report::plural(thresholds.len(), "condition");
        eprintln!("fail-if: {checked} checked, none held");
    }
    !crossed.is_empty()
}

/// Writes the report; the exit code says how the run ended (an interrupt's,
/// 1 for failures, 3 for a `--fail-if` that held, 0 when all went well).
fn write_report(output: &mut Box<dyn Write>, text: &str, interrupted: Option<&Interrupt>, ended: u8) -> ExitCode {
    if let Err(error) = output.write_all(text.as_bytes()).and_then(|_| output.flush()) {
        eprintln!("error: cannot write the report: {error}");
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

/// `merge` and `compare`: warnings on stderr, the text to its place; a
/// refusal is one sentence and exit 2.
fn report_command(
    said: Result<gcs_speed_tui::fleet::command::Said, String>,
    output: &Option<std::path::PathBuf>,
) -> ExitCode {
    let said = match said {
        Ok(said) => said,
        Err(error) => return usage_error(error),
    };
    for warning in &said.warnings {
        eprintln!("warning: {warning}");
    }
    let mut output = match open_output(output) {
        Ok(output) => output,
        Err(message) => return usage_error(message),
    };
    write_report(&mut output, &said.text, None, 0)
}

/// The report's file has a folder to go in: a typo in its path is said
/// before anything runs (the file itself is made once the target answered).
fn output_folder_exists(path: &Option<std::path::PathBuf>) -> Result<(), String> {
    let Some(path) = path.as_ref().filter(|p| p.as_os_str() != "-") else { return Ok(()) };
    let folder = path.parent().filter(|f| !f.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    match std::fs::metadata(folder) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(format!("cannot write {}: {} is not a folder", path.display(), folder.display())),
        Err(error) => Err(format!("cannot write {}: {error}", path.display())),
    }
}

/// The report's destination: a file, or stdout for none or `-`.
fn open_output(path: &Option<std::path::PathBuf>) -> Result<Box<dyn Write>, String> {
    match path {
        Some(path) if path.as_os_str() != "-" => match std::fs::File::create(path) {
            Ok(file) => Ok(Box::new(file)),
            Err(error) => Err(format!("cannot write {}: {error}", path.display())),
        },
        _ => Ok(Box::new(std::io::stdout())),
    }
}

/// First Ctrl-C (or SIGTERM, SIGHUP): stop uploads and clean up, then report.
/// A second: leave at once, naming what may be left.
async fn cancel_on_interrupt(
    mut interrupts: tokio::sync::mpsc::UnboundedReceiver<Interrupt>,
    cancel: CancellationToken,
    remains: Remains,
    received: Arc<OnceLock<Interrupt>>,
) {
    let Some(first) = interrupts.recv().await else { return };
    let _ = received.set(first);
    eprintln!("cancelling: {} (Ctrl-C again to leave at once)", remains.stopping);
    cancel.cancel();
    if let Some(second) = interrupts.recv().await {
        let left = (remains.names)();
        eprintln!("left at once: {} {} of this run may remain", left.len(), remains.noun);
        for name in left {
            eprintln!("  {name}");
        }
        std::process::exit(second.exit_code().into());
    }
}
