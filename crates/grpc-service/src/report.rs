//! A finished `grpc run` and its renderings: a table with the verdict,
//! JSON, and CSV (one row per round).

use crate::config::ServiceConfig;
use crate::mapping::{Body, Mapping};
use engine::calls::host_part::HostPart;
use engine::calls::report::{CallCleanup, CallLoad, CallSettings, CallsReport};
use engine::finished::Leftovers;
use engine::plan::TransportKind;
use engine::report::plural;
use units::RateUnit;

/// What the cleanup method did.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct CleanupCall {
    /// `pkg.Service/Method`; empty: none was given.
    pub method: String,
    pub called: bool,
    pub error: Option<String>,
}

impl CleanupCall {
    pub fn none() -> Self {
        CleanupCall { method: String::new(), called: false, error: None }
    }
}

/// The run as configured, for reading the report later.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct GrpcSettings {
    /// `etcdserverpb.KV/Put`.
    pub method: String,
    /// Where the types came from: the .proto files or the descriptor set.
    pub schema: String,
    /// The request template, as given.
    pub data: String,
    pub grpc_endpoint: String,
    pub http_endpoint: String,
    /// `POST /v3/kv/put (body *)`, or `connect POST /pkg.Service/Method`.
    pub http_mapping: String,
    pub ignore_fields: Vec<String>,
    /// The headers' names (their values may be secrets).
    pub headers: Vec<String>,
    /// `none`, or `google: service_account SA from --credentials KEY (cloud-platform)`:
    /// whose tokens signed the calls in (never a token).
    #[serde(default)]
    pub sign_in: String,
    #[serde(flatten)]
    pub load: CallLoad,
}

pub use engine::calls::report::Ran;

/// A finished `grpc run`: the report every target of calls writes.
pub type GrpcReport = CallsReport<GrpcSettings, CleanupCall>;

/// One host of a merged report, as its own report had it.
pub type GrpcHostPart = HostPart<CleanupCall>;

/// How the report says the mapping.
pub fn mapping_said(mapping: &Mapping) -> String {
    match mapping {
        Mapping::Connect { path } => format!("connect POST {path}"),
        Mapping::Rule { verb, path, body, .. } => {
            let body = match body {
                Body::None => String::new(),
                Body::All => " (body *)".into(),
                Body::Field(field) => format!(" (body {field})"),
            };
            format!("{verb} {}{body}", path.text())
        }
    }
}

impl GrpcSettings {
    /// The run as configured, as its report keeps it.
    pub fn of(config: &ServiceConfig) -> Self {
        let reach = &config.reach;
        let schedule = &config.schedule;
        GrpcSettings {
            method: config.method_name(),
            schema: config.schema.clone(),
            data: config.data.clone(),
            grpc_endpoint: reach.grpc_endpoint.clone(),
            http_endpoint: reach.http_endpoint.clone(),
            http_mapping: config.mapping.as_ref().map_or("none: gRPC alone".into(), mapping_said),
            ignore_fields: config.ignore_fields.clone(),
            headers: reach.headers.iter().map(|(name, _)| name.clone()).chain(config.call_headers.names()).collect(),
            sign_in: config.sign_in.as_ref().map_or("none".into(), |s| s.said()),
            load: CallLoad {
                clients: config.clients,
                requests: config.requests,
                conns: reach.conns,
                tls: reach.grpc_endpoint.starts_with("https://"),
                transports: schedule.transports.clone(),
                iterations: schedule.iterations,
                warmup: config.warmup,
                client_threads: config.client_threads,
                open_loop: schedule.open_loop,
            },
        }
    }
}

impl CallSettings for GrpcSettings {
    const TARGET: &'static str = "grpc";
    const KIND: &'static str = "a gRPC service";
    const SERVICE: &'static str = "any gRPC service";

    fn load(&self) -> &CallLoad {
        &self.load
    }

    fn unit(&self) -> RateUnit {
        RateUnit::Calls
    }

    fn operation(&self) -> &'static str {
        "call"
    }

    fn paced_work(&self) -> &'static str {
        "call"
    }

    fn request_said(&self) -> &'static str {
        "call"
    }

    fn item(&self) -> &'static str {
        "call"
    }

    fn rate_header(&self) -> &'static str {
        "Calls/s"
    }

    fn server_cpu(&self) -> Option<&'static str> {
        None
    }

    fn heading(&self) -> String {
        let http = match self.load.transports.contains(&TransportKind::Json) {
            true => format!(", HTTP/JSON {} at {}", self.http_mapping, self.http_endpoint),
            false => String::new(),
        };
        // Open loop, the pacer sends a round's calls and --max-in-flight,
        // not the clients, bounds how many are out at once.
        let load = match &self.load.open_loop {
            Some(open) => {
                // Reports before rounds were slices of time sent clients x requests.
                let calls =
                    open.round_s.map_or(self.load.clients as u64 * self.load.requests as u64, |_| open.per_round());
                format!("{} a round at {}", plural(calls as usize, "call"), open.said())
            }
            None => {
                format!(
                    "{} x {} a round",
                    plural(self.load.clients as usize, "client"),
                    plural(self.load.requests as usize, "call")
                )
            }
        };
        format!(
            "{}: gRPC at {}{http}; {load}, client on {}",
            self.method,
            self.grpc_endpoint,
            plural(self.load.client_threads, "thread")
        )
    }

    fn latency_said(&self) -> String {
        match self.load.open_loop {
            Some(_) => "p50-p99.9: latency per call from its intended start, over the complete rounds",
            None => "p50-p99.9: latency per call, over the complete rounds",
        }
        .into()
    }

    fn work_said(&self) -> String {
        format!("{} calls", self.method)
    }

    /// `etcdserverpb.KV/Put x3 10 clients x 1000`.
    fn key_options(&self, rounds: u32) -> String {
        let clients = plural(self.load.clients as usize, "client");
        format!("{} x{rounds} {clients} x {}", self.method, self.load.requests)
    }

    /// `etcdserverpb.KV/Put 127.0.0.1:2379`.
    fn short_target(&self) -> String {
        let endpoint = &self.grpc_endpoint;
        format!("{} {}", self.method, endpoint.split("://").last().unwrap_or(endpoint))
    }

    fn place(&self) -> String {
        format!("{} at {} and {}", self.method, self.grpc_endpoint, self.http_endpoint)
    }

    fn alone_said(&self) -> String {
        self.method.clone()
    }

    /// Against what, calling what.
    fn csv_columns(&self) -> (&'static str, Vec<String>) {
        ("target,method", vec![self.grpc_endpoint.clone(), self.method.clone()])
    }
}

impl CallCleanup for CleanupCall {
    fn error(&self) -> Option<&String> {
        self.error.as_ref()
    }

    fn said(&self) -> String {
        match (&self.error, self.called, self.method.is_empty()) {
            (_, _, true) => "cleanup: none asked (--cleanup-method): whatever the calls changed is kept".into(),
            (Some(error), _, _) => format!("cleanup: {} failed: {error}", self.method),
            (None, false, _) => format!("cleanup off: {} was not called", self.method),
            (None, true, _) => format!("cleanup: {} answered", self.method),
        }
    }

    /// What the cleanup method failed to delete is named by the method; what
    /// it deleted is not counted (its answer need not say), and only a
    /// method not called on purpose (`--cleanup=false`) keeps anything.
    fn leftovers(&self) -> Leftovers {
        let left = self.error.iter().map(|_| format!("what {} would have deleted", self.method)).collect();
        Leftovers { deleted: 0, left, kept: usize::from(!self.method.is_empty() && !self.called) }
    }

    fn merged(parts: &[GrpcHostPart]) -> Self {
        CleanupCall {
            method: parts[0].cleanup.method.clone(),
            called: parts.iter().all(|p| p.cleanup.called),
            error: parts.iter().find_map(|p| p.cleanup.error.as_ref().map(|e| format!("{}: {e}", p.host))),
        }
    }
}
