//! Google Cloud Storage as a target: uploads over the JSON API (reqwest) and
//! the gRPC v2 API (tonic), to real GCS or the built-in emulator, on the
//! shared engine.

pub mod auth;
pub mod config;
pub mod doctor;
pub mod flags;
pub mod front;
pub mod live;
pub mod payload;
pub mod planned;
pub mod report;
pub mod runner;
pub mod stats;
pub mod target;
pub mod transport;
mod welcome;
