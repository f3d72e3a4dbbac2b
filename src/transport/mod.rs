//! A transport uploads one object and reports its progress; it knows nothing
//! of rounds, iterations or statistics. Two implementations: the JSON API over
//! reqwest and the gRPC v2 API over tonic.

pub mod grpc;
pub mod json;
mod payload_body;

use crate::auth::AuthError;
use crate::config::TransportKind;
use crate::payload::Payload;
use futures::future::BoxFuture;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

/// Data per gRPC message (GCS's MAX_WRITE_CHUNK_BYTES), and the slice size
/// of JSON bodies: large enough that no per-slice cost shows.
pub const MESSAGE_BYTES: u64 = 2 * 1024 * 1024;

/// An object this run created, exactly: cleanup deletes by name and generation.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CreatedObject {
    pub name: String,
    pub generation: i64,
}

pub struct UploadRequest {
    pub name: String,
    pub payload: Payload,
    /// Bytes of this object handed to the connection so far, as an absolute
    /// offset (a resumed upload moves it back). Read by the runner's ticker.
    pub progress: Arc<AtomicU64>,
}

#[derive(Clone, Debug)]
pub struct UploadOutcome {
    pub object: CreatedObject,
    /// The size the server reports.
    pub size: u64,
    /// The crc32c the server computed, when it says.
    pub crc32c: Option<u32>,
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum TransportError {
    #[error("HTTP {status}: {message}")]
    Http { status: u16, message: String },
    #[error("gRPC {code}: {message}")]
    Grpc { code: String, message: String },
    #[error("{0}")]
    Connection(String),
    #[error("{0}")]
    Protocol(String),
    #[error("{0}")]
    Auth(String),
}

impl From<AuthError> for TransportError {
    fn from(error: AuthError) -> Self {
        TransportError::Auth(error.to_string())
    }
}

pub trait Uploader: Send + Sync {
    fn kind(&self) -> TransportKind;

    /// Uploads one whole object; created with `ifGenerationMatch=0`, so a
    /// name that exists already is refused rather than overwritten.
    fn upload(
        &self,
        request: UploadRequest,
    ) -> BoxFuture<'_, Result<UploadOutcome, TransportError>>;

    /// Deletes an object this run created, only if its generation is unchanged.
    fn delete<'a>(&'a self, object: &'a CreatedObject)
    -> BoxFuture<'a, Result<(), TransportError>>;

    /// Checks the bucket exists; creates it when `create` (emulators only).
    fn prepare_bucket(&self, create: bool) -> BoxFuture<'_, Result<(), TransportError>>;

    /// The protocol on the wire, as negotiated (`HTTP/1.1`, `HTTP/2`, `HTTP/2 + TLS`).
    fn protocol(&self) -> String;
}

/// The object names of a run: `PREFIX/RUN-ID/TRANSPORT/ROUND-WORKER`.
pub fn object_name(
    prefix: &str,
    run_id: &str,
    kind: TransportKind,
    round: &str,
    worker: u32,
) -> String {
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}/")
    };
    format!("{prefix}{run_id}/{}/{round}-{worker}", kind.name())
}
