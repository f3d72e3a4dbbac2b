//! An error's kind in a word or two (`HTTP 503`, `UNAVAILABLE`, `reset`,
//! `timeout`), so that a report can count errors and retries by kind, as
//! oha, k6 and ghz do.

use super::TransportError;
use std::collections::BTreeMap;

/// Counts by kind, in a stable order.
pub type ErrorKinds = BTreeMap<String, u32>;

impl TransportError {
    pub fn kind(&self) -> String {
        match self {
            TransportError::Http { status, .. } => format!("HTTP {status}"),
            TransportError::Grpc { code, .. } => code.clone(),
            TransportError::Connection(message) => connection_kind(message).into(),
            TransportError::Protocol(message) if message.contains("checksum mismatch") => "checksum mismatch".into(),
            TransportError::Protocol(_) => "protocol".into(),
            TransportError::Auth(_) => "auth".into(),
            TransportError::Timeout(_) => "timeout".into(),
        }
    }
}

fn connection_kind(message: &str) -> &'static str {
    let message = message.to_ascii_lowercase();
    if message.contains("reset") {
        "reset"
    } else if message.contains("refused") {
        "refused"
    } else if message.contains("timed out") {
        "timeout"
    } else if ["certificate", "tls", "handshake"].iter().any(|w| message.contains(w)) {
        "tls"
    } else {
        "connection"
    }
}

/// `HTTP 503 x12, reset x2`: the most frequent first.
pub fn format_kinds(kinds: &ErrorKinds) -> String {
    let mut by_count: Vec<(&String, &u32)> = kinds.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    by_count.iter().map(|(kind, count)| format!("{kind} x{count}")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_name_the_status_code_or_failure() {
        let http = TransportError::Http { status: 503, message: "injected".into() };
        assert_eq!(http.kind(), "HTTP 503");
        let grpc = TransportError::Grpc { code: "UNAVAILABLE".into(), message: "x".into() };
        assert_eq!(grpc.kind(), "UNAVAILABLE");
        assert_eq!(TransportError::Connection("connection reset by peer".into()).kind(), "reset");
        assert_eq!(TransportError::Connection("Connection refused (os error 111)".into()).kind(), "refused");
        assert_eq!(TransportError::Protocol("checksum mismatch reading o".into()).kind(), "checksum mismatch");
        assert_eq!(TransportError::Timeout("no byte in 30s".into()).kind(), "timeout");
    }

    #[test]
    fn kinds_are_listed_most_frequent_first() {
        let kinds: ErrorKinds = [("reset".to_string(), 2), ("HTTP 503".to_string(), 12), ("HTTP 429".into(), 2)].into();
        assert_eq!(format_kinds(&kinds), "HTTP 503 x12, HTTP 429 x2, reset x2");
        assert_eq!(format_kinds(&ErrorKinds::new()), "");
    }
}
