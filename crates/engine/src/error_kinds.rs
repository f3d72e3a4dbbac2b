//! An error's kind in a word or two (`HTTP 503`, `UNAVAILABLE`, `reset`,
//! `timeout`), counted by kind, so that every target's report can say what
//! failed as oha, k6 and ghz do.

use std::collections::BTreeMap;

/// Counts by kind, in a stable order.
pub type ErrorKinds = BTreeMap<String, u32>;

/// Adds up counts by kind.
pub fn count_kinds<'a>(counts: impl IntoIterator<Item = (&'a str, u32)>) -> ErrorKinds {
    let mut kinds = ErrorKinds::new();
    for (kind, count) in counts {
        *kinds.entry(kind.to_string()).or_default() += count;
    }
    kinds
}

/// `HTTP 503 x12, reset x2`: the most frequent first.
pub fn format_kinds(kinds: &ErrorKinds) -> String {
    let mut by_count: Vec<(&String, &u32)> = kinds.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    by_count.iter().map(|(kind, count)| format!("{kind} x{count}")).collect::<Vec<_>>().join(", ")
}

/// A failed connection's kind, from what the network said.
pub fn connection_kind(message: &str) -> &'static str {
    let message = message.to_ascii_lowercase();
    if message.contains("too many open files") {
        crate::descriptors::TOO_MANY_OPEN_FILES
    } else if message.contains("reset") {
        "reset"
    } else if message.contains("refused") {
        "refused"
    } else if message.contains("timed out") {
        "timeout"
    } else if ["certificate", "tls", "handshake"].iter().any(|w| message.contains(w)) {
        "tls"
    } else {
        // A connection that could not be made or answered while the process
        // is out of descriptors is that shortage, not the network's.
        crate::descriptors::named("connection")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_listed_most_frequent_first() {
        let kinds = count_kinds([("reset", 1), ("HTTP 503", 12), ("HTTP 429", 2), ("reset", 1)]);
        assert_eq!(format_kinds(&kinds), "HTTP 503 x12, HTTP 429 x2, reset x2");
        assert_eq!(format_kinds(&ErrorKinds::new()), "");
    }

    #[test]
    fn connections_and_codes_are_named_as_said() {
        assert_eq!(connection_kind("connection reset by peer"), "reset");
        assert_eq!(connection_kind("Connection refused (os error 111)"), "refused");
        assert_eq!(connection_kind("invalid peer certificate: UnknownIssuer"), "tls");
    }
}
