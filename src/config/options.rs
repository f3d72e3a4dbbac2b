//! The options as a person types them (flags or form fields), before validation.

use etcd::options::{EtcdRunArgs, Mode};
use std::path::PathBuf;

/// The options as typed (flags or form fields), before validation.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Options {
    pub bucket: String,
    pub transports: String,
    pub size: String,
    pub iterations: String,
    pub concurrency: String,
    pub chunk_size: String,
    pub cleanup: bool,
    pub warmup: bool,
    pub warmup_size: String,
    pub checksum: String,
    pub disable_grpc_autochecksum: bool,
    /// upload | download.
    pub workload: String,
    /// Bytes per ranged read; "0" reads whole objects.
    pub range_size: String,
    /// Existing objects to read (download workload); "" uploads them first.
    pub read_prefix: String,
    pub grpc_conn_pool: String,
    pub timeout: String,
    #[serde(skip)]
    pub credentials: String,
    /// Per session, like `emulator_fault`: a remembered "use the emulator"
    /// would quietly keep a later `--bucket` run off GCS.
    #[serde(skip)]
    pub emulator: bool,
    pub endpoint: String,
    pub grpc_endpoint: String,
    /// auto | gcs | none: tokens for endpoints.
    pub auth: String,
    /// Extra CA certificates (PEM) to trust.
    pub ca_cert: String,
    pub order: String,
    pub prefix: String,
    pub json_http: String,
    /// Run rounds until this much time has passed (instead of `iterations`).
    pub duration: String,
    /// Stop once the 95% interval is this narrow (percentage points).
    pub until_stable: String,
    /// The gRPC client's HTTP/2 stream window, or "auto".
    pub grpc_window: String,
    pub max_retries: String,
    pub retry_deadline: String,
    pub retry_initial: String,
    pub request_timeout: String,
    pub fail_fast: bool,
    /// A standing fault for the built-in emulator: `return-503:every=5`.
    /// Never remembered: a fault must not come back unasked on the next launch.
    #[serde(skip)]
    pub emulator_fault: String,
    /// The unit throughput is shown in: MiB/s, MB/s or Gbit/s.
    pub rate_unit: String,
    /// What the app benchmarks: `gcs` (uploads) or `etcd`.
    pub target: String,
    /// The etcd target's own options (the schedule's are the fields above).
    pub etcd: EtcdOptions,
}

/// `etcd run`'s own options as typed in the app's form.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct EtcdOptions {
    pub endpoints: String,
    pub mode: String,
    pub clients: String,
    pub requests: String,
    pub conns: String,
    pub key_size: String,
    pub value_size: String,
    pub key_space: String,
    pub sequential_keys: bool,
    pub user: String,
    /// Never remembered.
    #[serde(skip)]
    pub password: String,
    pub cacert: String,
    pub cert: String,
    pub key: String,
    pub prefix: String,
}

impl Default for EtcdOptions {
    fn default() -> Self {
        Self {
            endpoints: "http://127.0.0.1:2379".into(),
            mode: "put".into(),
            clients: "10".into(),
            requests: "8000".into(),
            conns: "1".into(),
            key_size: "8".into(),
            value_size: "256".into(),
            key_space: "10000".into(),
            sequential_keys: false,
            user: String::new(),
            password: String::new(),
            cacert: String::new(),
            cert: String::new(),
            key: String::new(),
            prefix: "gcs-speed-tui".into(),
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            bucket: String::new(),
            transports: "both".into(),
            size: "64MiB".into(),
            iterations: "3".into(),
            concurrency: "1".into(),
            chunk_size: "16MiB".into(),
            cleanup: true,
            warmup: true,
            warmup_size: "1MiB".into(),
            checksum: "crc32c".into(),
            workload: "upload".into(),
            range_size: "0".into(),
            read_prefix: String::new(),
            disable_grpc_autochecksum: false,
            grpc_conn_pool: "0".into(),
            timeout: "10m".into(),
            credentials: String::new(),
            auth: "auto".into(),
            ca_cert: String::new(),
            emulator: false,
            endpoint: String::new(),
            grpc_endpoint: String::new(),
            order: "interleaved".into(),
            prefix: "gcs-speed-tui".into(),
            json_http: "auto".into(),
            duration: String::new(),
            until_stable: String::new(),
            grpc_window: "auto".into(),
            max_retries: "5".into(),
            retry_deadline: "2m".into(),
            retry_initial: "1s".into(),
            request_timeout: "60s".into(),
            fail_fast: false,
            emulator_fault: String::new(),
            rate_unit: "MiB/s".into(),
            target: "gcs".into(),
            etcd: EtcdOptions::default(),
        }
    }
}

impl Options {
    /// The app's form as `etcd run` flags: the schedule's fields are shared
    /// with the GCS target's, the rest are etcd's own.
    pub fn etcd_run_args(&self) -> EtcdRunArgs {
        let o = self;
        let e = &o.etcd;
        let given = |text: &str| Some(text.trim().to_string()).filter(|t| !t.is_empty());
        EtcdRunArgs {
            endpoints: e.endpoints.clone(),
            mode: <Mode as clap::ValueEnum>::from_str(&e.mode, true).unwrap_or(Mode::Put),
            clients: e.clients.clone(),
            requests: e.requests.clone(),
            conns: e.conns.clone(),
            key_size: e.key_size.clone(),
            value_size: e.value_size.clone(),
            key_space: e.key_space.clone(),
            sequential_keys: e.sequential_keys,
            user: given(&e.user),
            password: given(&e.password),
            cacert: given(&e.cacert).map(PathBuf::from),
            cert: given(&e.cert).map(PathBuf::from),
            key: given(&e.key).map(PathBuf::from),
            prefix: e.prefix.clone(),
            transports: o.transports.clone(),
            iterations: o.iterations.clone(),
            duration: o.duration.clone(),
            until_stable: o.until_stable.clone(),
            order: o.order.clone(),
            warmup: o.warmup,
            timeout: o.timeout.clone(),
            cleanup: o.cleanup,
            client_threads: None,
        }
    }
}
