//! A transport uploads one object and reports its progress; it knows nothing
//! of rounds, iterations or statistics. Two implementations: the JSON API over
//! reqwest and the gRPC v2 API over tonic.

pub mod download;
pub mod error_kind;
pub mod grpc;
mod grpc_bidi_read;
mod grpc_download;
pub(crate) mod grpc_frame;
mod grpc_stream;
mod grpc_write_body;
pub mod json;
mod json_answers;
mod json_download;
mod payload_body;
mod progress;
pub mod ranges;
pub mod retry;

pub use progress::{Progress, Recovery};
pub use retry::RetryPolicy;
pub use wire::connections::{CountConnections, root_cause};

use crate::auth::AuthError;
use crate::config::TransportKind;
use crate::payload::Payload;
use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Instant;

/// Data per gRPC message (GCS's MAX_WRITE_CHUNK_BYTES), and the slice size
/// of JSON bodies: large enough that no per-slice cost shows.
pub const MESSAGE_BYTES: u64 = 2 * 1024 * 1024;

/// An object this run created, exactly: cleanup deletes by name and generation.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct CreatedObject {
    pub name: String,
    pub generation: i64,
}

pub struct UploadRequest {
    pub name: String,
    pub payload: Payload,
    pub progress: Arc<Progress>,
}

/// Where an upload's time went: starting a resumable session, sending the
/// bytes, and waiting for the final answer after the last byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Phases {
    /// From the start to the session's answer; none for an upload sent in
    /// one request (and for reads): nothing to measure, so not a zero.
    #[serde(default)]
    pub session_s: Option<f64>,
    pub transfer_s: f64,
    pub finalize_s: f64,
}

impl Phases {
    /// From the instants of: the start, the session's answer (none for one
    /// shot), the last byte handed over, and the final answer.
    pub fn from_instants(start: Instant, session: Option<Instant>, last_byte: Option<Instant>, end: Instant) -> Self {
        let data_start = session.unwrap_or(start);
        let last_byte = last_byte.unwrap_or(end).clamp(data_start, end);
        Self {
            session_s: session.map(|_| (data_start - start).as_secs_f64()),
            transfer_s: (last_byte - data_start).as_secs_f64(),
            finalize_s: (end - last_byte).as_secs_f64(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct UploadOutcome {
    pub object: CreatedObject,
    /// The size the server reports; `None` when its answer leaves it out
    /// (the JSON API's answer may: a partial response, a minimal server),
    /// so the upload's length could not be checked.
    pub size: Option<u64>,
    pub phases: Phases,
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
    #[error("{0}")]
    Timeout(String),
}

impl TransportError {
    /// What a person can do about it, for the errors they can fix.
    pub fn hint(&self, bucket: &str) -> Option<String> {
        let grpc = |wanted: &str| matches!(self, TransportError::Grpc { code, .. } if code == wanted);
        if matches!(self, TransportError::Http { status: 401, .. }) || grpc("UNAUTHENTICATED") {
            Some("the credentials were refused: check the key file and that the account still exists".into())
        } else if matches!(self, TransportError::Http { status: 403, .. }) || grpc("PERMISSION_DENIED") {
            Some(format!(
                "the account lacks storage.objects.create or storage.objects.delete on bucket {bucket}: grant it roles/storage.objectUser there"
            ))
        } else {
            None
        }
    }

    /// The error, with its hint when it has one.
    pub fn explained(&self, bucket: &str) -> String {
        match self.hint(bucket) {
            Some(hint) => format!("{self}; {hint}"),
            None => self.to_string(),
        }
    }
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
    fn upload(&self, request: UploadRequest) -> BoxFuture<'_, Result<UploadOutcome, TransportError>>;

    /// Up to `limit` existing objects whose names start with `prefix`, by name.
    fn list<'a>(
        &'a self,
        prefix: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<download::ListedObject>, TransportError>>;

    /// Reads an object (or a range of it), resuming after failures mid-read.
    fn download(
        &self,
        request: download::DownloadRequest,
    ) -> BoxFuture<'_, Result<download::DownloadOutcome, TransportError>>;

    /// Reads many ranges of one object, all wanted at once: by default one
    /// request per range (see `ranges`).
    fn read_ranges(
        &self,
        request: ranges::RangesRequest,
    ) -> BoxFuture<'_, Result<ranges::RangesOutcome, TransportError>> {
        Box::pin(ranges::each_apart(self, request))
    }

    /// Deletes an object this run created, only if its generation is unchanged.
    fn delete<'a>(&'a self, object: &'a CreatedObject) -> BoxFuture<'a, Result<(), TransportError>>;

    /// The object of exactly this name, if it exists (an upload cut off by a
    /// cancel may still have completed on the server).
    fn lookup<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<Option<CreatedObject>, TransportError>>;

    /// Cancels a resumable session that an interrupted upload left open.
    fn cancel_session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), TransportError>>;

    /// Checks the bucket exists; creates it when `create` (emulators only).
    fn prepare_bucket(&self, create: bool) -> BoxFuture<'_, Result<(), TransportError>>;

    /// Which of `permissions` the caller has on the bucket, when this
    /// transport can ask (the JSON API's testIamPermissions).
    fn granted_permissions<'a>(
        &'a self,
        _permissions: &'a [&'a str],
    ) -> BoxFuture<'a, Result<Option<Vec<String>>, TransportError>> {
        Box::pin(async { Ok(None) })
    }

    /// The protocol on the wire, as negotiated (`HTTP/1.1`, `HTTP/2`, `HTTP/2 + TLS`).
    fn protocol(&self) -> String;

    /// Connections opened so far.
    fn connections(&self) -> u64;

    /// The port its server listens on (to find its sockets).
    fn peer_port(&self) -> u16;
}

/// Up to this, a crc32c pass (about 30 µs a MiB on this project's VM) costs
/// less than handing it to another thread and waking that: it is done at
/// once, on the caller's thread, as a gRPC message's is.
const INLINE_CRC_BYTES: u64 = 1 << 20;

/// crc32c of payload bytes [start, end), started now on the blocking pool (a
/// pass over a large range must not hold up an async worker), split across
/// the cores (`Payload::crc32c_parts`), and awaited when the caller needs
/// it, so it can run while something else is sent; a short range's is
/// worked out at once. The pool's threads are the client's own and outlive
/// the run, so their CPU stays counted (one that ended would take its CPU
/// with it: `engine::cpu`).
pub fn crc32c_in_background(
    payload: &Payload,
    start: u64,
    end: u64,
) -> impl std::future::Future<Output = Result<u32, TransportError>> + use<> {
    let at_once = (end.saturating_sub(start) <= INLINE_CRC_BYTES).then(|| payload.crc32c_range(start, end));
    let parts = if at_once.is_some() { Vec::new() } else { Payload::crc32c_parts(start, end) };
    let passes: Vec<_> = parts
        .iter()
        .map(|&(a, b)| {
            let payload = payload.clone();
            tokio::task::spawn_blocking(move || payload.crc32c_range(a, b))
        })
        .collect();
    async move {
        if let Some(crc) = at_once {
            return Ok(crc);
        }
        let mut crc = 0;
        for (pass, (a, b)) in passes.into_iter().zip(parts) {
            let part = pass.await.map_err(|e| TransportError::Protocol(format!("the crc32c pass failed: {e}")))?;
            crc = gcs_protocol::crc::combine(crc, part, b - a);
        }
        Ok(crc)
    }
}

/// A connection failure in one sentence; a TLS failure says what to check.
pub fn connection_failure(url: &str, what: &str, cause: &str) -> TransportError {
    const TLS_SIGNS: [&str; 6] = ["certificate", "corrupt message", "handshake", "tls", "TLS", "alert"];
    if !(url.starts_with("https://") && TLS_SIGNS.iter().any(|sign| cause.contains(sign))) {
        return TransportError::Connection(format!("could not {what} at {url}: {cause}"));
    }
    let host = url.trim_start_matches("https://").split('/').next().unwrap_or(url);
    let name = host.rsplit_once(':').map_or(host, |(name, _)| name);
    TransportError::Connection(if cause.contains("UnknownIssuer") || cause.contains("unknown issuer") {
        format!(
            "the TLS certificate of {host} is not signed by a CA this machine trusts: pass --ca-cert FILE with the CA that signed it (or set SSL_CERT_FILE)"
        )
    } else if cause.contains("NotValidForName") || cause.contains("not valid for name") {
        format!(
            "the TLS certificate of {host} is not for {name} ({cause}): connect by a name the certificate lists, or have it reissued for {name}"
        )
    } else {
        format!("TLS with {url} failed ({cause}): check that it speaks HTTPS with a certificate this machine trusts")
    })
}

/// Runs `attempt` (given its number, 0 first) until it succeeds, fails for
/// good, or the policy says stop; waits with backoff in between and counts
/// the retries on `progress`.
pub async fn with_retries<T, F, Fut>(
    policy: &RetryPolicy,
    progress: &Progress,
    mut attempt: F,
) -> Result<T, TransportError>
where
    F: FnMut(u32) -> Fut,
    Fut: std::future::Future<Output = Result<T, TransportError>>,
{
    let started = Instant::now();
    let mut retries = 0;
    loop {
        match attempt(retries).await {
            Ok(value) => return Ok(value),
            Err(error) => back_off_or_fail(policy, progress, &mut retries, started, error).await?,
        }
    }
}

/// If the policy allows another try after `error`, waits the backoff and
/// counts the retry; otherwise gives the error back.
pub async fn back_off_or_fail(
    policy: &RetryPolicy,
    progress: &Progress,
    retries: &mut u32,
    started: Instant,
    error: TransportError,
) -> Result<(), TransportError> {
    if policy.refresh_after(&error, progress) {
        tracing::info!("the token was refused: retrying once with a new one");
        *retries += 1;
        progress.note_retry(&error);
        return Ok(());
    }
    if !policy.allows(*retries, started.elapsed(), &error) {
        return Err(error);
    }
    tracing::info!("retrying after: {error}");
    // A stream the server refused before any work (HTTP/2 REFUSED_STREAM:
    // more streams than it allows at once) is tried again at once, as
    // Google's gRPC clients do: waiting out a backoff would time the wait.
    if !refused_stream(&error) {
        tokio::time::sleep(policy.backoff(*retries, units::random_u64())).await;
    }
    *retries += 1;
    progress.note_retry(&error);
    Ok(())
}

/// HTTP/2's REFUSED_STREAM: the server did nothing with the request.
fn refused_stream(error: &TransportError) -> bool {
    let message = match error {
        TransportError::Connection(message) | TransportError::Grpc { message, .. } => message,
        _ => return false,
    };
    message.to_ascii_lowercase().contains("refused stream")
}

/// Fails a request that makes no progress (no byte handed over) for `limit`:
/// a stalled server or link, whatever the object's size.
pub async fn stall_guard<T>(
    progress: &Progress,
    limit: std::time::Duration,
    request: impl std::future::Future<Output = Result<T, TransportError>>,
) -> Result<T, TransportError> {
    let watch = async {
        let mut last = (progress.bytes(), Instant::now());
        loop {
            tokio::time::sleep((limit / 4).max(std::time::Duration::from_millis(10))).await;
            let now = progress.bytes();
            if now != last.0 {
                last = (now, Instant::now());
            } else if last.1.elapsed() >= limit {
                return units::format_duration(limit);
            }
        }
    };
    tokio::select! {
        result = request => result,
        limit = watch => Err(TransportError::Timeout(format!("the request made no progress for {limit} (--request-timeout)"))),
    }
}

/// The port of `http://host:port` or `https://host[:port]`.
pub fn url_port(url: &str) -> u16 {
    match url.parse::<http::Uri>() {
        Ok(uri) => uri.port_u16().unwrap_or(if uri.scheme_str() == Some("https") { 443 } else { 80 }),
        Err(_) => 0,
    }
}

/// The object names of a run: `PREFIX/RUN-ID/TRANSPORT/ROUND-WORKER`.
pub fn object_name(prefix: &str, run_id: &str, kind: TransportKind, round: &str, worker: u32) -> String {
    let prefix = if prefix.is_empty() { String::new() } else { format!("{prefix}/") };
    format!("{prefix}{run_id}/{}/{round}-{worker}", kind.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn phases_split_an_upload_at_its_instants() {
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let resumable = Phases::from_instants(t0, Some(at(100)), Some(at(900)), at(950));
        assert!((resumable.session_s.unwrap() - 0.1).abs() < 1e-9);
        assert!((resumable.transfer_s - 0.8).abs() < 1e-9);
        assert!((resumable.finalize_s - 0.05).abs() < 1e-9);
        let one_shot = Phases::from_instants(t0, None, Some(at(400)), at(500));
        assert_eq!(one_shot.session_s, None);
        assert!((one_shot.transfer_s + one_shot.finalize_s - 0.5).abs() < 1e-9, "the phases add up to the upload");
        let unknown = Phases::from_instants(t0, None, None, at(500));
        assert_eq!(unknown.finalize_s, 0.0);
    }

    #[test]
    fn ports_come_from_urls() {
        assert_eq!(url_port("https://storage.googleapis.com"), 443);
        assert_eq!(url_port("https://storage.googleapis.com:443"), 443);
        assert_eq!(url_port("http://127.0.0.1:9023"), 9023);
        assert_eq!(url_port("http://localhost"), 80);
    }
}
