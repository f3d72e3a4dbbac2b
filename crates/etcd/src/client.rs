//! What both etcd transports offer the benchmark, and how they reach the
//! cluster (endpoints, TLS, user): the HTTP gateway and gRPC differ only in
//! how they carry the same v3 requests.

use engine::plan::TransportKind;
use futures::future::BoxFuture;
use std::path::PathBuf;
use std::time::Instant;
use tokio::sync::mpsc;

/// How to reach the cluster, the same for both transports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reach {
    /// `http://127.0.0.1:2379` or `https://...`; requests go round-robin.
    pub endpoints: Vec<String>,
    /// CA bundle that signed the servers' certificates (else the system's roots).
    pub cacert: Option<PathBuf>,
    /// Client certificate and key for mutual TLS.
    pub identity: Option<(PathBuf, PathBuf)>,
    pub user: Option<(String, String)>,
    /// gRPC channels shared by the clients (HTTP/1.1 opens what it needs).
    pub conns: u32,
}

/// A call's failure as every target of calls says it: etcd's own refusal
/// is its gRPC status or the gateway's JSON error (`INVALID_ARGUMENT`,
/// `HTTP 400`).
pub type EtcdError = engine::calls::error::CallFailure;

/// The server answered, but not as etcd's gRPC does (UNIMPLEMENTED, or an
/// HTTP answer that is not gRPC): another server on that port.
pub const NOT_ETCD: &str = "not etcd";
/// etcd answered, but the key the run wrote was not there (a range that
/// found nothing: deleted under the run).
pub const NOT_FOUND: &str = "not found";

/// One event a watcher received: the key's revision, when it arrived.
#[derive(Clone, Debug)]
pub struct Delivered {
    pub revision: i64,
    pub at: Instant,
}

/// A watch's end as the watcher saw it: `Ok` when the stream was dropped by
/// us, or the reason etcd or the connection ended it.
pub type WatchEnd = Result<(), EtcdError>;

pub trait Kv: Send + Sync {
    fn kind(&self) -> TransportKind;

    /// Puts one key; the store's revision after it.
    fn put(&self, key: Vec<u8>, value: Vec<u8>) -> BoxFuture<'_, Result<i64, EtcdError>>;

    /// Reads one key; how many key-values came back (0 or 1).
    fn range(&self, key: Vec<u8>) -> BoxFuture<'_, Result<usize, EtcdError>>;

    /// Deletes every key starting with `prefix`; how many there were.
    fn delete_prefix(&self, prefix: Vec<u8>) -> BoxFuture<'_, Result<i64, EtcdError>>;

    /// Watches keys starting with `prefix` from `start_revision`, sending each
    /// event as it arrives; resolves once etcd confirms the watch exists,
    /// with a task that runs until the receiver is dropped.
    fn watch(
        &self,
        prefix: Vec<u8>,
        start_revision: i64,
        events: mpsc::UnboundedSender<Delivered>,
    ) -> BoxFuture<'_, Result<tokio::task::JoinHandle<WatchEnd>, EtcdError>>;

    /// The protocol on the wire (`HTTP/1.1`, `HTTP/2`, with `+ TLS`).
    fn protocol(&self) -> String;

    /// Connections opened so far.
    fn connections(&self) -> u64;
}

/// The first key after every key that starts with `prefix` (etcd's range_end
/// for a prefix): the prefix with its last byte below 0xff incremented.
pub fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    vec![0] // every key
}

/// `etcd at URL: what went wrong`, with the cause etcd or the network gave.
pub fn unreachable(endpoint: &str, cause: &str) -> EtcdError {
    let lowered = cause.to_ascii_lowercase();
    let hint = if ["certificate", "tls", "handshake", "alert", "unknownissuer"].iter().any(|w| lowered.contains(w)) {
        "the TLS handshake failed: check --cacert (the CA that signed etcd's certificate) and --cert/--key (a client certificate etcd trusts)"
    } else {
        "check --endpoints and that etcd is running there"
    };
    EtcdError::Connection(format!("cannot reach etcd at {endpoint} ({cause}): {hint}"))
}

/// etcd's refusals that a person can fix, said as what to do.
pub fn explain_server_error(message: &str) -> String {
    let hint = if message.contains("user name is empty") || message.contains("invalid auth token") {
        Some("etcd has authentication enabled: give --user and --password")
    } else if message.contains("authentication is not enabled") {
        Some("this etcd has authentication off: leave out --user and --password")
    } else if message.contains("authentication failed") {
        Some("the user name or password was refused: check --user and --password")
    } else if message.contains("permission denied") {
        Some("the user's roles do not allow this key range: grant it readwrite on the run's prefix")
    } else {
        None
    };
    // Said after the refusal's kind (`PERMISSION_DENIED: `, `HTTP 401: `).
    match hint {
        Some(hint) => format!("{message}; {hint}"),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_ends_at_its_next_key() {
        assert_eq!(prefix_end(b"run/"), b"run0");
        assert_eq!(prefix_end(b"a\xff"), b"b");
        assert_eq!(prefix_end(b"\xff\xff"), [0]);
    }

    #[test]
    fn refusals_say_what_to_do() {
        let said = explain_server_error("etcdserver: user name is empty");
        assert_eq!(said, "etcdserver: user name is empty; etcd has authentication enabled: give --user and --password");
        assert!(
            explain_server_error("etcdserver: authentication failed, invalid user ID or password")
                .contains("check --user")
        );
    }
}
