//! Command-line flags, spelled as the original Go tool spelled them (Go-style
//! booleans too: `--cleanup=false`). Flags only fill `config::Options`;
//! validation is the core's, so the form and the CLI say the same things.

use crate::config::Options;
use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "gcs-speed-tui",
    version,
    about = "Compare GCS (and etcd) over HTTP/JSON and gRPC, live in a terminal",
    long_about = "Opens the interactive app on a terminal. `run` is the headless GCS benchmark for scripts and CI; \
                  `doctor` checks, before any upload, that a run would work; `etcd run` asks the same question of \
                  etcd (its HTTP gateway against gRPC); `emulator` serves the built-in GCS emulator on its own; \
                  `merge` puts the reports of many hosts (a fleet) together; `compare` sets two saved reports side \
                  by side.\n\n\
                  With no --bucket, uploads go to the built-in loopback emulator (no GCP account needed).",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub bench: BenchArgs,
    /// Open saved reports (run --format json, or merges) in the app's
    /// results and history, beside the runs you make.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub open: Vec<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the benchmark without the interactive app and print a report.
    Run(Box<RunArgs>),
    /// Serve the built-in GCS emulator (JSON and gRPC) until Ctrl-C.
    Emulator(Box<EmulatorArgs>),
    /// Check, before any upload, that a run would work: credentials, a
    /// token, the bucket, permission to create and delete objects, and the
    /// gRPC channel; a line per step, with what to do when one fails.
    Doctor(Box<DoctorArgs>),
    /// The same question for etcd: its HTTP gateway against gRPC.
    Etcd(EtcdArgs),
    /// Merge the reports of many hosts (a fleet) into one: per-host rows,
    /// a fleet row per transport and the fleet's verdict.
    Merge(crate::fleet::command::MergeArgs),
    /// The change per transport from one saved report to another.
    Compare(crate::fleet::command::CompareArgs),
}

#[derive(Args, Debug)]
pub struct EtcdArgs {
    #[command(subcommand)]
    pub command: EtcdCommand,
}

#[derive(Subcommand, Debug)]
pub enum EtcdCommand {
    /// Puts, ranges or watches over the HTTP gateway and gRPC; prints a report.
    Run(Box<EtcdRunCommand>),
}

/// `etcd run`: etcd's flags, then how the report is written.
#[derive(Args, Debug)]
pub struct EtcdRunCommand {
    #[command(flatten)]
    pub etcd: crate::etcd::options::EtcdRunArgs,
    #[command(flatten)]
    pub report: ReportArgs,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub bench: BenchArgs,
    #[command(flatten)]
    pub report: ReportArgs,
}

/// How a run's report is written, and when the run begins: `run` and
/// `etcd run` alike.
#[derive(Args, Clone, Debug, Default)]
pub struct ReportArgs {
    #[command(flatten)]
    pub start: start::StartArgs,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Write the report to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Exit 3 when this holds of the finished run, for CI gates:
    /// '[http-json.|grpc.]METRIC OP LIMIT' with METRIC p50, p90, p99 (with a
    /// unit: 50ms), throughput (MiB/s; etcd ops/s), errors, retries or
    /// ratio (gRPC's rate over HTTP/JSON's), OP < <= > >=; repeatable. A
    /// figure the run did not measure counts as crossing.
    #[arg(long = "fail-if", value_name = "CONDITION")]
    pub fail_if: Vec<String>,
}

impl ReportArgs {
    /// The report as `--format` and `--log-markers` ask.
    pub fn text(&self, report: &crate::finished::Finished) -> String {
        crate::engine::start::marked(report.render(self.format), self.start.log_markers)
    }

    /// `--fail-if`, parsed, or the sentence that says what is wrong.
    pub fn thresholds(&self) -> Result<Vec<crate::engine::threshold::Threshold>, String> {
        self.fail_if.iter().map(|text| crate::engine::threshold::Threshold::parse(text)).collect()
    }
}

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// The same target options as `run` (--bucket, --endpoint, --credentials, --auth, --ca-cert, ...).
    #[command(flatten)]
    pub bench: BenchArgs,
}

#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Table,
    Json,
    Csv,
}

#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Bucket name. Without it (and without an endpoint) the built-in emulator is used.
    #[arg(long, value_name = "NAME", default_value = "", hide_default_value = true)]
    pub bucket: String,
    /// both | http-json | grpc
    #[arg(long, value_name = "WHICH", default_value = "both")]
    pub transports: String,
    /// Object size with a unit: B; KiB, MiB, GiB (or K, M, G: binary); KB, MB, GB (decimal).
    #[arg(long, value_name = "SIZE", default_value = "64MiB")]
    pub size: String,
    /// Timed rounds per transport.
    #[arg(long, value_name = "N", default_value = "3")]
    pub iterations: String,
    /// Objects uploaded in parallel in each round.
    #[arg(long, value_name = "N", default_value = "1")]
    pub concurrency: String,
    /// Resumable chunk size, rounded up to 256 KiB; 0 = one request per object.
    #[arg(long, value_name = "SIZE", default_value = "16MiB")]
    pub chunk_size: String,
    /// Delete the objects this run created when it ends.
    #[arg(long, value_name = "BOOL", default_value = "true", num_args = 0..=1, require_equals = true,
          default_missing_value = "true", action = ArgAction::Set, value_parser = parse_go_bool)]
    pub cleanup: bool,
    /// Upload one untimed object per transport first.
    #[arg(long, value_name = "BOOL", default_value = "true", num_args = 0..=1, require_equals = true,
          default_missing_value = "true", action = ArgAction::Set, value_parser = parse_go_bool)]
    pub warmup: bool,
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
    /// Overall time limit for the run: 10m, 30s, 500ms.
    #[arg(long, value_name = "DURATION", default_value = "10m")]
    pub timeout: String,
    /// A credentials file: a service account key, an authorized_user,
    /// impersonated_service_account or external_account file (else the usual
    /// environment, then Application Default Credentials).
    #[arg(long, value_name = "PATH", default_value = "", hide_default_value = true)]
    pub credentials: String,
    /// upload | download | w1r3: what each round does (download: objects
    /// uploaded once, untimed, then read by every round; w1r3: each round
    /// uploads new objects, then reads each three times, with a verdict for
    /// each).
    #[arg(long, value_name = "KIND", default_value = "upload")]
    pub workload: String,
    /// With --workload download or w1r3: bytes per read, at a random aligned offset
    /// (0 = whole objects).
    #[arg(long, value_name = "SIZE", default_value = "0")]
    pub range_size: String,
    /// With --workload download: read the objects that exist under PREFIX
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
    /// tokens (auto: gcs for https to a host that is not loopback, none for
    /// loopback and plaintext).
    #[arg(long, value_name = "MODE", default_value = "auto")]
    pub auth: String,
    /// A PEM file of CA certificates to trust on both transports, besides the
    /// system's (a private CA in front of a PSC endpoint, the emulator's
    /// --tls CA); SSL_CERT_FILE is read the same way.
    #[arg(long, value_name = "FILE", default_value = "", hide_default_value = true)]
    pub ca_cert: String,
    /// interleaved (alternate transports round by round) | sequential.
    #[arg(long, value_name = "ORDER", default_value = "interleaved")]
    pub order: String,
    /// Object name prefix: objects are PREFIX/RUN-ID/TRANSPORT/ROUND-WORKER.
    #[arg(long, value_name = "PREFIX", default_value = "gcs-speed-tui")]
    pub prefix: String,
    /// HTTP version of the JSON API: auto | 1.1 | 2.
    #[arg(long, value_name = "VERSION", default_value = "auto")]
    pub json_http: String,
    /// Keep running paired rounds until this much time has passed (instead of --iterations).
    #[arg(long, value_name = "DURATION", default_value = "", hide_default_value = true)]
    pub duration: String,
    /// Stop early once the 95% confidence interval of the difference is this narrow (5%).
    #[arg(long, value_name = "WIDTH", default_value = "", hide_default_value = true)]
    pub until_stable: String,
    /// gRPC client HTTP/2 stream window (connection: twice); "auto" adapts it.
    #[arg(long, value_name = "SIZE", default_value = "auto")]
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
}

/// The `--help` text of a benchmark option, by its field name (`chunk_size`)
/// in `run` (or `etcd run`), so the app's form explains each field in the
/// same words as the CLI.
pub fn help_for(field: &str, target: &str) -> Option<String> {
    use clap::CommandFactory;
    if field == "target" {
        return Some(crate::targets::TARGET_HELP.into());
    }
    let mut command = Cli::command();
    for name in crate::targets::command_of(target) {
        command = command.find_subcommand(name)?.clone();
    }
    let arg = command.get_arguments().find(|a| a.get_id() == field)?;
    arg.get_help().map(|help| help.to_string())
}

fn parse_go_bool(text: &str) -> Result<bool, String> {
    crate::units::parse_bool(text)
}

impl BenchArgs {
    pub fn to_options(&self) -> Options {
        Options {
            bucket: self.bucket.clone(),
            transports: self.transports.clone(),
            size: self.size.clone(),
            iterations: self.iterations.clone(),
            concurrency: self.concurrency.clone(),
            chunk_size: self.chunk_size.clone(),
            cleanup: self.cleanup,
            warmup: self.warmup,
            warmup_size: self.warmup_size.clone(),
            checksum: self.checksum.clone(),
            workload: self.workload.clone(),
            range_size: self.range_size.clone(),
            read_prefix: self.read_prefix.clone(),
            disable_grpc_autochecksum: self.disable_grpc_autochecksum,
            grpc_conn_pool: self.grpc_conn_pool.clone(),
            timeout: self.timeout.clone(),
            credentials: self.credentials.clone(),
            emulator: self.emulator,
            endpoint: self.endpoint.clone(),
            grpc_endpoint: self.grpc_endpoint.clone(),
            auth: self.auth.clone(),
            ca_cert: self.ca_cert.clone(),
            order: self.order.clone(),
            prefix: self.prefix.clone(),
            json_http: self.json_http.clone(),
            duration: self.duration.clone(),
            until_stable: self.until_stable.clone(),
            grpc_window: self.grpc_window.clone(),
            max_retries: self.max_retries.clone(),
            retry_deadline: self.retry_deadline.clone(),
            retry_initial: self.retry_initial.clone(),
            request_timeout: self.request_timeout.clone(),
            fail_fast: self.fail_fast,
            emulator_fault: self.emulator_fault.clone(),
            rate_unit: self.rate_unit.clone(),
        }
    }
}

#[derive(Args, Debug)]
pub struct EmulatorArgs {
    /// Address to bind; anything but loopback is reachable by others.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,
    /// JSON API port (0 = any free port).
    #[arg(long, default_value_t = 0)]
    pub http_port: u16,
    /// gRPC port (0 = any free port).
    #[arg(long, default_value_t = 0)]
    pub grpc_port: u16,
    /// Buckets to create at start (clients may also create them).
    #[arg(long = "bucket", value_name = "NAME")]
    pub buckets: Vec<String>,
    /// Keep object bytes so they can be read back (the same bytes uploaded
    /// again are kept once: memory grows with distinct contents).
    #[arg(long)]
    pub retain: bool,
    /// One-way link delay: every answer comes a round trip (2x) after its request: 20ms.
    #[arg(long, value_name = "DURATION")]
    pub latency: Option<String>,
    /// Total ingest rate cap: 200Mbit, 1Gbit, 100MiB.
    #[arg(long, value_name = "RATE")]
    pub bandwidth: Option<String>,
    /// INSTRUCTION[:every=N], e.g. return-503:every=3 or return-503-after-256K.
    #[arg(long = "fault", value_name = "SPEC")]
    pub faults: Vec<String>,
    /// HTTP/2 stream window the server grants (connection: twice): 8MiB.
    #[arg(long, value_name = "SIZE", default_value = "8MiB")]
    pub window: String,
    /// Serve HTTPS and gRPC over TLS, as GCS does, with a CA and a
    /// certificate for localhost and 127.0.0.1 made now (the CA is written
    /// to --ca-out for clients to trust: run --ca-cert FILE).
    #[arg(long)]
    pub tls: bool,
    /// With --tls: serve this PEM certificate chain instead (with --tls-key).
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// With --tls-cert: its PEM private key.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
    /// Where --tls writes the CA it made, kept after it stops [default: a file of its own in the temp
    /// directory, gcs-speed-tui-emulator-ca-*.pem, removed when it stops].
    #[arg(long, value_name = "FILE")]
    pub ca_out: Option<std::path::PathBuf>,
    /// Every API call needs Authorization: Bearer with a token this emulator
    /// issued (its OAuth endpoints, the credentials of --trust) or a trusted
    /// service account's self-signed JWT; otherwise 401 / UNAUTHENTICATED.
    #[arg(long)]
    pub require_auth: bool,
    /// A credential file whose holder may get tokens: a service account key,
    /// an authorized_user, impersonated_service_account or external_account
    /// file (point its token URL at this emulator).
    #[arg(long = "trust", value_name = "FILE")]
    pub trusted: Vec<std::path::PathBuf>,
    /// How long the tokens it issues are good for.
    #[arg(long, value_name = "DURATION", default_value = "1h")]
    pub token_ttl: String,
    /// A permission no caller has, e.g. storage.objects.delete (repeatable).
    #[arg(long = "deny", value_name = "PERMISSION")]
    pub denied: Vec<String>,
    /// Where reads say the object's checksums, to try a reader against each
    /// shape the API allows: full (gRPC object_checksums and each message's
    /// crc32c; JSON x-goog-hash), metadata (gRPC: only the first message's
    /// metadata.checksums), none (no checksum at all).
    #[arg(long, value_enum, value_name = "SHAPE", default_value = "full")]
    pub read_checksums: crate::emulator::ReadChecksums,
    /// What a JSON upload's answer carries, to try a writer against each
    /// shape: full (the object resource, as GCS sends it), minimal (only
    /// kind, name, bucket and generation: no size, no checksums).
    #[arg(long, value_enum, value_name = "SHAPE", default_value = "full")]
    pub upload_answers: crate::emulator::UploadAnswers,
}

pub mod start;
mod usage;
pub use usage::one_sentence;

#[cfg(test)]
mod tests;
