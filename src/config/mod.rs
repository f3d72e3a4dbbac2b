//! The options of a run as the front ends hold them. GCS's own, with their
//! validation, are the GCS crate's (`gcs::config`, re-exported here); the
//! app's form adds which target to run and etcd's fields (`form`).

pub use gcs::config::*;

mod form;
pub use form::{EtcdOptions, FormOptions};

/// `options` validated as GCS validates them, and its `--emulator-fault`
/// parsed by the emulator's own grammar, which the GCS crate does not know:
/// one sentence (exit 2, or the form's field marked) for either mistake.
pub fn checked(options: &Options, env: &Environment) -> Result<BenchConfig, ConfigError> {
    let config = options.validate(env)?;
    crate::launch::parse_faults(&options.emulator_fault)?;
    Ok(config)
}
