//! The pieces of a gRPC write: feeding one BidiWriteObject stream, reading
//! its answers, and saying what a status means.

pub use super::grpc_write_body::{RangeToSend, WriteBody};
use super::{CreatedObject, Phases, TransportError, UploadOutcome, UploadRequest};
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use pb::bidi_write_object_request::FirstMessage;
use pb::bidi_write_object_response::WriteStatus;
use std::time::Instant;
use tokio::sync::mpsc;
use tonic::{Code, Status, Streaming};

/// Feeds one bidi stream a range at a time (see `WriteBody`): messages of
/// up to 2 MiB, a flush + state_lookup at each chunk's end, finish_write
/// with the object's crc32c at the object's end.
pub struct StreamWriter {
    pub tx: mpsc::Sender<RangeToSend>,
    pub first: Option<FirstMessage>,
}

impl StreamWriter {
    /// Hands `[start, end)` to the stream; `crc_before` as `RangeToSend`'s.
    pub async fn send_range(
        &mut self,
        request: &UploadRequest,
        start: u64,
        end: u64,
        crc_before: Option<u32>,
    ) -> Result<(), TransportError> {
        request.progress.flush_started();
        let range = RangeToSend { first: self.first.take(), start, end, crc_before };
        self.tx.send(range).await.map_err(|_| TransportError::Connection("the gRPC stream closed while sending".into()))
    }
}

/// Where the chunk holding byte `from` ends: the next multiple of `chunk`
/// past it, or the object's end.
pub fn chunk_end(from: u64, chunk: u64, total: u64) -> u64 {
    ((from / chunk + 1) * chunk).min(total)
}

/// When sending fails, the server has usually closed the stream with a
/// status that says why: prefer it to "the stream closed".
pub async fn server_reason(
    responses: &mut Streaming<pb::BidiWriteObjectResponse>,
    send_error: TransportError,
) -> TransportError {
    match next_status(responses).await {
        Err(reason) => reason,
        Ok(_) => send_error,
    }
}

pub async fn next_status(
    responses: &mut Streaming<pb::BidiWriteObjectResponse>,
) -> Result<WriteStatus, TransportError> {
    loop {
        match responses.message().await.map_err(status_error)? {
            Some(pb::BidiWriteObjectResponse { write_status: Some(status), .. }) => return Ok(status),
            Some(_) => continue,
            None => {
                return Err(TransportError::Protocol("the server closed the write stream without an answer".into()));
            }
        }
    }
}

/// A resumable upload's end: the object, with the upload's phases.
pub fn finished(
    progress: &super::Progress,
    started: Instant,
    session_ready: Instant,
    object: pb::Object,
) -> UploadOutcome {
    progress.set_session(None);
    outcome(object, Phases::from_instants(started, Some(session_ready), progress.last_byte(), Instant::now()))
}

pub fn outcome(object: pb::Object, phases: Phases) -> UploadOutcome {
    UploadOutcome {
        object: CreatedObject { name: object.name, generation: object.generation },
        // proto3 gives `size` no presence: a v2 server always sends it.
        size: Some(object.size as u64),
        phases,
    }
}

pub fn status_error(status: Status) -> TransportError {
    // tonic reports a broken connection or stream as UNKNOWN (or INTERNAL)
    // with the transport error as its source: that is a connection failure,
    // worth a retry, not an answer from the server.
    if matches!(status.code(), Code::Unknown | Code::Internal) && std::error::Error::source(&status).is_some() {
        return TransportError::Connection(format!("the gRPC connection broke: {}", super::root_cause(&status)));
    }
    let message = match status.code() {
        Code::Unavailable | Code::Unknown | Code::Internal if status.message().is_empty() => {
            "the connection failed".into()
        }
        _ => status.message().to_string(),
    };
    TransportError::Grpc { code: wire::connections::grpc_code_name(status.code()), message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_print_as_grpc_spells_them() {
        let error = status_error(Status::failed_precondition("nope"));
        assert_eq!(error.to_string(), "gRPC FAILED_PRECONDITION: nope");
    }
}
