//! The form's fields, one list per target: which option each reads and
//! writes, its label, and the `ConfigError` field it answers for.

use crate::config::FormOptions;

/// How a field reads and writes its option.
#[derive(Clone, Copy)]
pub enum Access {
    Text(fn(&mut FormOptions) -> &mut String),
    Toggle(fn(&mut FormOptions) -> &mut bool),
    Choice(fn(&mut FormOptions) -> &mut String, &'static [&'static str]),
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
    text!("bucket", "Bucket", gcs.bucket),
    choice!("transports", "Transports", &["both", "http-json", "grpc"], gcs.transports),
    choice!("workload", "Workload", &["upload", "download", "w1r3"], gcs.workload),
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
    text!("grpc_conn_pool", "gRPC channels", gcs.grpc_conn_pool),
    text!("grpc_window", "gRPC window", gcs.grpc_window),
    toggle!("disable_grpc_autochecksum", "gRPC no checksum", gcs.disable_grpc_autochecksum),
    text!("range_size", "Read range size", gcs.range_size),
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
    choice!("rate_unit", "Throughput unit", &crate::units::RateUnit::NAMES, gcs.rate_unit),
];

/// The etcd target's fields: `etcd run`'s options, the schedule's shared
/// with the GCS form.
pub const ETCD_ESSENTIALS: usize = 9;

pub const ETCD_FIELDS: [FieldSpec; 24] = [
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
    text!("timeout", "Timeout", gcs.timeout),
    text!("user", "User", etcd.user),
    text!("password", "Password", etcd.password),
    text!("cacert", "CA certificate", etcd.cacert),
    text!("cert", "Client cert", etcd.cert),
    text!("key", "Client key", etcd.key),
    text!("prefix", "Key prefix", etcd.prefix),
];

/// The form's fields for `target` (one of `TARGETS`), and how many of
/// them are essentials.
pub fn fields_of(target: &str) -> &'static [FieldSpec] {
    match target {
        "etcd" => &ETCD_FIELDS,
        _ => &FIELDS,
    }
}

/// How many of `target`'s fields show before the advanced group.
pub fn essentials_of(target: &str) -> usize {
    match target {
        "etcd" => ETCD_ESSENTIALS,
        _ => ESSENTIALS,
    }
}

/// `text` with each `--flag` the form has a field for said as that field's
/// label ("--user needs --password" reads "User needs Password";
/// "--cleanup=false" reads "Cleanup off"). Sentences shared with the CLI
/// (validation, notes, verdicts) keep their flags; the app says them in its
/// own words here, in one place. The target's own fields come first (its
/// labels differ: Prefix against Key prefix); a flag neither form has stays.
pub fn in_form_words(text: &str, target: &str) -> String {
    let mine = fields_of(target);
    let others = TARGETS.iter().filter(|t| **t != target).flat_map(|t| fields_of(t));
    let label = |flag: &str| {
        let key = flag.replace('-', "_");
        mine.iter().chain(others.clone()).find(|f| f.key == key).map(|f| f.label)
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("--") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let len =
            after.find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')).unwrap_or(after.len());
        let flag = after[..len].trim_end_matches('-');
        // Only a flag at a word's start: "a--b" or "---" are not flags.
        let starts_word = out.chars().last().is_none_or(|c| !c.is_alphanumeric());
        match label(flag).filter(|_| starts_word && !flag.is_empty()) {
            Some(label) => {
                out.push_str(label);
                rest = &after[flag.len()..];
                for (said, word) in [("=false", " off"), ("=true", " on")] {
                    if let Some(tail) = rest.strip_prefix(said) {
                        out.push_str(word);
                        rest = tail;
                    }
                }
            }
            None => {
                out.push_str("--");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::in_form_words;

    #[test]
    fn flags_are_said_as_the_fields_that_set_them() {
        // Each expected sentence is the input with the flag swapped for the label in FIELDS/ETCD_FIELDS.
        assert_eq!(
            in_form_words("--user needs --password (or ETCD_PASSWORD)", "etcd"),
            "User needs Password (or ETCD_PASSWORD)"
        );
        assert_eq!(
            in_form_words("--warmup-size must be between 1 B and 5 TiB", "gcs"),
            "Warmup size must be between 1 B and 5 TiB"
        );
        assert_eq!(
            in_form_words("keeping what this run created (--cleanup=false)", "gcs"),
            "keeping what this run created (Cleanup off)"
        );
        assert_eq!(in_form_words("--prefix needs a name", "etcd"), "Key prefix needs a name", "the etcd form's label");
        assert_eq!(in_form_words("--prefix '/a' is used as 'a'", "gcs"), "Prefix '/a' is used as 'a'");
        assert_eq!(
            in_form_words("add --endpoint URL (or STORAGE_EMULATOR_HOST), or use --transports grpc", "gcs"),
            "add JSON endpoint URL (or STORAGE_EMULATOR_HOST), or use Transports grpc"
        );
        assert_eq!(
            in_form_words("see --format json, a--b and ---", "gcs"),
            "see --format json, a--b and ---",
            "not fields"
        );
    }
}
