//! gcs-speed-tui: upload the same payloads to Google Cloud Storage over the
//! JSON API and over gRPC, and say honestly which was faster.

pub mod built_in;
pub mod cli;
/// The GCS options and the app's form options, as the front ends hold them.
pub use targets::config;
pub mod finished;
pub use ::engine;
pub use ::etcd;
pub use gcs_emulator as emulator;
pub use wire::connections;
pub mod fleet;
pub mod headless;
pub mod html;
pub use ::gcs;
pub use ::grpc_service;
pub mod progress;
pub mod signals;
pub mod sweep;
pub mod targets;
pub use wire::tls;
pub mod tui;
pub use ::units;
