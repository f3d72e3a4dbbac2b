//! What both transports' reads share: the loop that reads a span of an
//! object, resumes it from the last byte received when the connection
//! breaks or the server fails mid-read (as Google's libraries do), and
//! checks the whole object's crc32c when asked. Each transport supplies how
//! to open a read at an offset.

use super::{CreatedObject, Progress, RetryPolicy, TransportError, back_off_or_fail};
use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use std::sync::Arc;
use std::time::Instant;

/// An object that exists already, as a listing gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedObject {
    pub object: CreatedObject,
    pub size: u64,
}

/// A part of an object: `len` bytes from `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct ByteRange {
    pub offset: u64,
    pub len: u64,
}

pub struct DownloadRequest {
    pub object: CreatedObject,
    /// `None`: the whole object.
    pub range: Option<ByteRange>,
    /// Check the whole object's crc32c against the server's (whole reads only).
    pub check_crc32c: bool,
    pub progress: Arc<Progress>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DownloadOutcome {
    pub bytes: u64,
    /// From the request to the first byte of the body.
    pub first_byte_s: f64,
    /// From the first byte to the last.
    pub transfer_s: f64,
    /// A whole-object check was asked for, but the server sent no crc32c of
    /// the whole object (the proto and the JSON API let it omit one), so only
    /// what it did send (each gRPC message's, when present) was checked.
    pub unchecked: bool,
}

impl DownloadOutcome {
    /// A read that failed: nothing received.
    pub fn nothing() -> Self {
        DownloadOutcome { bytes: 0, first_byte_s: 0.0, transfer_s: 0.0, unchecked: false }
    }
}

/// A piece of a body, with its crc32c when the transport computed it
/// already (gRPC checks each message's), so that it is not computed twice.
pub struct Piece {
    pub bytes: Bytes,
    pub crc32c: Option<u32>,
}

/// One read as opened: its body's pieces, and what the server says of the
/// whole object (its crc32c, when it sends one).
pub struct OpenRead<'a> {
    pub pieces: BoxStream<'a, Result<Piece, TransportError>>,
    pub object_crc32c: Option<u32>,
}

/// Reads the request's span through `open(offset, len)` (`len` `None`: to
/// the end), resuming at the first byte not yet received after a failure
/// the policy allows; a resume is counted on the progress, and the bytes
/// received are an absolute count on it.
pub async fn read_resuming<'a, F, Fut>(
    policy: &RetryPolicy,
    request: &DownloadRequest,
    mut open: F,
) -> Result<DownloadOutcome, TransportError>
where
    F: FnMut(u64, Option<u64>) -> Fut,
    Fut: Future<Output = Result<OpenRead<'a>, TransportError>>,
{
    let progress = &request.progress;
    let started = Instant::now();
    let (start, len) = match request.range {
        Some(range) => (range.offset, Some(range.len)),
        None => (0, None),
    };
    let mut received = 0u64;
    let mut crc = 0u32;
    let mut server_crc = None;
    let mut first_byte = None;
    let mut retries = 0;
    loop {
        let remaining = len.map(|len| len - received);
        let attempt = async {
            let mut read = open(start + received, remaining).await?;
            server_crc = server_crc.or(read.object_crc32c);
            while let Some(piece) = read.pieces.next().await {
                let Piece { bytes, crc32c: known } = piece?;
                first_byte.get_or_insert_with(Instant::now);
                if request.check_crc32c {
                    crc = match known {
                        Some(piece_crc) => gcs_protocol::crc::combine(crc, piece_crc, bytes.len() as u64),
                        None => gcs_protocol::crc::crc32c_append(crc, &bytes),
                    };
                }
                received += bytes.len() as u64;
                progress.advance_to(received);
            }
            Ok::<_, TransportError>(())
        };
        match attempt.await {
            Ok(()) if len.is_none_or(|len| received >= len) => break,
            Ok(()) => {
                let error = TransportError::Connection(format!(
                    "the read ended after {received} of {} bytes",
                    len.unwrap_or_default()
                ));
                back_off_or_fail(policy, progress, &mut retries, started, error).await?;
            }
            Err(error) => back_off_or_fail(policy, progress, &mut retries, started, error).await?,
        }
        if received > 0 {
            progress.note_resume();
        }
    }
    let whole = request.check_crc32c && request.range.is_none();
    if let Some(expected) = server_crc.filter(|&expected| whole && expected != crc) {
        return Err(TransportError::Protocol(format!(
            "checksum mismatch reading {}: crc32c of the bytes received is {}, the server's is {}",
            request.object.name,
            gcs_protocol::crc::crc32c_base64(crc),
            gcs_protocol::crc::crc32c_base64(expected)
        )));
    }
    let end = Instant::now();
    let first_byte = first_byte.unwrap_or(end);
    Ok(DownloadOutcome {
        bytes: received,
        first_byte_s: (first_byte - started).as_secs_f64(),
        transfer_s: (end - first_byte).as_secs_f64(),
        unchecked: whole && server_crc.is_none(),
    })
}
