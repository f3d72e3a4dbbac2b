//! The options of a run as the front ends hold them (`crate::config`). The
//! GCS options, with their validation, are the GCS crate's (`gcs::config`,
//! re-exported here for the front ends' tests and benches); the app's form,
//! which adds which target to run, is the registry's.

pub use gcs::config::*;

pub use crate::targets::FormOptions;
