//! A finished etcd run and its renderings: a table with the verdict, JSON,
//! and CSV (one row per round).

use super::options::{EtcdConfig, Mode};
use engine::calls::host_part::HostPart;
use engine::calls::report::{CallCleanup, CallLoad, CallSettings, CallsReport};
use engine::finished::Leftovers;
use engine::report::plural;
use units::RateUnit;

pub use engine::calls::said::format_ms;

/// What the run did to the keys it wrote.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct KeysCleanup {
    /// Exactly this prefix was deleted: the run's own.
    pub prefix: String,
    pub deleted: u64,
    /// `--cleanup=false`: the keys are still there.
    pub kept: bool,
    pub error: Option<String>,
}

/// The run as configured, for reading the report later.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct EtcdSettings {
    pub endpoints: Vec<String>,
    pub mode: Mode,
    #[serde(flatten)]
    pub load: CallLoad,
    pub key_size: usize,
    pub value_size: usize,
    pub key_space: u32,
    pub sequential_keys: bool,
    pub user: Option<String>,
}

pub use engine::calls::report::Ran;
pub use engine::calls::said::Verdict;

/// A finished etcd run: the report every target of calls writes.
pub type EtcdReport = CallsReport<EtcdSettings, KeysCleanup>;

/// One host of a merged report, as its own report had it.
pub type EtcdHostPart = HostPart<KeysCleanup>;

impl EtcdSettings {
    /// The run as configured, as its report keeps it.
    pub fn of(config: &EtcdConfig) -> Self {
        let reach = &config.reach;
        EtcdSettings {
            endpoints: reach.endpoints.clone(),
            mode: config.mode,
            load: CallLoad {
                clients: config.clients,
                requests: config.requests,
                conns: reach.conns,
                tls: reach.endpoints[0].starts_with("https://"),
                transports: config.schedule.transports.clone(),
                iterations: config.schedule.iterations,
                warmup: config.warmup,
                client_threads: config.client_threads,
                open_loop: config.schedule.open_loop,
            },
            key_size: config.key_size,
            value_size: config.value_size,
            key_space: config.key_space,
            sequential_keys: config.sequential_keys,
            user: reach.user.as_ref().map(|(name, _)| name.clone()),
        }
    }
}

impl CallSettings for EtcdSettings {
    const TARGET: &'static str = "etcd";
    const KIND: &'static str = "an etcd";
    const SERVICE: &'static str = "etcd";

    fn load(&self) -> &CallLoad {
        &self.load
    }

    fn unit(&self) -> RateUnit {
        if self.mode == Mode::Watch { RateUnit::Events } else { RateUnit::Ops }
    }

    fn operation(&self) -> &'static str {
        match self.mode {
            Mode::Put => "put",
            Mode::Range => "range",
            Mode::Watch => "watch",
        }
    }

    /// A watch run paces its puts.
    fn paced_work(&self) -> &'static str {
        if self.mode == Mode::Range { "range" } else { "put" }
    }

    fn request_said(&self) -> &'static str {
        match self.mode {
            Mode::Put => "put",
            Mode::Range => "range",
            Mode::Watch => "watch request",
        }
    }

    fn item(&self) -> &'static str {
        if self.mode == Mode::Watch { "event" } else { "op" }
    }

    fn rate_header(&self) -> &'static str {
        if self.mode == Mode::Watch { "Events/s" } else { "Ops/s" }
    }

    fn server_cpu(&self) -> Option<&'static str> {
        Some("etcd CPU")
    }

    fn heading(&self) -> String {
        // Open loop the pacer sends a round's arrivals over the clients'
        // connections (reports before rounds were slices of time: clients x requests).
        let load = match self.load.open_loop.filter(|open| open.round_s.is_some()) {
            Some(open) => format!(
                "{} a round at {} over {}",
                plural(open.per_round() as usize, "request"),
                open.said(),
                plural(self.load.clients as usize, "client")
            ),
            None => {
                format!("{} x {} requests a round", plural(self.load.clients as usize, "client"), self.load.requests)
            }
        };
        format!(
            "etcd {} at {}: {load}, {} B keys, {} B values, client on {}",
            mode_name(self.mode),
            self.endpoints.join(","),
            self.key_size,
            self.value_size,
            plural(self.load.client_threads, "thread")
        )
    }

    fn latency_said(&self) -> String {
        match (self.mode == Mode::Watch, self.load.open_loop.is_some()) {
            (true, true) => "p50-p99.9: per event, from its put's intended start to its arrival, over the complete rounds",
            (true, false) => {
                "p50-p99.9: delivery per event from its put's answer, over the complete rounds (0 when the event came first)"
            }
            (false, true) => "p50-p99.9: latency per request from its intended start, over the complete rounds",
            (false, false) => "p50-p99.9: latency per request, over the complete rounds",
        }
        .into()
    }

    fn work_said(&self) -> String {
        format!("etcd {}", self.operation())
    }

    /// `put x3 10 clients x 8000, 256 B values`.
    fn key_options(&self, rounds: u32) -> String {
        let clients = plural(self.load.clients as usize, "client");
        format!("{} x{rounds} {clients} x {}, {} B values", self.operation(), self.load.requests, self.value_size)
    }

    /// `etcd 127.0.0.1:2379`: the endpoints without their schemes.
    fn short_target(&self) -> String {
        let hosts: Vec<&str> = self.endpoints.iter().map(|e| e.split("://").last().unwrap_or(e)).collect();
        format!("etcd {}", hosts.join(","))
    }

    fn place(&self) -> String {
        format!("etcd {:?}", self.endpoints)
    }

    fn alone_said(&self) -> String {
        format!("etcd {}", mode_name(self.mode))
    }

    /// Against what, doing what.
    fn csv_columns(&self) -> (&'static str, Vec<String>) {
        ("target,mode", vec![self.endpoints.join(","), self.operation().to_string()])
    }

    fn merge_notes(&self, hosts: usize) -> Vec<String> {
        let note = "etcd CPU per op: not merged, each host read the CPU of the whole cluster (every host's requests)";
        if hosts > 1 { vec![note.into()] } else { Vec::new() }
    }
}

impl CallCleanup for KeysCleanup {
    fn error(&self) -> Option<&String> {
        self.error.as_ref()
    }

    fn said(&self) -> String {
        match (&self.error, self.kept) {
            (Some(error), _) => format!("cleanup failed: {error}; the run's keys are under {}", self.prefix),
            (None, true) => format!("cleanup off: the run's keys are kept under {}", self.prefix),
            (None, false) => format!("cleanup: deleted {} under {}", plural(self.deleted as usize, "key"), self.prefix),
        }
    }

    /// Keys left behind are named by the prefix that holds them.
    fn leftovers(&self) -> Leftovers {
        let left = if self.error.is_some() { vec![format!("etcd keys under {}", self.prefix)] } else { Vec::new() };
        Leftovers { deleted: self.deleted as usize, left, kept: usize::from(self.kept) }
    }

    fn merged(parts: &[EtcdHostPart]) -> Self {
        KeysCleanup {
            prefix: parts.iter().map(|p| p.cleanup.prefix.as_str()).collect::<Vec<_>>().join(" "),
            deleted: parts.iter().map(|p| p.cleanup.deleted).sum(),
            kept: parts.iter().any(|p| p.cleanup.kept),
            error: parts.iter().find_map(|p| p.cleanup.error.as_ref().map(|e| format!("{}: {e}", p.host))),
        }
    }
}

pub(crate) fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Put => "put",
        Mode::Range => "range",
        Mode::Watch => "watch (puts over gRPC, watched over each transport)",
    }
}
