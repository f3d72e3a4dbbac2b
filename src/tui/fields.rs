//! The form's fields, one list per target: which option each reads and
//! writes, its label, and the `ConfigError` field it answers for.

use crate::config::Options;

/// How a field reads and writes its option.
#[derive(Clone, Copy)]
pub enum Access {
    Text(fn(&mut Options) -> &mut String),
    Toggle(fn(&mut Options) -> &mut bool),
    Choice(fn(&mut Options) -> &mut String, &'static [&'static str]),
}

pub struct FieldSpec {
    /// The `ConfigError::field` this field answers for.
    pub key: &'static str,
    pub label: &'static str,
    pub access: Access,
}

macro_rules! text {
    ($key:literal, $label:literal, $($field:ident).+) => {
        FieldSpec { key: $key, label: $label, access: Access::Text(|o| &mut o.$($field).+) }
    };
}

macro_rules! toggle {
    ($key:literal, $label:literal, $($field:ident).+) => {
        FieldSpec { key: $key, label: $label, access: Access::Toggle(|o| &mut o.$($field).+) }
    };
}

macro_rules! choice {
    ($key:literal, $label:literal, $values:expr, $($field:ident).+) => {
        FieldSpec { key: $key, label: $label, access: Access::Choice(|o| &mut o.$($field).+, $values) }
    };
}

/// The first field of either form: what to benchmark.
pub const TARGETS: [&str; 2] = ["gcs", "etcd"];

/// The first fields are the ones everyone sets; the rest sit in a group that
/// opens on demand, so the form fits a small window.
pub const ESSENTIALS: usize = 11;

pub const FIELDS: [FieldSpec; 36] = [
    choice!("target", "Target", &TARGETS, target),
    text!("bucket", "Bucket", bucket),
    choice!("transports", "Transports", &["both", "http-json", "grpc"], transports),
    choice!("workload", "Workload", &["upload", "download", "w1r3"], workload),
    text!("size", "Object size", size),
    text!("iterations", "Iterations", iterations),
    text!("duration", "Duration", duration),
    text!("until_stable", "Until stable (CI)", until_stable),
    text!("concurrency", "Concurrency", concurrency),
    text!("chunk_size", "Chunk size", chunk_size),
    choice!("checksum", "Checksum", &["crc32c", "none"], checksum),
    toggle!("warmup", "Warmup", warmup),
    text!("warmup_size", "Warmup size", warmup_size),
    toggle!("cleanup", "Cleanup", cleanup),
    choice!("order", "Order", &["interleaved", "sequential"], order),
    text!("grpc_conn_pool", "gRPC channels", grpc_conn_pool),
    text!("grpc_window", "gRPC window", grpc_window),
    toggle!("disable_grpc_autochecksum", "gRPC no checksum", disable_grpc_autochecksum),
    text!("range_size", "Read range size", range_size),
    text!("read_prefix", "Read prefix", read_prefix),
    choice!("json_http", "JSON HTTP", &["auto", "1.1", "2"], json_http),
    text!("timeout", "Timeout", timeout),
    text!("request_timeout", "Request timeout", request_timeout),
    text!("max_retries", "Max retries", max_retries),
    text!("retry_deadline", "Retry deadline", retry_deadline),
    text!("retry_initial", "Retry backoff", retry_initial),
    toggle!("fail_fast", "Fail fast", fail_fast),
    text!("credentials", "Credentials", credentials),
    text!("endpoint", "JSON endpoint", endpoint),
    text!("grpc_endpoint", "gRPC endpoint", grpc_endpoint),
    choice!("auth", "Endpoint auth", &["auto", "gcs", "none"], auth),
    text!("ca_cert", "CA certificate", ca_cert),
    text!("prefix", "Prefix", prefix),
    toggle!("emulator", "Built-in emulator", emulator),
    text!("emulator_fault", "Emulator fault", emulator_fault),
    choice!("rate_unit", "Throughput unit", &crate::units::RateUnit::NAMES, rate_unit),
];

/// The etcd target's fields: `etcd run`'s options, the schedule's shared
/// with the GCS form.
pub const ETCD_ESSENTIALS: usize = 9;

pub const ETCD_FIELDS: [FieldSpec; 24] = [
    choice!("target", "Target", &TARGETS, target),
    text!("endpoints", "Endpoints", etcd.endpoints),
    choice!("mode", "Mode", &["put", "range", "watch"], etcd.mode),
    choice!("transports", "Transports", &["both", "http-json", "grpc"], transports),
    text!("clients", "Clients", etcd.clients),
    text!("requests", "Requests/client", etcd.requests),
    text!("iterations", "Iterations", iterations),
    text!("duration", "Duration", duration),
    text!("until_stable", "Until stable (CI)", until_stable),
    text!("value_size", "Value size (B)", etcd.value_size),
    text!("key_size", "Key size (B)", etcd.key_size),
    text!("key_space", "Key space", etcd.key_space),
    toggle!("sequential_keys", "Sequential keys", etcd.sequential_keys),
    text!("conns", "gRPC channels", etcd.conns),
    toggle!("warmup", "Warmup", warmup),
    toggle!("cleanup", "Cleanup", cleanup),
    choice!("order", "Order", &["interleaved", "sequential"], order),
    text!("timeout", "Timeout", timeout),
    text!("user", "User", etcd.user),
    text!("password", "Password", etcd.password),
    text!("cacert", "CA certificate", etcd.cacert),
    text!("cert", "Client cert", etcd.cert),
    text!("key", "Client key", etcd.key),
    text!("prefix", "Key prefix", etcd.prefix),
];
