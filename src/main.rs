//! Parse the command line and hand over to the app, the headless run or the
//! emulator. Errors end here as one sentence and an exit code.

use clap::{CommandFactory, FromArgMatches};
use gcs_speed_tui::cli::{Cli, Command};
use gcs_speed_tui::config::Environment;
use gcs_speed_tui::headless::{open_output, usage_error, write_report};
use gcs_speed_tui::targets::Action;
use std::io::IsTerminal;
use std::process::ExitCode;

mod emulator_command;

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
    // Many connections need many descriptors: the soft limit goes up to the hard one.
    engine::descriptors::raise_to_hard_limit();
    // Before any HTTP client of ours or of a library is built.
    gcs_speed_tui::tls::install_crypto_provider();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            engine::say_on_stderr!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match cli.command {
        Some(Command::Target(command)) => {
            init_logging();
            let env = Environment::from_process();
            match command.action(&env) {
                Ok(Action::Run(form, report)) => runtime.block_on(gcs_speed_tui::headless::start(*form, &report, &env)),
                Ok(Action::Check(Err(error))) => usage_error(error),
                Ok(Action::Check(Ok(checks))) => ExitCode::from(runtime.block_on(checks)),
                Err(error) => usage_error(error),
            }
        }
        Some(Command::Emulator(args)) => {
            init_logging();
            runtime.block_on(emulator_command::emulator(*args))
        }
        Some(Command::Merge(args)) => report_command(gcs_speed_tui::fleet::command::merge(&args), &args.output),
        Some(Command::Compare(args)) => report_command(gcs_speed_tui::fleet::command::compare(&args), &None),
        Some(Command::Completions { shell }) => gcs_speed_tui::cli::shell::completions(shell),
        Some(Command::Man) => gcs_speed_tui::cli::shell::man(),
        None => {
            let opened = match gcs_speed_tui::fleet::inputs::load(&cli.open) {
                Ok(opened) => opened,
                Err(error) => return usage_error(error),
            };
            let form = match cli.bench.form() {
                Ok(form) => form,
                Err(error) => return usage_error(error),
            };
            runtime.block_on(gcs_speed_tui::tui::start(form, given_on_command_line(&matches), opened))
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
        engine::say_on_stderr!("warning: {warning}");
    }
    let mut output = match open_output(output) {
        Ok(output) => output,
        Err(message) => return usage_error(message),
    };
    write_report(&mut output, &said.text, None, 0)
}
