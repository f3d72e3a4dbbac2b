//! gcs-speed-tui: upload the same payloads to Google Cloud Storage over the
//! JSON API and over gRPC, and say honestly which was faster.

pub mod auth;
pub mod cli;
pub mod compare;
pub mod config;
pub mod cpu;
pub mod crc;
pub mod emulator;
pub mod engine;
pub mod etcd;
pub mod events;
pub mod malloc;
pub mod netstat;
pub mod payload;
pub mod progress;
pub mod report;
pub mod runner;
pub mod signals;
pub mod stats;
pub mod target;
pub mod tls;
pub mod transport;
pub mod tui;
pub mod units;
