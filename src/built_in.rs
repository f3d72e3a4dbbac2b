//! The GCS emulator built into this binary, handed to the target that runs
//! against it (`engine::built_in::BuiltInServer`): its fault grammar and
//! its start on loopback.

use crate::emulator::faults::parse_rule;
use crate::emulator::{Emulator, EmulatorOptions};
use engine::built_in::{BuiltInServer, Started};

pub struct BuiltInEmulator;

/// The one built-in emulator.
pub static BUILT_IN: BuiltInEmulator = BuiltInEmulator;

impl BuiltInServer for BuiltInEmulator {
    fn check_fault(&self, text: &str) -> Result<(), String> {
        parse_rule(text.trim()).map(|_| ())
    }

    fn start(&self, fault: &str, retain: bool) -> Started {
        let faults = match fault.trim() {
            "" => Ok(Vec::new()),
            spec => parse_rule(spec).map(|rule| vec![rule]).map_err(std::io::Error::other),
        };
        Box::pin(async move {
            let options = EmulatorOptions { faults: faults?, retain, ..EmulatorOptions::default() };
            let emulator = Emulator::start(options).await?;
            let (json, grpc) = (emulator.json_url(), emulator.grpc_url());
            Ok((Box::new(emulator) as engine::built_in::Server, json, grpc))
        })
    }
}

#[cfg(test)]
mod tests {
    /// The engine tells the client's CPU from the built-in emulator's by the
    /// name the emulator gives its threads: the two must agree.
    #[test]
    fn the_engine_knows_the_emulator_threads_by_their_name() {
        assert_eq!(engine::cpu::IN_PROCESS_SERVER_THREADS, gcs_emulator::THREAD_NAME);
    }
}
