//! `gcs-speed-tui grpc run`: which service and method, where its types come
//! from, the request, how both transports reach it, and the schedule flags
//! every target shares.

use crate::reach::{Reach, parse_header};
use clap::{ArgAction, Args};
pub use schedule_flags::ScheduleArgs;
use std::path::PathBuf;
use target_api::flags::TlsFlags;

/// The service's own flags: kept as typed (the app's form holds the same).
#[derive(Args, Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ServiceArgs {
    /// The service's .proto file (repeat for more); imports are found under
    /// --import-path and the file's own directory, google/protobuf's built in.
    #[arg(long = "proto", value_name = "FILE")]
    pub protos: Vec<PathBuf>,
    /// A directory imports are found in, as protoc's -I (repeat for more).
    #[arg(short = 'I', long = "import-path", value_name = "DIR")]
    pub import_paths: Vec<PathBuf>,
    /// A compiled descriptor set (protoc --descriptor_set_out --include_imports, buf build) instead of --proto.
    #[arg(long, value_name = "FILE")]
    pub descriptor_set: Option<PathBuf>,
    /// Ask the gRPC server for the types (gRPC server reflection) instead of --proto.
    #[arg(long)]
    pub reflect: bool,
    /// The method: package.Service/Method, as in etcdserverpb.KV/Put.
    #[arg(long, value_name = "SERVICE/METHOD", default_value = "", hide_default_value = true)]
    pub method: String,
    /// The request as proto3 JSON, or @FILE; {{seq}} ({{seq 8}}: 8 digits), {{rand}},
    /// {{client}}, {{run}} and {{base64 TEXT}} differ call by call, the same on both transports;
    /// {{transport}} and {{round}} (0 in the check and warmup) give each transport and round
    /// keys of its own, for calls that are not idempotent. A FILE of one JSON request a line
    /// (NDJSON) is used in turn, lines counted from 1 (blank ones skipped):
    /// call n (from 0) sends line (n mod lines) + 1.
    #[arg(long, value_name = "JSON|@FILE", default_value = "{}")]
    pub data: String,
    /// The gRPC server: http://HOST:PORT (h2c) or https://HOST:PORT.
    #[arg(long, value_name = "URL", default_value = "", hide_default_value = true)]
    pub grpc_endpoint: String,
    /// The HTTP/JSON server (default: the gRPC endpoint, as etcd and Connect serve both on one port).
    #[arg(long, value_name = "URL", default_value = "", hide_default_value = true)]
    pub http_endpoint: String,
    /// rule: the method's google.api.http rule (or --http-path); connect: Connect's JSON protocol.
    #[arg(long, value_name = "MAPPING", default_value = "rule")]
    pub http_mapping: String,
    /// An HTTP rule of your own, used instead of the .proto's (or where it has none): "POST /v3/kv/put" (POST, PUT, PATCH send the request as the body).
    #[arg(long, value_name = "[VERB] /PATH", default_value = "", hide_default_value = true)]
    pub http_path: String,
    /// A response field that may differ between the transports (a revision, a timestamp): a.b (repeat for more).
    #[arg(long = "ignore-field", value_name = "FIELD", value_parser = field_path)]
    pub ignore_fields: Vec<String>,
    /// Send call 0 over both transports before any clock starts and compare the answers.
    #[arg(long, value_name = "BOOL", default_value = "true", num_args = 0..=1, require_equals = true,
          default_missing_value = "true", action = ArgAction::Set, value_parser = units::parse_bool)]
    pub check: bool,
    /// A header sent on every call, as gRPC metadata and HTTP header: "authorization: Bearer T" (repeat for more);
    /// its value takes --data's placeholders: "x-request-id: {{run}}-{{seq}}".
    #[arg(long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// none | google: google signs every call of both transports in with an OAuth token, its
    /// credentials found as `run` finds GCS's (--credentials, GOOGLE_APPLICATION_CREDENTIALS, ...,
    /// Application Default Credentials), renewed before expiry; sent over https only.
    #[arg(long, value_name = "MODE", default_value = "none")]
    pub auth: String,
    /// With --auth google: a credentials file (a service account key, an authorized_user,
    /// impersonated_service_account or external_account file).
    #[arg(long, value_name = "PATH", default_value = "", hide_default_value = true)]
    pub credentials: String,
    /// With --auth google: the OAuth scopes its tokens are for, comma-separated, as URLs or
    /// short names (pubsub); default cloud-platform.
    #[arg(long, value_name = "SCOPE[,SCOPE...]", default_value = "", hide_default_value = true)]
    pub scopes: String,
    #[command(flatten)]
    #[serde(flatten)]
    pub tls: TlsFlags,
    /// A method called once over gRPC when the run ends (even a cancelled one) to delete what it made.
    #[arg(long, value_name = "SERVICE/METHOD", default_value = "", hide_default_value = true)]
    pub cleanup_method: String,
    /// The cleanup call's request ({{run}} is the run's ID).
    #[arg(long, value_name = "JSON|@FILE", default_value = "{}")]
    pub cleanup_data: String,
    /// Concurrent clients.
    #[arg(long, value_name = "N", default_value = "10")]
    pub clients: String,
    /// Calls per client per round.
    #[arg(long, value_name = "N", default_value = "1000")]
    pub requests: String,
    /// gRPC channels the clients share (HTTP/JSON opens what it needs, HTTP/1.1 or HTTP/2 as the server offers, and that is counted).
    #[arg(long, value_name = "N", default_value = "1")]
    pub conns: String,
    /// Threads the client runs on (default: half the CPUs, at least one).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    pub client_threads: Option<u16>,
}

impl Default for ServiceArgs {
    fn default() -> Self {
        ServiceArgs {
            protos: Vec::new(),
            import_paths: Vec::new(),
            descriptor_set: None,
            reflect: false,
            method: String::new(),
            data: "{}".into(),
            grpc_endpoint: String::new(),
            http_endpoint: String::new(),
            http_mapping: "rule".into(),
            http_path: String::new(),
            ignore_fields: Vec::new(),
            check: true,
            headers: Vec::new(),
            auth: "none".into(),
            credentials: String::new(),
            scopes: String::new(),
            tls: TlsFlags::default(),
            cleanup_method: String::new(),
            cleanup_data: "{}".into(),
            clients: "10".into(),
            requests: "1000".into(),
            conns: "1".into(),
            client_threads: None,
        }
    }
}

/// `grpc run`: the service's flags and the schedule's.
#[derive(Args, Debug, Clone)]
pub struct GrpcRunArgs {
    #[command(flatten)]
    pub service: ServiceArgs,
    #[command(flatten)]
    pub schedule: ScheduleArgs,
}

impl ServiceArgs {
    pub fn client_threads(&self) -> usize {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.client_threads.map_or((cpus / 2).max(1), usize::from)
    }

    /// The endpoints, headers and TLS files both transports use.
    pub(crate) fn reach(&self, conns: u32) -> Result<Reach, String> {
        let grpc_endpoint = endpoint(&self.grpc_endpoint, "--grpc-endpoint")?;
        let http_endpoint = match self.http_endpoint.trim() {
            "" => grpc_endpoint.clone(),
            _ => endpoint(&self.http_endpoint, "--http-endpoint")?,
        };
        let headers = self.headers.iter().map(|h| parse_header(h)).collect::<Result<Vec<_>, _>>()?;
        let tls = grpc_endpoint.starts_with("https://") || http_endpoint.starts_with("https://");
        let identity = self.tls.identity(tls, "--grpc-endpoint or --http-endpoint").map_err(|e| e.message)?;
        Ok(Reach { grpc_endpoint, http_endpoint, cacert: self.tls.cacert.clone(), identity, headers, conns })
    }
}

/// An endpoint: http:// or https:// with a host and no path.
fn endpoint(text: &str, flag: &str) -> Result<String, String> {
    let url = text.trim().trim_end_matches('/').to_string();
    if url.is_empty() {
        return Err(format!("{flag} is missing: give the server's URL, like http://127.0.0.1:2379"));
    }
    let Some(rest) = url.strip_prefix("http://").or(url.strip_prefix("https://")) else {
        return Err(format!("{flag} '{url}' needs http:// or https://, like http://127.0.0.1:2379"));
    };
    if rest.is_empty() || rest.contains('/') {
        return Err(format!("{flag} '{url}' has a path or no host: give HOST:PORT alone, like http://127.0.0.1:2379"));
    }
    Ok(url)
}

/// `--data` as given, or the text of the file it names with `@`.
pub(crate) struct Data {
    pub text: String,
    /// The file it came from.
    pub file: Option<String>,
}

pub(crate) fn text_or_file(text: &str, flag: &str) -> Result<Data, String> {
    match text.strip_prefix('@') {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => Ok(Data { text, file: Some(path.to_string()) }),
            Err(e) => Err(format!("{flag} @{path}: cannot read it ({e})")),
        },
        None => Ok(Data { text: text.to_string(), file: None }),
    }
}

/// An `--ignore-field` value: a field's path, not nothing (the form, which
/// holds them a comma apart, would drop an empty one unsaid).
fn field_path(text: &str) -> Result<String, String> {
    match text.trim() {
        "" => Err("it names no field: give a response field, like header.revision".into()),
        path => Ok(path.to_string()),
    }
}
