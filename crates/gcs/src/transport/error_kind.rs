//! A GCS transport error's kind (`HTTP 503`, `UNAVAILABLE`, `reset`,
//! `timeout`); the counting by kind is the engine's, shared with etcd.

use super::TransportError;
use engine::error_kinds::connection_kind;
pub use engine::error_kinds::{ErrorKinds, format_kinds};

impl TransportError {
    pub fn kind(&self) -> String {
        match self {
            TransportError::Http { status, .. } => format!("HTTP {status}"),
            TransportError::Grpc { message, .. } if message.to_ascii_lowercase().contains("too many open files") => {
                engine::descriptors::TOO_MANY_OPEN_FILES.into()
            }
            TransportError::Grpc { code, .. } => code.clone(),
            TransportError::Connection(message) => connection_kind(message).into(),
            TransportError::Protocol(message) if message.contains("checksum mismatch") => "checksum mismatch".into(),
            TransportError::Protocol(_) => "protocol".into(),
            TransportError::Auth(_) => "auth".into(),
            TransportError::Timeout(_) => engine::descriptors::named("timeout").into(),
        }
    }
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
}
