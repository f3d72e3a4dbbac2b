//! The GCS options as a person types them (flags or form fields), before validation.

/// The gRPC receive window unless asked otherwise: 16 MiB, where hyper's
/// adaptive (BDP) window stops growing. Started there, reads are at speed
/// from the first round; adaptive, they ramp over gigabytes (issue 40).
pub const DEFAULT_GRPC_WINDOW: &str = "16MiB";

/// The options as typed (flags or form fields), before validation.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
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
    /// `--workload ranges`: ranges per reader's object per round; random or
    /// sequential offsets; gRPC's way (bidi or read-object).
    pub ranges_per_object: String,
    pub range_order: String,
    pub grpc_ranges: String,
    /// `--workload append`: bytes per append, and appends per flush.
    pub append_size: String,
    pub flush_every: String,
    /// `--workload append`: `on` reads each gRPC flush back on a second
    /// stream (off by default: then both lanes do the same work).
    pub read_back: String,
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
    /// Open loop: arrivals per second per transport ("" for closed loop).
    pub rate: String,
    /// constant | poisson: how open-loop arrivals are spaced.
    pub arrivals: String,
    /// Open loop: requests outstanding at most; an arrival past it is dropped.
    pub max_in_flight: String,
    /// Open loop: how long each round's arrivals span ("" for the default).
    pub round_time: String,
    /// The gRPC client's HTTP/2 stream window (`DEFAULT_GRPC_WINDOW`), or "auto".
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
            ranges_per_object: "16".into(),
            range_order: "random".into(),
            grpc_ranges: "bidi".into(),
            append_size: "256KiB".into(),
            flush_every: "1".into(),
            read_back: "off".into(),
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
            rate: String::new(),
            arrivals: "constant".into(),
            max_in_flight: "1000".into(),
            round_time: String::new(),
            grpc_window: DEFAULT_GRPC_WINDOW.into(),
            max_retries: "5".into(),
            retry_deadline: "2m".into(),
            retry_initial: "1s".into(),
            request_timeout: "60s".into(),
            fail_fast: false,
            emulator_fault: String::new(),
            rate_unit: "MiB/s".into(),
        }
    }
}
