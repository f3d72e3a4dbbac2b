//! A failed upload or read as the runner keeps it: the sentence people read,
//! and its kind, so that reports count failures by kind.

use crate::transport::TransportError;

#[derive(Clone, Debug, PartialEq)]
pub struct Failed {
    /// `HTTP 503`, `UNAVAILABLE`, `reset`, `short write`: see `TransportError::kind`.
    pub kind: String,
    /// The error with its hint, as notes and samples say it.
    pub said: String,
}

impl Failed {
    pub fn of(error: &TransportError, bucket: &str) -> Self {
        Failed { kind: error.kind(), said: error.explained(bucket) }
    }

    /// The server answered, with less than the whole item.
    pub fn short(kind: &str, said: String) -> Self {
        Failed { kind: kind.into(), said }
    }
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.said)
    }
}
