//! Each target's form fields, in the order the form shows them: the
//! first ones everyone sets, then an advanced group that opens on demand.

use super::TARGETS;
use crate::tui::fields::{Access, FieldSpec};

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

/// The first fields are the ones everyone sets; the rest sit in a group that
/// opens on demand, so the form fits a small window.
pub const ESSENTIALS: usize = 11;

pub static FIELDS: [FieldSpec; 48] = [
    choice!("target", "Target", &TARGETS, target),
    text!("bucket", "Bucket", gcs.bucket),
    choice!("transports", "Transports", &["both", "http-json", "grpc", "grpc-read-object,grpc"], gcs.transports),
    choice!("workload", "Workload", &["upload", "download", "w1r3", "ranges", "append"], gcs.workload),
    text!("size", "Object size", gcs.size),
    text!("iterations", "Iterations", gcs.iterations),
    text!("duration", "Duration", gcs.duration),
    text!("until_stable", "Until stable (CI)", gcs.until_stable),
    text!("concurrency", "Concurrency", gcs.concurrency),
    text!("chunk_size", "Chunk size", gcs.chunk_size),
    choice!("checksum", "Checksum", &["crc32c", "none"], gcs.checksum),
    toggle!("warmup", "Warmup", gcs.warmup),
    text!("warmup_size", "Warmup size", gcs.warmup_size),
    toggle!("cleanup", "Cleanup", gcs.cleanup),
    choice!("order", "Order", &["interleaved", "sequential"], gcs.order),
    text!("rate", "Rate (open loop)", gcs.rate),
    choice!("arrivals", "Arrivals", &["constant", "poisson"], gcs.arrivals),
    text!("max_in_flight", "Max in flight", gcs.max_in_flight),
    text!("round_time", "Round time", gcs.round_time),
    text!("sweep", "Sweep", sweep),
    text!("sweep_budget", "Sweep budget", sweep_budget),
    text!("grpc_conn_pool", "gRPC channels", gcs.grpc_conn_pool),
    text!("grpc_window", "gRPC window", gcs.grpc_window),
    toggle!("disable_grpc_autochecksum", "gRPC no checksum", gcs.disable_grpc_autochecksum),
    text!("range_size", "Read range size", gcs.range_size),
    text!("ranges_per_object", "Ranges per object", gcs.ranges_per_object),
    choice!("range_order", "Range order", &["random", "sequential"], gcs.range_order),
    choice!("grpc_ranges", "gRPC ranges", &["bidi", "read-object"], gcs.grpc_ranges),
    text!("append_size", "Append size", gcs.append_size),
    text!("flush_every", "Flush every", gcs.flush_every),
    choice!("read_back", "Read back", &["on", "off"], gcs.read_back),
    text!("read_prefix", "Read prefix", gcs.read_prefix),
    choice!("json_http", "JSON HTTP", &["auto", "1.1", "2"], gcs.json_http),
    text!("timeout", "Timeout", gcs.timeout),
    text!("request_timeout", "Request timeout", gcs.request_timeout),
    text!("max_retries", "Max retries", gcs.max_retries),
    text!("retry_deadline", "Retry deadline", gcs.retry_deadline),
    text!("retry_initial", "Retry backoff", gcs.retry_initial),
    toggle!("fail_fast", "Fail fast", gcs.fail_fast),
    text!("credentials", "Credentials", gcs.credentials),
    text!("endpoint", "JSON endpoint", gcs.endpoint),
    text!("grpc_endpoint", "gRPC endpoint", gcs.grpc_endpoint),
    choice!("auth", "Endpoint auth", &["auto", "gcs", "none"], gcs.auth),
    text!("ca_cert", "CA certificate", gcs.ca_cert),
    text!("prefix", "Prefix", gcs.prefix),
    toggle!("emulator", "Built-in emulator", gcs.emulator),
    text!("emulator_fault", "Emulator fault", gcs.emulator_fault),
    choice!("rate_unit", "Throughput unit", &units::RateUnit::NAMES, gcs.rate_unit),
];

/// The etcd target's fields: `etcd run`'s options, the schedule's shared
/// with the GCS form.
pub const ETCD_ESSENTIALS: usize = 9;

pub static ETCD_FIELDS: [FieldSpec; 30] = [
    choice!("target", "Target", &TARGETS, target),
    text!("endpoints", "Endpoints", etcd.endpoints),
    choice!("mode", "Mode", &["put", "range", "watch"], etcd.mode),
    choice!("transports", "Transports", &["both", "http-json", "grpc"], gcs.transports),
    text!("clients", "Clients", etcd.clients),
    text!("requests", "Requests/client", etcd.requests),
    text!("iterations", "Iterations", gcs.iterations),
    text!("duration", "Duration", gcs.duration),
    text!("until_stable", "Until stable (CI)", gcs.until_stable),
    text!("value_size", "Value size (B)", etcd.value_size),
    text!("key_size", "Key size (B)", etcd.key_size),
    text!("key_space", "Key space", etcd.key_space),
    toggle!("sequential_keys", "Sequential keys", etcd.sequential_keys),
    text!("conns", "gRPC channels", etcd.conns),
    toggle!("warmup", "Warmup", gcs.warmup),
    toggle!("cleanup", "Cleanup", gcs.cleanup),
    choice!("order", "Order", &["interleaved", "sequential"], gcs.order),
    text!("rate", "Rate (open loop)", gcs.rate),
    choice!("arrivals", "Arrivals", &["constant", "poisson"], gcs.arrivals),
    text!("max_in_flight", "Max in flight", gcs.max_in_flight),
    text!("round_time", "Round time", gcs.round_time),
    text!("sweep", "Sweep", sweep),
    text!("sweep_budget", "Sweep budget", sweep_budget),
    text!("timeout", "Timeout", gcs.timeout),
    text!("user", "User", etcd.user),
    text!("password", "Password", etcd.password),
    text!("cacert", "CA certificate", etcd.cacert),
    text!("cert", "Client cert", etcd.cert),
    text!("key", "Client key", etcd.key),
    text!("prefix", "Key prefix", etcd.prefix),
];

/// The any-service target's fields: `grpc run`'s options, the schedule's
/// shared with the GCS form.
pub const GRPC_ESSENTIALS: usize = 12;

pub static GRPC_FIELDS: [FieldSpec; 36] = [
    choice!("target", "Target", &TARGETS, target),
    text!("method", "Method", grpc.method),
    text!("proto", "Proto files", grpc.protos),
    text!("import_path", "Import paths", grpc.import_paths),
    text!("grpc_endpoint", "gRPC endpoint", grpc.grpc_endpoint),
    text!("http_endpoint", "HTTP endpoint", grpc.http_endpoint),
    choice!("http_mapping", "HTTP mapping", &["rule", "connect"], grpc.http_mapping),
    text!("data", "Request (JSON)", grpc.data),
    choice!("transports", "Transports", &["both", "http-json", "grpc"], gcs.transports),
    text!("clients", "Clients", grpc.clients),
    text!("requests", "Calls/client", grpc.requests),
    text!("iterations", "Iterations", gcs.iterations),
    text!("duration", "Duration", gcs.duration),
    text!("until_stable", "Until stable (CI)", gcs.until_stable),
    text!("http_path", "HTTP path", grpc.http_path),
    text!("ignore_field", "Ignore fields", grpc.ignore_fields),
    toggle!("check", "Check answers", grpc.check),
    toggle!("reflect", "Reflection", grpc.reflect),
    text!("descriptor_set", "Descriptor set", grpc.descriptor_set),
    text!("header", "Headers", grpc.headers),
    text!("cacert", "CA certificate", grpc.cacert),
    text!("cert", "Client cert", grpc.cert),
    text!("key", "Client key", grpc.key),
    text!("cleanup_method", "Cleanup method", grpc.cleanup_method),
    text!("cleanup_data", "Cleanup request", grpc.cleanup_data),
    text!("conns", "gRPC channels", grpc.conns),
    toggle!("warmup", "Warmup", gcs.warmup),
    toggle!("cleanup", "Cleanup", gcs.cleanup),
    choice!("order", "Order", &["interleaved", "sequential"], gcs.order),
    text!("rate", "Rate (open loop)", gcs.rate),
    choice!("arrivals", "Arrivals", &["constant", "poisson"], gcs.arrivals),
    text!("max_in_flight", "Max in flight", gcs.max_in_flight),
    text!("round_time", "Round time", gcs.round_time),
    text!("sweep", "Sweep", sweep),
    text!("sweep_budget", "Sweep budget", sweep_budget),
    text!("timeout", "Timeout", gcs.timeout),
];
