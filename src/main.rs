//! Parse the command line and hand over to the app, the headless run or the
//! emulator. Errors end here as one sentence and an exit code.

use clap::{CommandFactory, FromArgMatches};
use gcs_speed_tui::cli::{Cli, Command, EtcdArgs, EtcdCommand, RunArgs};
use gcs_speed_tui::config::Environment;
use gcs_speed_tui::finished::Finished;
use gcs_speed_tui::gcs::progress;
use gcs_speed_tui::gcs::runner::Runner;
use gcs_speed_tui::signals::{self, Interrupt};
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
        Some(Command::Run(args)) => {
            let args = *args;
            init_logging();
            runtime.block_on(run(args))
        }
        Some(Command::Emulator(args)) => {
            init_logging();
            runtime.block_on(emulator_command::emulator(*args))
        }
        Some(Command::Doctor(args)) => {
            init_logging();
            let config = match gcs_speed_tui::config::checked(&args.bench.to_options(), &Environment::from_process()) {
                Ok(config) => config,
                Err(error) => return usage_error(error),
            };
            ExitCode::from(runtime.block_on(gcs_speed_tui::doctor::check(&config)))
        }
        Some(Command::Etcd(EtcdArgs { command: EtcdCommand::Run(args) })) => {
            init_logging();
            runtime.block_on(etcd_run(*args))
        }
        Some(Command::Merge(args)) => report_command(gcs_speed_tui::fleet::command::merge(&args), &args.output),
        Some(Command::Compare(args)) => report_command(gcs_speed_tui::fleet::command::compare(&args), &None),
        None => {
            let opened = match gcs_speed_tui::fleet::inputs::load(&cli.open) {
                Ok(opened) => opened.into_iter().map(|l| l.report).collect(),
                Err(error) => return usage_error(error),
            };
            runtime.block_on(gcs_speed_tui::tui::start(cli.bench.to_options(), given_on_command_line(&matches), opened))
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

async fn run(args: RunArgs) -> ExitCode {
    let config = match gcs_speed_tui::config::checked(&args.bench.to_options(), &Environment::from_process()) {
        Ok(config) => config,
        Err(error) => return usage_error(error),
    };
    let (start_at, host) = match args.report.start.resolve(std::time::SystemTime::now()) {
        Ok(start) => start,
        Err(error) => return usage_error(error),
    };
    let thresholds = match args.report.thresholds() {
        Ok(thresholds) => thresholds,
        Err(error) => return usage_error(error),
    };
    // Open the output first: a typo in its path should not cost a whole run.
    let mut output = match open_output(&args.report.output) {
        Ok(output) => output,
        Err(message) => return usage_error(message),
    };
    for note in &config.notes {
        eprintln!("note: {note}");
    }
    let connected = match gcs_speed_tui::launch::connect(&config).await {
        Ok(connected) => connected,
        Err(error) => return usage_error(error),
    };
    let (events, receiver) = tokio::sync::mpsc::channel(1024);
    let printer = tokio::spawn(progress::print(
        receiver,
        std::io::stderr().is_terminal(),
        config.concurrency,
        config.rate_unit,
        config.workload,
    ));
    let cancel = CancellationToken::new();
    let stopping = config.stopping_sentence();
    let runner = Runner::new(config, &connected, events, cancel.clone()).starting_at(start_at);
    let interrupted = Arc::new(OnceLock::new());
    let ledger = runner.ledger();
    let remains = Remains { stopping, noun: "object(s)", names: Box::new(move || ledger.names()) };
    tokio::spawn(cancel_on_interrupt(signals::interrupts(), cancel, remains, interrupted.clone()));
    let report = runner.run().await.host_label(host);
    let _ = printer.await;
    let succeeded = report.succeeded();
    let finished = Finished::from(report);
    let crossed = crossed_thresholds(&finished, &thresholds);
    write_report(&mut output, &args.report.text(&finished), interrupted.get(), ending(succeeded, crossed))
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

/// `etcd run`: bad input and an unreachable or refusing cluster end before
/// anything is written; a run's failures exit 1 after the report.
async fn etcd_run(command: gcs_speed_tui::cli::EtcdRunCommand) -> ExitCode {
    let (args, report_args) = (command.etcd, command.report);
    use gcs_speed_tui::etcd::runner::{ClientRuntime, EtcdRunner};
    let config = match args.validate() {
        Ok(config) => config,
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
    for note in &config.notes {
        eprintln!("note: {note}");
    }
    let cancel = CancellationToken::new();
    let say = Box::new(|line: &str| eprintln!("{line}"));
    // Small requests cost more in thread hand-offs than in work: the client
    // gets threads of its own (half the CPUs, leaving etcd on loopback the
    // rest), whose CPU alone is the client's.
    let stopping = match config.cleanup {
        true => "stopping requests and deleting this run's keys",
        false => "stopping requests and keeping this run's keys (--cleanup=false)",
    };
    let client = match ClientRuntime::new(args.client_threads()) {
        Ok(client) => client,
        Err(error) => return usage_error(error),
    };
    let runner = match client.run(EtcdRunner::connect(config, cancel.clone(), say)).await {
        Ok(runner) => runner,
        Err(error) => return usage_error(error),
    };
    let mut output = match open_output(&report_args.output) {
        Ok(output) => output,
        Err(message) => return usage_error(message),
    };
    let interrupted = Arc::new(OnceLock::new());
    let prefix = runner.run_prefix();
    let remains = Remains {
        stopping: stopping.into(),
        noun: "key prefix(es)",
        names: Box::new(move || vec![format!("etcd keys under {prefix}")]),
    };
    tokio::spawn(cancel_on_interrupt(signals::interrupts(), cancel, remains, interrupted.clone()));
    let report = client.run(runner.starting_at(start_at).run()).await.host_label(host);
    let succeeded = report.succeeded();
    let finished = Finished::from(report);
    let crossed = crossed_thresholds(&finished, &thresholds);
    write_report(&mut output, &report_args.text(&finished), interrupted.get(), ending(succeeded, crossed))
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
/// How a target's run is cancelled, in words: what stops, what a second
/// Ctrl-C may leave ("object(s)"), and its names as they stand then.
struct Remains {
    stopping: String,
    noun: &'static str,
    names: Box<dyn Fn() -> Vec<String> + Send>,
}

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
