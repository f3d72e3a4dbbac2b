//! The options of a run as the front ends hold them (`crate::config`). GCS's
//! own, with their validation, are the GCS crate's (`gcs::config`,
//! re-exported here); the app's form, which adds which target to run, is
//! the registry's (`crate::targets::FormOptions`, re-exported here).

pub use gcs::config::*;

pub use crate::targets::{EtcdOptions, FormOptions};
