//! The GCS target's flags (`run`, `doctor` and the app's), spelled as the
//! original Go tool spelled them (Go-style booleans too: `--cleanup=false`).
//! Flags only fill `config::Options`; validation is the GCS crate's, so the
//! form and the CLI say the same things.

use crate::config::Options;
use clap::{ArgAction, Args};
use schedule_flags::ScheduleArgs;

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Bucket name. Without it (and without an endpoint) the built-in emulator is used.
    #[arg(long, value_name = "NAME", default_value = "", hide_default_value = true)]
    pub bucket: String,
    /// Object size with a unit: B; KiB, MiB, GiB (or K, M, G: binary); KB, MB, GB (decimal).
    #[arg(long, value_name = "SIZE", default_value = "64MiB")]
    pub size: String,
    /// Objects uploaded in parallel in each round.
    #[arg(long, value_name = "N", default_value = "1")]
    pub concurrency: String,
    /// Resumable chunk size, rounded up to 256 KiB; 0 = one request per object.
    #[arg(long, value_name = "SIZE", default_value = "16MiB")]
    pub chunk_size: String,
    /// Size of the warmup object.
    #[arg(long, value_name = "SIZE", default_value = "1MiB")]
    pub warmup_size: String,
    /// Send no crc32c on gRPC (as the Go client's DisableAutoChecksum).
    #[arg(long, value_name = "BOOL", default_value = "false", num_args = 0..=1, require_equals = true,
          default_missing_value = "true", action = ArgAction::Set, value_parser = parse_go_bool)]
    pub disable_grpc_autochecksum: bool,
    /// gRPC channels used round-robin (0 = the library default of one).
    #[arg(long, value_name = "N", default_value = "0")]
    pub grpc_conn_pool: String,
    /// A credentials file: a service account key, an authorized_user,
    /// impersonated_service_account or external_account file (else the usual
    /// environment, then Application Default Credentials).
    #[arg(long, value_name = "PATH", default_value = "", hide_default_value = true)]
    pub credentials: String,
    /// upload | download | w1r3 | ranges | append: what each round does (download:
    /// objects uploaded once, untimed, then read by every round; w1r3: each
    /// round uploads new objects, then reads each three times, with a verdict
    /// for each; ranges: objects uploaded once, untimed, then each round
    /// each reader reads many ranges of its object, all wanted at once;
    /// append: each round writes new objects in appends, flushed as
    /// --flush-every says).
    #[arg(long, value_name = "KIND", default_value = "upload")]
    pub workload: String,
    /// With --workload download, w1r3 or ranges: bytes per read, at a random
    /// aligned offset (0 = whole objects; ranges needs one).
    #[arg(long, value_name = "SIZE", default_value = "0")]
    pub range_size: String,
    /// With --workload ranges: ranges each reader wants of its object per round, at once (1-1000).
    #[arg(long, value_name = "N", default_value = "16")]
    pub ranges_per_object: String,
    /// With --workload ranges: random | sequential: each range at a random
    /// aligned offset (none twice while they fit), or one after another.
    #[arg(long, value_name = "ORDER", default_value = "random")]
    pub range_order: String,
    /// With --workload ranges: bidi | read-object: gRPC sends a reader's
    /// ranges on one BidiReadObject stream, or one ReadObject per range (JSON
    /// always sends one GET with Range per range; all of a reader's at once).
    #[arg(long, value_name = "HOW", default_value = "bidi")]
    pub grpc_ranges: String,
    /// With --workload append: bytes per append, a multiple of 256 KiB (gRPC
    /// appends to an appendable object; JSON, which has none, sends a
    /// resumable upload's chunks).
    #[arg(long, value_name = "SIZE", default_value = "256KiB")]
    pub append_size: String,
    /// With --workload append: appends per flush (each flush waits for the
    /// server to say the bytes are persisted).
    #[arg(long, value_name = "N", default_value = "1")]
    pub flush_every: String,
    /// With --workload append: on | off: on, a second gRPC stream reads each
    /// flush back as the object grows, timing when a reader has the bytes (a
    /// JSON upload cannot be read before it ends, so only gRPC does that
    /// work, and the verdict says so); off, both lanes do the same work.
    #[arg(long, value_name = "ON_OFF", default_value = "off")]
    pub read_back: String,
    /// With --workload download or ranges: read the objects that exist under PREFIX
    /// (the first --concurrency by name) instead of uploading some; they are
    /// only read, never deleted.
    #[arg(long, value_name = "PREFIX", default_value = "", hide_default_value = true)]
    pub read_prefix: String,
    /// crc32c | none: checksums on both transports.
    #[arg(long, value_name = "KIND", default_value = "crc32c")]
    pub checksum: String,
    /// Use the built-in emulator even when a bucket is given.
    #[arg(long)]
    pub emulator: bool,
    /// JSON API base URL of another emulator or endpoint: a Private Service
    /// Connect or regional endpoint (https://storage.REGION.rep.googleapis.com)
    /// takes credentials, see --auth.
    #[arg(long, value_name = "URL", default_value = "", hide_default_value = true)]
    pub endpoint: String,
    /// gRPC endpoint HOST:PORT (plaintext) or https://HOST:PORT.
    #[arg(long, value_name = "HOST:PORT", default_value = "", hide_default_value = true)]
    pub grpc_endpoint: String,
    /// auto | gcs | none: whether --endpoint and --grpc-endpoint get OAuth
    /// tokens (auto: gcs when --credentials names a file or for https to a
    /// host that is not loopback, none for loopback and plaintext).
    #[arg(long, value_name = "MODE", default_value = "auto")]
    pub auth: String,
    /// A PEM file of CA certificates to trust on both transports, besides the
    /// system's (a private CA in front of a PSC endpoint, the emulator's
    /// --tls CA); SSL_CERT_FILE is read the same way.
    #[arg(long, value_name = "FILE", default_value = "", hide_default_value = true)]
    pub ca_cert: String,
    /// Object name prefix: objects are PREFIX/RUN-ID/TRANSPORT/ROUND-WORKER.
    #[arg(long, value_name = "PREFIX", default_value = "gcs-speed-tui")]
    pub prefix: String,
    /// HTTP version of the JSON API: auto | 1.1 | 2.
    #[arg(long, value_name = "VERSION", default_value = "auto")]
    pub json_http: String,
    /// gRPC client HTTP/2 stream window (connection: twice). The default is
    /// where an adaptive window's ramp ends, so reads are at speed from the
    /// first round; "auto" starts small and adapts it (BDP probing).
    #[arg(long, value_name = "SIZE", default_value = "16MiB")]
    pub grpc_window: String,
    /// Retries of a failed request (transient failures only: 408, 429, 5xx, resets, timeouts).
    #[arg(long, value_name = "N", default_value = "5")]
    pub max_retries: String,
    /// No retry starts later than this after an upload began.
    #[arg(long, value_name = "DURATION", default_value = "2m")]
    pub retry_deadline: String,
    /// First backoff (doubled each retry, capped at 32s, with full jitter).
    #[arg(long, value_name = "DURATION", default_value = "1s")]
    pub retry_initial: String,
    /// A request that makes no progress for this long fails (and is retried).
    #[arg(long, value_name = "DURATION", default_value = "60s")]
    pub request_timeout: String,
    /// Stop the run at the first failed upload.
    #[arg(long, value_name = "BOOL", default_value = "false", num_args = 0..=1, require_equals = true,
          default_missing_value = "true", action = ArgAction::Set, value_parser = parse_go_bool)]
    pub fail_fast: bool,
    /// A fault for the built-in emulator, to watch each transport cope: INSTRUCTION[:every=N].
    #[arg(long, value_name = "SPEC", default_value = "", hide_default_value = true)]
    pub emulator_fault: String,
    /// Unit for throughput in tables and the app: MiB/s | MB/s | Gbit/s (JSON stays in MiB/s).
    #[arg(long, value_name = "UNIT", default_value = "MiB/s")]
    pub rate_unit: String,
    /// Last, because its flags print under their own heading.
    #[command(flatten)]
    pub schedule: ScheduleArgs,
}

fn parse_go_bool(text: &str) -> Result<bool, String> {
    units::parse_bool(text)
}

impl BenchArgs {
    pub fn to_options(&self) -> Options {
        Options {
            bucket: self.bucket.clone(),
            size: self.size.clone(),
            concurrency: self.concurrency.clone(),
            chunk_size: self.chunk_size.clone(),
            warmup_size: self.warmup_size.clone(),
            checksum: self.checksum.clone(),
            workload: self.workload.clone(),
            range_size: self.range_size.clone(),
            ranges_per_object: self.ranges_per_object.clone(),
            range_order: self.range_order.clone(),
            grpc_ranges: self.grpc_ranges.clone(),
            append_size: self.append_size.clone(),
            flush_every: self.flush_every.clone(),
            read_back: self.read_back.clone(),
            read_prefix: self.read_prefix.clone(),
            disable_grpc_autochecksum: self.disable_grpc_autochecksum,
            grpc_conn_pool: self.grpc_conn_pool.clone(),
            credentials: self.credentials.clone(),
            emulator: self.emulator,
            endpoint: self.endpoint.clone(),
            grpc_endpoint: self.grpc_endpoint.clone(),
            auth: self.auth.clone(),
            ca_cert: self.ca_cert.clone(),
            prefix: self.prefix.clone(),
            json_http: self.json_http.clone(),
            grpc_window: self.grpc_window.clone(),
            max_retries: self.max_retries.clone(),
            retry_deadline: self.retry_deadline.clone(),
            retry_initial: self.retry_initial.clone(),
            request_timeout: self.request_timeout.clone(),
            fail_fast: self.fail_fast,
            emulator_fault: self.emulator_fault.clone(),
            rate_unit: self.rate_unit.clone(),
            ..Options::from_schedule(&self.schedule)
        }
    }
}

/// The schedule's fields, which GCS's options keep for its own validation,
/// as the schedule's own flags and back.
impl Options {
    /// As the flags every request-level target flattens.
    pub fn schedule_args(&self) -> ScheduleArgs {
        ScheduleArgs {
            transports: self.transports.clone(),
            iterations: self.iterations.clone(),
            duration: self.duration.clone(),
            until_stable: self.until_stable.clone(),
            rate: self.rate.clone(),
            arrivals: self.arrivals.clone(),
            max_in_flight: self.max_in_flight.clone(),
            round_time: self.round_time.clone(),
            order: self.order.clone(),
            warmup: self.warmup,
            timeout: self.timeout.clone(),
            cleanup: self.cleanup,
        }
    }

    /// These options run on `schedule` (the app's form keeps the schedule
    /// apart, for every target).
    pub fn with_schedule(&self, s: &ScheduleArgs) -> Options {
        let s = s.clone();
        Options {
            transports: s.transports,
            iterations: s.iterations,
            duration: s.duration,
            until_stable: s.until_stable,
            rate: s.rate,
            arrivals: s.arrivals,
            max_in_flight: s.max_in_flight,
            round_time: s.round_time,
            order: s.order,
            warmup: s.warmup,
            timeout: s.timeout,
            cleanup: s.cleanup,
            ..self.clone()
        }
    }

    /// The inverse of `schedule_args`: the schedule's flags, the rest at
    /// their defaults.
    pub fn from_schedule(s: &ScheduleArgs) -> Options {
        Options::default().with_schedule(s)
    }
}
