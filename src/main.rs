//! Parse the command line and hand over to the app, the headless run or the
//! emulator. Errors end here as one sentence and an exit code.

use clap::{CommandFactory, FromArgMatches};
use gcs_speed_tui::cli::{Cli, Command, EmulatorArgs, EtcdArgs, EtcdCommand, Format, RunArgs};
use gcs_speed_tui::config::Environment;
use gcs_speed_tui::emulator::{Emulator, EmulatorOptions, faults};
use gcs_speed_tui::gcs::progress;
use gcs_speed_tui::gcs::runner::Runner;
use gcs_speed_tui::signals::{self, Interrupt};
use gcs_speed_tui::units;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};
use tokio_util::sync::CancellationToken;

/// Bad usage or configuration: nothing was run.
const EXIT_USAGE: u8 = 2;

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
    gcs_speed_tui::malloc::keep_freed_memory();
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
            runtime.block_on(emulator(args))
        }
        Some(Command::Etcd(EtcdArgs { command: EtcdCommand::Run(args) })) => {
            init_logging();
            runtime.block_on(etcd_run(*args))
        }
        None => runtime.block_on(gcs_speed_tui::tui::start(cli.bench.to_options(), given_on_command_line(&matches))),
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
    let config = match args.bench.to_options().validate(&Environment::from_process()) {
        Ok(config) => config,
        Err(error) => return usage_error(error),
    };
    // Open the output first: a typo in its path should not cost a whole run.
    let mut output = match open_output(&args.output) {
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
    let stopping = match config.workload {
        gcs_speed_tui::config::Workload::Upload => "stopping uploads and deleting what this run created",
        gcs_speed_tui::config::Workload::Download | gcs_speed_tui::config::Workload::W1r3 => {
            "stopping reads and deleting what this run created"
        }
    };
    let runner = Runner::new(config, &connected, events, cancel.clone());
    let interrupted = Arc::new(OnceLock::new());
    let ledger = runner.ledger();
    let remains = Remains { stopping, noun: "object(s)", names: Box::new(move || ledger.names()) };
    tokio::spawn(cancel_on_interrupt(signals::interrupts(), cancel, remains, interrupted.clone()));
    let report = runner.run().await;
    let _ = printer.await;
    let text = match args.format {
        Format::Table => report.to_table(),
        Format::Json => report.to_json() + "\n",
        Format::Csv => report.to_csv(),
    };
    write_report(&mut output, &text, interrupted.get(), report.succeeded())
}

/// Writes the report; the exit code says how the run ended (an interrupt's,
/// 1 for failures, 0 when all went well).
fn write_report(output: &mut Box<dyn Write>, text: &str, interrupted: Option<&Interrupt>, succeeded: bool) -> ExitCode {
    if let Err(error) = output.write_all(text.as_bytes()).and_then(|_| output.flush()) {
        eprintln!("error: cannot write the report: {error}");
        return ExitCode::FAILURE;
    }
    if let Some(signal) = interrupted {
        return ExitCode::from(signal.exit_code());
    }
    if succeeded { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// `etcd run`: bad input and an unreachable or refusing cluster end before
/// anything is written; a run's failures exit 1 after the report.
async fn etcd_run(args: gcs_speed_tui::etcd::options::EtcdRunArgs) -> ExitCode {
    use gcs_speed_tui::etcd::runner::{ClientRuntime, EtcdRunner};
    let config = match args.validate() {
        Ok(config) => config,
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
    let client = match ClientRuntime::new(args.client_threads()) {
        Ok(client) => client,
        Err(error) => return usage_error(error),
    };
    let runner = match client.run(EtcdRunner::connect(config, cancel.clone(), say)).await {
        Ok(runner) => runner,
        Err(error) => return usage_error(error),
    };
    let mut output = match open_output(&args.output) {
        Ok(output) => output,
        Err(message) => return usage_error(message),
    };
    let interrupted = Arc::new(OnceLock::new());
    let prefix = runner.run_prefix();
    let remains = Remains {
        stopping: "stopping requests and deleting this run's keys",
        noun: "key prefix(es)",
        names: Box::new(move || vec![format!("etcd keys under {prefix}")]),
    };
    tokio::spawn(cancel_on_interrupt(signals::interrupts(), cancel, remains, interrupted.clone()));
    let report = client.run(runner.run()).await;
    let text = match args.format {
        Format::Table => report.to_table(),
        Format::Json => report.to_json() + "\n",
        Format::Csv => report.to_csv(),
    };
    write_report(&mut output, &text, interrupted.get(), report.succeeded())
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

/// What this emulator does to traffic, said at start so a shaped or faulty
/// server is never mistaken for a plain one.
fn emulator_settings(args: &EmulatorArgs) -> String {
    let mut parts = vec![
        format!("latency {}", args.latency.as_deref().unwrap_or("none")),
        format!("bandwidth {}", args.bandwidth.as_deref().unwrap_or("unlimited")),
        format!("window {}", args.window),
    ];
    parts.push(if args.faults.is_empty() { "no faults".into() } else { format!("faults {}", args.faults.join(", ")) });
    parts.push(if args.retain { "bytes kept (--retain)".into() } else { "bytes checked, not kept".into() });
    format!("settings: {}", parts.join(", "))
}

/// First Ctrl-C (or SIGTERM, SIGHUP): stop uploads and clean up, then report.
/// A second: leave at once, naming what may be left.
/// How a target's run is cancelled, in words: what stops, what a second
/// Ctrl-C may leave ("object(s)"), and its names as they stand then.
struct Remains {
    stopping: &'static str,
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

async fn emulator(args: EmulatorArgs) -> ExitCode {
    let latency = match args.latency.as_deref().map(units::parse_duration).transpose() {
        Ok(latency) => latency.unwrap_or_default(),
        Err(error) => return usage_error(format!("--latency: {error}")),
    };
    let bandwidth = match args.bandwidth.as_deref().map(units::parse_rate).transpose() {
        Ok(rate) => rate,
        Err(error) => return usage_error(format!("--bandwidth: {error}")),
    };
    let window = match units::parse_size(&args.window) {
        Ok(size) if (65_535..=(1u64 << 31) - 1).contains(&size) => size as u32,
        _ => return usage_error(format!("--window: '{}' must be a size from 64KiB to 2GiB, like 8MiB", args.window)),
    };
    let mut rules = Vec::new();
    for spec in &args.faults {
        match faults::parse_rule(spec) {
            Ok(rule) => rules.push(rule),
            Err(error) => return usage_error(format!("--fault: {error}")),
        }
    }
    if args.http_port != 0 && args.http_port == args.grpc_port {
        return usage_error(format!(
            "--http-port and --grpc-port are both {}: the JSON API and gRPC need a port each",
            args.http_port
        ));
    }
    let settings = emulator_settings(&args);
    let options = EmulatorOptions {
        host: args.host,
        http_port: args.http_port,
        grpc_port: args.grpc_port,
        buckets: args.buckets,
        retain: args.retain,
        latency,
        bandwidth,
        faults: rules,
        stream_window: window,
        ..EmulatorOptions::default()
    };
    let emulator = match Emulator::start(options).await {
        Ok(emulator) => emulator,
        Err(error) => return usage_error(format!("cannot start the emulator: {error}")),
    };
    let grpc = emulator.grpc_addr();
    println!("json={} grpc={grpc}", emulator.json_url());
    let _ = std::io::stdout().flush();
    if !args.host.is_loopback() {
        eprintln!("warning: bound to {}: anyone who can reach this address can use the emulator", args.host);
    }
    eprintln!(
        "GCS emulator ready (Ctrl-C to stop).\n  gcs-speed-tui run --endpoint {json} --grpc-endpoint {grpc}\n  \
         STORAGE_EMULATOR_HOST={json} STORAGE_EMULATOR_HOST_GRPC={grpc} gcs-speed-tui run\n  \
         curl -X POST '{json}/storage/v1/b?project=p' -H 'content-type: application/json' -d '{{\"name\":\"my-bucket\"}}'",
        json = emulator.json_url()
    );
    eprintln!("  {settings}");
    let signal = signals::interrupts().recv().await;
    emulator.shutdown();
    let store = emulator.store();
    let created = store.objects_created.load(std::sync::atomic::Ordering::Relaxed);
    let stored = store.bytes_stored.load(std::sync::atomic::Ordering::Relaxed);
    let injected = emulator.faults().injected.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!(
        "emulator stopped: {created} object(s) created ({}), {} still stored, {injected} fault(s) injected",
        units::format_size(stored),
        store.object_count()
    );
    match signal {
        Some(Interrupt::Int) | None => ExitCode::SUCCESS,
        Some(other) => ExitCode::from(other.exit_code()),
    }
}
