//! What a run is asked to do, whatever its target: which transports, in
//! which order, for how many paired rounds or how long, until which interval.

use std::time::Duration;

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub enum TransportKind {
    #[serde(rename = "http-json")]
    Json,
    #[serde(rename = "grpc")]
    Grpc,
    /// gRPC once more, asked another way (GCS ranges: one `ReadObject`
    /// per range), so that two gRPC ways can be paired in one run.
    #[serde(rename = "grpc-read-object")]
    GrpcReadObject,
}

impl TransportKind {
    /// Every kind, for parsing their names.
    pub const ALL: [TransportKind; 3] = [TransportKind::Json, TransportKind::Grpc, TransportKind::GrpcReadObject];

    pub fn name(self) -> &'static str {
        match self {
            TransportKind::Json => "http-json",
            TransportKind::Grpc => "grpc",
            TransportKind::GrpcReadObject => "grpc-read-object",
        }
    }

    /// The kind a name (as `--transports` and `--fail-if` take it) stands for.
    pub fn named(name: &str) -> Option<TransportKind> {
        match name.trim() {
            "http-json" | "json" | "http" => Some(TransportKind::Json),
            other => TransportKind::ALL.into_iter().find(|kind| kind.name() == other),
        }
    }

    /// Spoken over gRPC (whichever way it asks).
    pub fn is_grpc(self) -> bool {
        self != TransportKind::Json
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// Transports alternate round by round, so drift hits both alike.
    Interleaved,
    /// All rounds of one transport, then the other (the original tool).
    Sequential,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    pub transports: Vec<TransportKind>,
    pub iterations: u32,
    pub timeout: Duration,
    pub order: Order,
    pub duration: Option<Duration>,
    /// Stop when the 95% interval is at most this wide (percentage points).
    pub until_stable: Option<f64>,
    /// `--rate`: arrivals sent at an offered rate (open loop); `None`: closed loop.
    pub open_loop: Option<crate::open_loop::OpenLoop>,
}

impl Schedule {
    /// A round's calls: `clients` x `requests` closed loop, its arrivals open loop.
    pub fn calls_per_round(&self, clients: u32, requests: u32) -> u64 {
        self.open_loop.as_ref().map_or(u64::from(clients) * u64::from(requests), |open| open.per_round())
    }
}

pub mod flags;
pub use flags::{ConfigError, ScheduleText, parse_schedule, requests_per_client};
