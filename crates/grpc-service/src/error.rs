//! What can go wrong, said as one sentence each: the user's input (a
//! .proto, a method, data) before anything is sent, and the server's
//! answers as the report counts them.

#[derive(Debug, Clone, thiserror::Error)]
pub enum ServiceError {
    /// The user's input cannot be used: said with what to do.
    #[error("{0}")]
    Input(String),
    /// The server refused a call: its gRPC code (`NOT_FOUND`) or HTTP
    /// status (`HTTP 404`), and its message.
    #[error("{kind}: {message}")]
    Server { kind: String, message: String },
    #[error("{0}")]
    Connection(String),
    /// An answer that does not decode as the method's response.
    #[error("{0}")]
    Protocol(String),
    /// The two transports answered the same request differently.
    #[error("{0}")]
    Mismatch(String),
}

impl ServiceError {
    /// The kind a report counts it under (`HTTP 400`, `UNAVAILABLE`, `refused`).
    pub fn kind(&self) -> String {
        match self {
            ServiceError::Server { kind, .. } => kind.clone(),
            ServiceError::Connection(message) => engine::error_kinds::connection_kind(message).into(),
            ServiceError::Protocol(_) => "protocol".into(),
            ServiceError::Input(_) => "input".into(),
            ServiceError::Mismatch(_) => "mismatch".into(),
        }
    }
}

pub type Result<T, E = ServiceError> = std::result::Result<T, E>;
