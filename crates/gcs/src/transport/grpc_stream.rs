//! The pieces of a gRPC write: feeding one BidiWriteObject stream, reading
//! its answers, and saying what a status means.

use super::{CreatedObject, MESSAGE_BYTES, Phases, TransportError, UploadOutcome, UploadRequest};
use bytes::Bytes;
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use pb::bidi_write_object_request::{Data, FirstMessage};
use pb::bidi_write_object_response::WriteStatus;
use std::time::Instant;
use tokio::sync::mpsc;
use tonic::{Code, Status, Streaming};

/// Feeds one bidi stream: messages of up to 2 MiB, a flush + state_lookup at
/// each chunk's end, finish_write with the object's crc32c at the object's end.
pub struct StreamWriter {
    pub tx: mpsc::Sender<Bytes>,
    pub first: Option<FirstMessage>,
    /// crc32c of everything sent so far, combined from the per-message ones.
    pub crc: u32,
    pub checksum: bool,
}

impl StreamWriter {
    pub async fn send_range(
        &mut self,
        request: &UploadRequest,
        start: u64,
        end: u64,
        total: u64,
    ) -> Result<(), TransportError> {
        let mut offset = start;
        let payload = &request.payload;
        request.progress.flush_started();
        let mut segments = payload.segments(start, end, MESSAGE_BYTES);
        // Each message's crc32c is taken on another thread while the message
        // before it is being written, so a single stream uses two cores.
        let checksum = self.checksum;
        let with_crc = |content: Bytes, at: u64| {
            let crc = checksum.then(|| super::crc32c_in_background(payload, at, at + content.len() as u64));
            (content, crc)
        };
        let mut next = segments.next().map(|content| with_crc(content, offset));
        while let Some((content, crc)) = next.take() {
            let message_crc = match crc {
                Some(pass) => Some(pass.await?),
                None => None,
            };
            let len = content.len() as u64;
            next = segments.next().map(|content| with_crc(content, offset + len));
            if let Some(crc) = message_crc {
                self.crc = gcs_protocol::crc::combine(self.crc, crc, len);
            }
            let last_of_range = offset + len == end;
            let finish = last_of_range && end == total;
            let message = pb::BidiWriteObjectRequest {
                first_message: self.first.take(),
                write_offset: offset as i64,
                data: Some(Data::ChecksummedData(pb::ChecksummedData { content, crc32c: message_crc })),
                finish_write: finish,
                flush: last_of_range && !finish,
                state_lookup: last_of_range && !finish,
                object_checksums: (finish && self.checksum)
                    .then_some(pb::ObjectChecksums { crc32c: Some(self.crc), ..Default::default() }),
                ..Default::default()
            };
            let closed = |_| TransportError::Connection("the gRPC stream closed while sending".into());
            let (head, content) = super::grpc_frame::frame(message);
            self.tx.send(head).await.map_err(closed)?;
            if !content.is_empty() {
                self.tx.send(content).await.map_err(closed)?;
            }
            offset += len;
            request.progress.advance_to(offset);
            if finish {
                request.progress.mark_last_byte();
            }
        }
        Ok(())
    }
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
