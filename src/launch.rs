//! What the front ends (CLI, app, tests, benches) run a GCS benchmark
//! against: the built-in emulator is started here, so that the GCS target
//! never imports the server it is tested against.

use crate::config::{BenchConfig, Target};
use crate::emulator::{Emulator, EmulatorOptions};
use crate::gcs::target::{Connected, SetupError};

pub async fn connect(config: &BenchConfig) -> Result<Connected, SetupError> {
    let emulator = match config.target {
        Target::BuiltIn => {
            // Reads need the bytes back; uploads alone keep memory flat without them.
            let retain = config.workload.reads();
            let options =
                EmulatorOptions { faults: config.emulator_faults.clone(), retain, ..EmulatorOptions::default() };
            Some(Emulator::start(options).await.map_err(SetupError::Emulator)?)
        }
        _ => None,
    };
    let urls = emulator.as_ref().map(|e| (e.json_url(), format!("http://{}", e.grpc_addr())));
    let mut connected = crate::gcs::target::connect(config, urls).await?;
    connected.server = emulator.map(|e| Box::new(e) as Box<dyn std::any::Any + Send + Sync>);
    Ok(connected)
}
