//! What a benchmark run is asked to do. The CLI flags and the TUI form both
//! fill the same `Options` (text as typed) and get the same `BenchConfig` or
//! the same one-sentence error back.

use std::path::PathBuf;
use std::time::Duration;
use units::GIB;

pub const DEFAULT_EMULATOR_BUCKET: &str = "gcs-speed-tui-bench";
/// GCS's largest object.
const MAX_OBJECT_BYTES: u64 = 5 * 1024 * GIB;

pub use engine::plan::{Order, TransportKind};

/// What a GCS run's rounds do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Workload {
    /// Each round uploads `concurrency` new objects.
    #[default]
    Upload,
    /// Objects are uploaded once, untimed; each round reads them.
    Download,
    /// Each round uploads `concurrency` new objects (timed), then reads each
    /// of them three times (timed apart): the Go client's w1r3 benchmark.
    W1r3,
    /// Objects are uploaded once, untimed; each round each reader reads
    /// `--ranges-per-object` ranges of its object, all wanted at once.
    Ranges,
    /// Each round writes `concurrency` new objects in appends, each
    /// `--flush-every`th flushed: gRPC appendable objects, JSON a resumable
    /// upload whose chunks are the flushes.
    Append,
}

impl Workload {
    pub fn name(self) -> &'static str {
        match self {
            Workload::Upload => "upload",
            Workload::Download => "download",
            Workload::W1r3 => "w1r3",
            Workload::Ranges => "ranges",
            Workload::Append => "append",
        }
    }

    /// Its rounds read objects.
    pub fn reads(self) -> bool {
        !matches!(self, Workload::Upload | Workload::Append)
    }

    /// Its rounds read objects prepared before them (uploaded untimed, or
    /// found under --read-prefix).
    pub fn reads_prepared_objects(self) -> bool {
        matches!(self, Workload::Download | Workload::Ranges)
    }

    /// Its rounds upload objects (timed).
    pub fn writes(self) -> bool {
        matches!(self, Workload::Upload | Workload::W1r3 | Workload::Append)
    }

    /// What one item of its rounds is, for "3 of 4 uploads finished".
    pub fn noun(self) -> &'static str {
        match self {
            Workload::Upload => "upload",
            Workload::Download => "download",
            Workload::W1r3 => "transfer",
            Workload::Ranges => "ranged read",
            Workload::Append => "appended object",
        }
    }
}

/// How many times w1r3 reads each object it wrote.
pub const W1R3_READS: u32 = 3;

/// `--auth auto`'s rule in one sentence, said where no token was sent
/// (the guide's real-gcs.md, "Which runs send a token", says it at length).
pub const AUTH_AUTO_RULE: &str = "--auth auto sends tokens only to https:// endpoints that are not loopback, or where --credentials names a key; --auth gcs sends them anywhere";

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub enum JsonHttp {
    #[serde(rename = "auto")]
    Auto,
    #[serde(rename = "1.1")]
    Http1,
    #[serde(rename = "2")]
    Http2,
}

/// A validated run configuration. Read back from a report, the target and
/// what is never written (credentials, notes) take their defaults.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct BenchConfig {
    #[serde(skip)]
    pub target: Target,
    #[serde(default)]
    pub workload: Workload,
    /// Bytes per read at a random aligned offset; 0 = whole objects.
    #[serde(default)]
    pub range_size: u64,
    /// `--workload ranges`: each reader's ranges per round, and how they are read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ranges: Option<RangesPlan>,
    /// `--workload append`: the appends' size and how often they are flushed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append: Option<AppendPlan>,
    /// Read the existing objects under this prefix (read only, never deleted).
    #[serde(default)]
    pub read_prefix: Option<String>,
    pub bucket: String,
    pub transports: Vec<TransportKind>,
    pub object_size: u64,
    pub iterations: u32,
    pub concurrency: u32,
    /// Rounded up to 256 KiB; 0 = one request per object.
    pub chunk_size: u64,
    pub cleanup: bool,
    pub warmup: bool,
    pub warmup_size: u64,
    /// crc32c on JSON (x-goog-hash).
    pub json_checksum: bool,
    /// crc32c on gRPC (per message and whole object).
    pub grpc_checksum: bool,
    pub grpc_conn_pool: u32,
    #[serde(with = "seconds")]
    #[schemars(with = "f64")]
    pub timeout: Duration,
    #[serde(skip)]
    pub credentials: Option<PathBuf>,
    /// OAuth tokens on the requests: real GCS, or an endpoint with `--auth gcs`.
    #[serde(default)]
    pub auth: bool,
    /// CA certificates to trust besides the system's (`--ca-cert`, SSL_CERT_FILE).
    #[serde(default)]
    pub ca_cert: Option<PathBuf>,
    pub order: Order,
    pub prefix: String,
    pub json_http: JsonHttp,
    #[serde(with = "optional_seconds")]
    #[schemars(with = "Option<f64>")]
    pub duration: Option<Duration>,
    /// Stop when the 95% interval of the difference is at most this wide (percentage points).
    pub until_stable: Option<f64>,
    /// `--rate`: each round's objects arrive at this rate (open loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<engine::open_loop::OpenLoop>,
    /// The gRPC client's HTTP/2 stream window; `None` = adaptive.
    pub grpc_window: Option<u32>,
    pub max_retries: u32,
    #[serde(with = "seconds")]
    #[schemars(with = "f64")]
    pub retry_deadline: Duration,
    #[serde(with = "seconds")]
    #[schemars(with = "f64")]
    pub retry_initial: Duration,
    /// A request that makes no progress for this long fails (and is retried).
    #[serde(with = "seconds")]
    #[schemars(with = "f64")]
    pub request_timeout: Duration,
    /// Stop at the first failed upload.
    pub fail_fast: bool,
    /// A standing fault for the built-in emulator as typed, for the launch
    /// and for reports (`None` when none is injected).
    pub emulator_fault: Option<String>,
    /// How throughput is shown (JSON figures stay in MiB/s).
    pub rate_unit: units::RateUnit,
    /// Things said once at the start (a rounded chunk size, a default target).
    #[serde(skip)]
    pub notes: Vec<String>,
}

mod appends;
mod options;
mod ranges;
mod seconds_serde;
mod target_choice;
mod validate;

pub use appends::AppendPlan;
pub use engine::plan::Schedule;
pub use engine::plan::flags::{ConfigError, fail, flag_error, parse_count};
pub use options::Options;
pub use ranges::{MAX_RANGES_PER_OBJECT, RangeSizes, RangesPlan};
use seconds_serde::{optional_seconds, seconds};
pub use target_choice::{Environment, Target, with_scheme};

impl BenchConfig {
    /// What a cancel does, said as it starts: what stops, and what becomes
    /// of the objects (deleted, or kept with `--cleanup=false`; a read-only
    /// `--read-prefix` run created none).
    pub fn stopping_sentence(&self) -> String {
        let work = if self.workload.reads() { "reads" } else { "uploads" };
        let objects = if self.read_prefix.is_some() {
            "deleting nothing (the objects under --read-prefix are not this run's)"
        } else if self.cleanup {
            "deleting what this run created"
        } else {
            "keeping what this run created (--cleanup=false)"
        };
        format!("stopping {work} and {objects}")
    }

    /// The schedule flags, as every target has them.
    pub fn schedule(&self) -> Schedule {
        Schedule {
            transports: self.transports.clone(),
            iterations: self.iterations,
            timeout: self.timeout,
            order: self.order,
            duration: self.duration,
            until_stable: self.until_stable,
            open_loop: self.open_loop,
        }
    }

    /// Bytes one read moves: the object, or a ranged read's range.
    pub fn bytes_per_read(&self) -> u64 {
        match (&self.ranges, self.range_size) {
            (Some(plan), size) => plan.bytes_per_read(size, self.object_size),
            (None, 0) => self.object_size,
            (None, size) => size.min(self.object_size),
        }
    }

    /// Bytes one round of one transport moves: its uploads, its reads, or
    /// (w1r3) both.
    pub fn bytes_per_round(&self) -> u64 {
        let per_worker = match self.workload {
            Workload::Upload | Workload::Append => self.object_size,
            Workload::Download | Workload::Ranges => self.bytes_per_read(),
            Workload::W1r3 => self.object_size + u64::from(W1R3_READS) * self.bytes_per_read(),
        };
        per_worker * self.concurrency as u64
    }

    /// How the headless progress words this run's rounds.
    pub fn round_words(&self) -> engine::events::RoundWords {
        use engine::events::{Amount, RoundPart, RoundWords};
        let items = self.concurrency;
        let parts = (self.workload == Workload::W1r3).then_some([
            RoundPart { name: " upload", items, noun: "upload" },
            RoundPart { name: " reads", items: items * W1R3_READS, noun: "read" },
        ]);
        RoundWords { unit: self.rate_unit, amount: Amount::Bytes, items, noun: self.workload.noun(), parts }
    }

    /// How a gRPC lane reads a ranges run's ranges: `grpc-read-object`
    /// one ReadObject each, `grpc` as `--grpc-ranges` says.
    pub fn range_reads(&self, kind: TransportKind) -> crate::transport::grpc::RangeReads {
        match kind {
            TransportKind::GrpcReadObject => crate::transport::grpc::RangeReads::EachApart,
            _ => self.ranges.as_ref().map(|plan| plan.grpc).unwrap_or_default(),
        }
    }

    /// The chunk both transports' uploads use: an append run's flushes.
    pub fn upload_chunk_size(&self) -> u64 {
        self.append.map_or(self.chunk_size, |plan| plan.flush_bytes())
    }

    pub fn retry_policy(&self) -> crate::transport::RetryPolicy {
        crate::transport::RetryPolicy {
            max_retries: self.max_retries,
            deadline: self.retry_deadline,
            initial: self.retry_initial,
            ..crate::transport::RetryPolicy::default()
        }
    }
}

#[cfg(test)]
mod tests;
