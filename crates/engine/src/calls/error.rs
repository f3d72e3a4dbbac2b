//! What can go wrong with a call, as every target of calls says it and its
//! report counts it: the server's refusal, the connection, an answer that
//! does not decode, or what one target alone meets.

/// A call's failure, in one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallFailure {
    /// The server refused the call: its gRPC code (`NOT_FOUND`) or HTTP
    /// status (`HTTP 404`), and its message.
    Server { kind: String, message: String },
    /// No connection, or it broke: said by its root cause.
    Connection(String),
    /// An answer that does not decode as the call's response.
    Protocol(String),
    /// What one target alone meets (`not etcd`, `mismatch`): its kind and sentence.
    Own { kind: &'static str, message: String },
    /// What this call alone met (a key not there): the client's next call
    /// may not, so it goes on.
    Alone { kind: &'static str, message: String },
}

impl std::fmt::Display for CallFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallFailure::Server { kind, message } => write!(f, "{kind}: {message}"),
            CallFailure::Connection(message)
            | CallFailure::Protocol(message)
            | CallFailure::Own { message, .. }
            | CallFailure::Alone { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for CallFailure {}

impl CallFailure {
    /// The kind a report counts it under (`HTTP 400`, `UNAVAILABLE`, `refused`).
    pub fn kind(&self) -> String {
        match self {
            CallFailure::Server { kind, .. } => kind.clone(),
            CallFailure::Connection(message) => crate::error_kinds::connection_kind(message).into(),
            CallFailure::Protocol(_) => "protocol".into(),
            CallFailure::Own { kind, .. } | CallFailure::Alone { kind, .. } => (*kind).into(),
        }
    }
}

/// A refusing server refuses the client's next calls too, so the client
/// stops; what a call alone met does not stop it.
impl super::batch::CallError for CallFailure {
    fn kind(&self) -> String {
        CallFailure::kind(self)
    }

    fn ends_client(&self) -> bool {
        !matches!(self, CallFailure::Alone { .. })
    }
}
