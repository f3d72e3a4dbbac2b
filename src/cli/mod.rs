//! The command line: the app's flags, each target's commands (the
//! registry's, `crate::targets::TargetCommand`), the emulator, `merge` and
//! `compare`, and how a run's report is written. Flags only fill options;
//! validation is each target's, so the form and the CLI say the same things.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "gcs-speed-tui",
    version,
    about = "The same work over HTTP/JSON and gRPC (GCS, etcd or any gRPC service), and which was faster, live in a terminal",
    long_about = "Sends the same work over HTTP/JSON and over gRPC and says which was faster, by how much, \
                  with its 95% interval: Google Cloud Storage (uploads, downloads, w1r3, ranges, appends), etcd (its \
                  HTTP gateway against gRPC) and any gRPC service from its .proto (against its google.api.http or \
                  Connect mapping, Google APIs signed in).\n\n\
                  With no command it opens the interactive app on a terminal; with no --bucket, uploads go to the \
                  built-in loopback emulator (no GCP account needed). `run`, `etcd run` and `grpc run` are the \
                  headless benchmarks for scripts and CI (table, JSON, CSV or an HTML page to share); `doctor` and \
                  `grpc doctor` check first that a run would work; `emulator` serves the built-in GCS emulator on \
                  its own; `merge` puts the reports of many hosts (a fleet) together; `compare` sets two saved \
                  reports side by side; `completions` and `man` print a shell's completions and the man page. The \
                  guide: docs/SUMMARY.md in the repository.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The app's form, prefilled: `run`'s flags.
    #[command(flatten)]
    pub bench: crate::targets::AppFlags,
    /// Open saved reports (run --format json, or merges) in the app's
    /// results and history, beside the runs you make.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub open: Vec<PathBuf>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Each target's commands (`run`, `doctor`, `etcd run`): the registry's.
    #[command(flatten)]
    Target(crate::targets::TargetCommand),
    /// Serve the built-in GCS emulator (JSON and gRPC) until Ctrl-C.
    Emulator(Box<EmulatorArgs>),
    /// Merge the reports of many hosts (a fleet) into one: per-host rows,
    /// a fleet row per transport and the fleet's verdict.
    Merge(crate::fleet::command::MergeArgs),
    /// The change per transport from one saved report to another.
    Compare(crate::fleet::command::CompareArgs),
    /// Print a shell's completion script: bash, zsh, fish, powershell or elvish
    /// (bash: `gcs-speed-tui completions bash > ~/.local/share/bash-completion/completions/gcs-speed-tui`).
    Completions {
        #[arg(value_enum, value_name = "SHELL")]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `gcs-speed-tui man > ~/.local/share/man/man1/gcs-speed-tui.1`.
    Man,
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
    /// Write every object's (GCS) or call's (etcd, grpc) record to FILE as it
    /// is taken: CSV when FILE ends in .csv, else NDJSON. The report keeps its
    /// figures as histograms, and of a long run only the slowest and failed objects.
    #[arg(long, value_name = "FILE", default_value = "", hide_default_value = true)]
    pub samples: String,
    /// Exit 3 when this holds of the finished run, for CI gates:
    /// '[http-json.|grpc.]METRIC OP LIMIT' with METRIC p50, p90, p99 (with a
    /// unit: 50ms), throughput (MiB/s; etcd ops/s; grpc calls/s), errors, retries or
    /// ratio (the verdict's own: gRPC's rate over HTTP/JSON's, the paired
    /// rounds' geometric mean; under --rate HTTP/JSON's p99 over gRPC's; above
    /// 1 gRPC ahead), OP < <= > >=; repeatable. A figure the run did not
    /// measure (a ratio from fewer than 3 pairs) counts as crossing.
    #[arg(long = "fail-if", value_name = "CONDITION")]
    pub fail_if: Vec<String>,
    /// A full paired comparison at each value of an option, named as its
    /// flag: OPTION=V1,V2,... (rate=100,400,1600 anywhere; run:
    /// size=1MiB,16MiB; etcd run and grpc run: clients=1,10,100); repeat for
    /// a grid. Points run in a shuffled order, so that drift over time does
    /// not read as a trend; the report has a row per point.
    #[arg(long = "sweep", value_name = "OPTION=V1,V2,...")]
    pub sweep: Vec<String>,
    /// A time budget the sweep's points share: each runs for its equal part
    /// of it (as its --duration).
    #[arg(long = "sweep-budget", value_name = "DURATION")]
    pub sweep_budget: Option<String>,
    /// Also draw the run as a picture: its rounds' rates over time and its
    /// latency by percentile (a sweep: the gRPC/JSON ratio at each point,
    /// or a heatmap over two options, and latency against --rate). FILE.svg,
    /// or FILE.html for the same picture in a self-contained page.
    #[arg(long, value_name = "FILE.svg|FILE.html")]
    pub chart: Option<PathBuf>,
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

#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// The table and the verdict, for a terminal.
    #[default]
    Table,
    /// The whole report, for scripts (its fields: docs/report-format.md).
    Json,
    /// A row per round and transport, for spreadsheets.
    Csv,
    /// One self-contained page to share: the verdict and its interval, the
    /// table, the charts, the configuration and the environment.
    Html,
}

/// The `--help` text of a benchmark option, by its field name (`chunk_size`)
/// in `run` (or `etcd run`), so the app's form explains each field in the
/// same words as the CLI.
pub fn help_for(field: &str, target: &str) -> Option<String> {
    use clap::CommandFactory;
    if field == "target" {
        return Some(crate::targets::target_help());
    }
    let mut command = Cli::command();
    for (name, _) in crate::targets::named(target).command() {
        command = command.find_subcommand(name)?.clone();
    }
    // A field is its flag's name (`import_path`), which a list's id may not be (`import_paths`).
    let flag = field.replace('_', "-");
    let arg = command.get_arguments().find(|a| a.get_id() == field || a.get_long() == Some(flag.as_str()))?;
    let help = arg.get_help()?.to_string();
    // The form has one line where the command line repeats the flag.
    Some(match field {
        "sweep" => {
            let help = help.trim_end_matches('.');
            format!("{help}. In the form, every option on one line, a ; apart: size=1MiB,16MiB; concurrency=1,8.")
        }
        _ => help,
    })
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
    /// Largest HTTP/2 frame the server accepts (SETTINGS_MAX_FRAME_SIZE),
    /// which bounds the DATA frames of every HTTP/2 upload (gRPC's, and
    /// JSON's over HTTP/2): 1MiB; 16KiB is HTTP/2's default, what a server
    /// that sets none allows.
    #[arg(long, value_name = "SIZE", default_value = "1MiB")]
    pub frame_size: String,
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

pub mod shell;
pub mod start;
mod usage;
pub use usage::one_sentence;

#[cfg(test)]
mod tests;
