//! The GCS target's glue in the registry: what the front ends (CLI, app,
//! tests, benches) run a GCS benchmark against. The built-in emulator is
//! started here, and `--emulator-fault` parsed by its grammar, so that the
//! GCS target never imports the server it is tested against.

use crate::config::{BenchConfig, ConfigError, Environment, Options, Target, Workload, flag_error};
use crate::emulator::faults::{Fault, parse_rule};
use crate::emulator::{Emulator, EmulatorOptions};
use crate::gcs::target::{Connected, SetupError};

/// `options` validated as GCS validates them, and its `--emulator-fault`
/// parsed by the emulator's own grammar, which the GCS crate does not know:
/// one sentence (exit 2, or the form's field marked) for either mistake.
pub fn checked(options: &Options, env: &Environment) -> Result<BenchConfig, ConfigError> {
    let config = options.validate(env)?;
    parse_faults(&options.emulator_fault)?;
    Ok(config)
}

pub async fn connect(config: &BenchConfig) -> Result<Connected, SetupError> {
    let (server, urls) = built_in(config).await?;
    let mut connected = crate::gcs::target::connect(config, urls).await?;
    connected.server = server;
    Ok(connected)
}

/// The built-in emulator when the configuration goes to it, started (kept
/// alive by the first value), and its JSON and gRPC URLs.
pub async fn built_in(config: &BenchConfig) -> Result<(Option<Server>, Option<(String, String)>), SetupError> {
    if config.target != Target::BuiltIn {
        return Ok((None, None));
    }
    // Reads (and appends, read back as they grow) need the bytes back;
    // uploads alone keep memory flat without them.
    let retain = config.workload.reads() || config.workload == Workload::Append;
    let faults = parse_faults(config.emulator_fault.as_deref().unwrap_or_default())
        .map_err(|error| SetupError::Emulator(std::io::Error::other(error.message)))?;
    let options = EmulatorOptions { faults, retain, ..EmulatorOptions::default() };
    let emulator = Emulator::start(options).await.map_err(SetupError::Emulator)?;
    let urls = (emulator.json_url(), emulator.grpc_url());
    Ok((Some(Box::new(emulator)), Some(urls)))
}

/// `--emulator-fault` by the emulator's own grammar: none for empty text.
pub fn parse_faults(text: &str) -> Result<Vec<(Fault, u64)>, ConfigError> {
    match text.trim() {
        "" => Ok(Vec::new()),
        spec => Ok(vec![parse_rule(spec).map_err(flag_error("emulator_fault"))?]),
    }
}

/// A server kept running for as long as this is held.
pub type Server = Box<dyn std::any::Any + Send + Sync>;

#[cfg(test)]
mod tests {
    /// The engine tells the client's CPU from the built-in emulator's by the
    /// name the emulator gives its threads: the two must agree.
    #[test]
    fn the_engine_knows_the_emulator_threads_by_their_name() {
        assert_eq!(engine::cpu::IN_PROCESS_SERVER_THREADS, gcs_emulator::THREAD_NAME);
    }
}
