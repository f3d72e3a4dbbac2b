//! `gcs-speed-tui etcd run`: the study's options (`-c`, `-n`, `-put`,
//! `-watch`, `-user`), spelled for this tool, and the schedule flags every
//! target shares.

use super::client::Reach;
use clap::{Args, ValueEnum};
use engine::plan::Schedule;
use engine::plan::flags::{ConfigError, fail, parse_calls_schedule, parse_count};
use schedule_flags::ScheduleArgs;
use target_api::flags::{CertAndKey, TlsFlags};

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Each client puts its requests one after another.
    Put,
    /// Each client reads keys written before the rounds.
    Range,
    /// A watcher on the run's prefix per transport, fed by puts over gRPC.
    Watch,
}

#[derive(Args, Debug, Clone)]
pub struct EtcdRunArgs {
    /// etcd client URLs, comma-separated; requests go round-robin.
    #[arg(long, value_name = "URL[,URL...]", default_value = "http://127.0.0.1:2379")]
    pub endpoints: String,
    /// put: each client sends puts one after another; range: reads of keys the run writes first; watch: one watcher per transport while puts (over gRPC) write to its prefix
    #[arg(long, value_enum, default_value_t = Mode::Put)]
    pub mode: Mode,
    /// Concurrent clients (the study's -c).
    #[arg(long, value_name = "N", default_value = "10")]
    pub clients: String,
    /// Requests per client per round (the study's -n).
    #[arg(long, value_name = "N", default_value = "8000")]
    pub requests: String,
    /// gRPC channels the clients share (HTTP/1.1 opens what it needs, and that is counted).
    #[arg(long, value_name = "N", default_value = "1")]
    pub conns: String,
    /// Bytes of each key after the run's prefix.
    #[arg(long, value_name = "BYTES", default_value = "8")]
    pub key_size: String,
    /// Bytes of each value.
    #[arg(long, value_name = "BYTES", default_value = "256")]
    pub value_size: String,
    /// Keys are drawn from this many (range mode writes them all first); every
    /// round draws the same ones, so rounds do the same work. Watch puts a key per event.
    #[arg(long, value_name = "N", default_value = "10000")]
    pub key_space: String,
    /// Keys in order 0, 1, 2, ... instead of at random from the key space.
    #[arg(long)]
    pub sequential_keys: bool,
    /// User to authenticate as (with --password), on both transports.
    #[arg(long, value_name = "NAME")]
    pub user: Option<String>,
    /// The user's password (or set ETCD_PASSWORD, kept out of shell history).
    #[arg(long, value_name = "PASSWORD", env = "ETCD_PASSWORD", hide_env_values = true)]
    pub password: Option<String>,
    #[command(flatten)]
    pub tls: TlsFlags,
    /// Keys are PREFIX/RUN-ID/...; cleanup deletes exactly PREFIX/RUN-ID/.
    #[arg(long, value_name = "PREFIX", default_value = "gcs-speed-tui")]
    pub prefix: String,
    /// Threads the client runs on (default: half the CPUs, at least one, so
    /// that etcd on the same machine keeps the other half).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub client_threads: Option<u16>,
    /// Last, because its flags print under their own heading.
    #[command(flatten)]
    pub schedule: ScheduleArgs,
}

/// A validated etcd run.
#[derive(Clone, Debug, PartialEq)]
pub struct EtcdConfig {
    pub reach: Reach,
    pub mode: Mode,
    pub clients: u32,
    pub requests: u32,
    pub key_size: usize,
    pub value_size: usize,
    pub key_space: u32,
    pub sequential_keys: bool,
    pub prefix: String,
    pub schedule: Schedule,
    pub client_threads: usize,
    pub warmup: bool,
    pub cleanup: bool,
    pub notes: Vec<String>,
}

/// Requests in the warmup round, per client.
pub const WARMUP_REQUESTS: u32 = 100;
/// etcd refuses requests above 1.5 MiB by default.
const MAX_REQUEST_BYTES: usize = 1536 * 1024;

/// `--user` and `--password`.
type UserPassword = (String, String);

/// A size: a number of bytes as etcd counts them (`256`), or with a unit
/// as `run --size` takes it (`1KiB`, `1MiB`).
fn parse_bytes(text: &str, field: &'static str, min: usize, max: usize) -> Result<usize, ConfigError> {
    let flag = field.replace('_', "-");
    let bytes = text.trim().parse::<usize>().ok().or_else(|| units::parse_size(text).ok().map(|n| n as usize));
    match bytes {
        Some(n) if (min..=max).contains(&n) => Ok(n),
        _ => fail(
            field,
            format!(
                "--{flag} takes a size from {} to {}, like 256 or 1KiB (not '{text}')",
                units::format_size(min as u64),
                units::format_size(max as u64)
            ),
        ),
    }
}

impl EtcdConfig {
    /// What a cancel does, said as it starts.
    pub fn stopping_sentence(&self) -> String {
        match self.cleanup {
            true => "stopping requests and deleting this run's keys".into(),
            false => "stopping requests and keeping this run's keys (--cleanup=false)".into(),
        }
    }

    /// How the headless progress words this run's rounds: operations, at
    /// ops/s (events/s for watch).
    pub fn round_words(&self) -> engine::events::RoundWords {
        let (unit, what) = match self.mode {
            Mode::Put => (units::RateUnit::Ops, "puts"),
            Mode::Range => (units::RateUnit::Ops, "ranges"),
            Mode::Watch => (units::RateUnit::Events, "events"),
        };
        let items = self.clients * self.requests;
        engine::events::RoundWords {
            unit,
            amount: engine::events::Amount::Count(what),
            items,
            noun: "request",
            parts: None,
        }
    }
}

impl EtcdRunArgs {
    pub fn client_threads(&self) -> usize {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.client_threads.map_or((cpus / 2).max(1), usize::from)
    }

    pub fn validate(&self) -> Result<EtcdConfig, ConfigError> {
        let mut notes = Vec::new();
        let endpoints = self.endpoints()?;
        let tls = endpoints[0].starts_with("https://");
        let clients = parse_count(&self.clients, "clients", 1, 10_000)?;
        let requests = parse_count(&self.requests, "requests", 1, 100_000_000)?;
        let conns = parse_count(&self.conns, "conns", 1, 1024)?;
        // HTTP/JSON over HTTP/1.1 takes a connection a client; gRPC its channels.
        let what = format!("--clients {clients}'s connections");
        engine::descriptors::fit(u64::from(clients) + u64::from(conns), &what)
            .map_err(|message| ConfigError { field: "clients", message })?;
        let (key_size, value_size, key_space) = self.keys()?;
        let (user, identity) = self.credentials(tls)?;
        let prefix = self.prefix.trim().trim_matches('/').to_string();
        if prefix.is_empty() || prefix.len() > 256 {
            return fail(
                "prefix",
                "--prefix needs a name besides slashes, up to 256 characters, like gcs-speed-tui: the run's keys live under it",
            );
        }
        let schedule = parse_calls_schedule(&engine::schedule_text!(self.schedule), &mut notes)?;
        let given = self.requests.trim() != "8000";
        let requests = engine::plan::requests_per_client(&schedule, clients, requests, given, &mut notes);
        Ok(EtcdConfig {
            reach: Reach { endpoints, cacert: self.tls.cacert.clone(), identity, user, conns },
            mode: self.mode,
            clients,
            requests,
            key_size,
            value_size,
            key_space,
            sequential_keys: self.sequential_keys,
            prefix,
            schedule,
            client_threads: self.client_threads(),
            warmup: self.schedule.warmup,
            cleanup: self.schedule.cleanup,
            notes,
        })
    }

    /// The client URLs: each http:// or https:// with a host and no path,
    /// all of one scheme.
    fn endpoints(&self) -> Result<Vec<String>, ConfigError> {
        let endpoints: Vec<String> = self
            .endpoints
            .split(',')
            .map(|e| e.trim().trim_end_matches('/').to_string())
            .filter(|e| !e.is_empty())
            .collect();
        if endpoints.is_empty() {
            return fail("endpoints", "--endpoints is empty: give etcd's client URL, like http://127.0.0.1:2379");
        }
        for endpoint in &endpoints {
            let Some(rest) = endpoint.strip_prefix("http://").or(endpoint.strip_prefix("https://")) else {
                return fail(
                    "endpoints",
                    format!("--endpoints '{endpoint}' needs http:// or https://, like http://127.0.0.1:2379"),
                );
            };
            if rest.is_empty() || rest.contains('/') {
                return fail(
                    "endpoints",
                    format!(
                        "--endpoints '{endpoint}' has a path or no host: give the client URL alone, like http://127.0.0.1:2379"
                    ),
                );
            }
        }
        if endpoints.iter().any(|e| e.starts_with("https://")) != endpoints.iter().all(|e| e.starts_with("https://")) {
            return fail("endpoints", "--endpoints mixes http:// and https://: a cluster speaks one of them");
        }
        Ok(endpoints)
    }

    /// Key size, value size and key space, checked together against etcd's
    /// request limit.
    fn keys(&self) -> Result<(usize, usize, u32), ConfigError> {
        let key_size = parse_bytes(&self.key_size, "key_size", 1, 4096)?;
        let value_size = parse_bytes(&self.value_size, "value_size", 0, MAX_REQUEST_BYTES)?;
        let key_space = parse_count(&self.key_space, "key_space", 1, 10_000_000)?;
        if key_size < 8 && (key_space as u64) > 10u64.pow(key_size as u32) {
            return fail(
                "key_space",
                format!("--key-space {key_space} needs longer keys than --key-size {key_size}: raise --key-size"),
            );
        }
        if key_size + value_size > MAX_REQUEST_BYTES - 1024 {
            return fail("value_size", "--key-size plus --value-size must stay under 1.5 MiB, etcd's request limit");
        }
        Ok((key_size, value_size, key_space))
    }

    /// The user and password, and the client certificate and key, each in
    /// pairs; TLS files only for https:// endpoints.
    fn credentials(&self, tls: bool) -> Result<(Option<UserPassword>, Option<CertAndKey>), ConfigError> {
        let user = match (&self.user, &self.password) {
            (Some(user), Some(password)) => Some((user.clone(), password.clone())),
            (None, None) => None,
            (Some(_), None) => return fail("password", "--user needs --password (or ETCD_PASSWORD)"),
            (None, Some(_)) => return fail("user", "--password (or ETCD_PASSWORD) needs --user"),
        };
        Ok((user, self.tls.identity(tls, "--endpoints")?))
    }
}
