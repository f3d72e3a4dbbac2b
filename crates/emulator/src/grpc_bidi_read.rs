//! `BidiReadObject`: many ranges of one object over one stream. The first
//! message names the object (`read_object_spec`, or a read handle from an
//! earlier stream) and is answered at once with its metadata and a read
//! handle; every message may add `read_ranges`, each tagged with the
//! client's `read_id`. Ranges are answered in pieces of at most 2 MiB, each
//! with its crc32c, taking turns, so a range's pieces arrive in order and
//! different ranges interleave; a range's last piece says `range_end`. The
//! stream ends when the client has closed its side and every range is sent.
//! A bad range ends the stream with OUT_OF_RANGE and a `BidiReadObjectError`
//! naming it; an injected fault fires after N bytes of the stream, as for
//! other reads. Pieces are framed around slices of the stored bytes (never
//! copied), as `ReadObject`'s are.

use super::faults::Trigger;
use super::grpc_read::{MessageReader, malformed};
use super::grpc_read_object::{MESSAGE_CONTENT_BYTES, Wanted, fire_opening_fault, opening, piece_crc, readable};
use super::grpc_reply::Replies;
use super::grpc_write::{bucket_name, grpc_code, to_proto, to_status};
use super::reads::{Served, Span, offset_span, serve};
use super::server::ConnectionKill;
use super::store::StoredObject;
use super::{ReadChecksums, Shared};
use bytes::Bytes;
use googleapis_tonic_google_storage_v2::google::rpc;
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use hyper::body::Incoming;
use prost::Message;
use std::collections::VecDeque;
use std::sync::Arc;
use tonic::{Code, Status};

mod frame;
use frame::frame_range;

pub async fn bidi_read_object(
    shared: Arc<Shared>,
    kill: ConnectionKill,
    req: http::Request<Incoming>,
) -> Result<http::Response<tonic::body::Body>, Status> {
    let (mut trigger, reader, first) = opening::<pb::BidiReadObjectRequest>(&shared, req, "BidiReadObject").await?;
    let spec = first
        .read_object_spec
        .ok_or_else(|| Status::invalid_argument("the first BidiReadObject message must carry a read_object_spec"))?;
    let (object, by_handle) = resolve(&shared, &spec)?;
    let reads = &shared.bidi_reads;
    reads.opened.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    reads.by_handle.fetch_add(u64::from(by_handle), std::sync::atomic::Ordering::Relaxed);
    let wanted = Wanted {
        generation: spec.generation,
        if_generation_match: spec.if_generation_match,
        if_generation_not_match: spec.if_generation_not_match,
    };
    let data = readable(&object, wanted)?;
    fire_opening_fault(&mut trigger, &kill).await?;
    let mut metadata = to_proto(&object);
    if shared.read_checksums == ReadChecksums::None {
        metadata.checksums = None;
    }
    let head = pb::BidiReadObjectResponse {
        object_data_ranges: Vec::new(),
        // Not sent again to a stream opened with a handle, as on GCS.
        metadata: (!by_handle).then_some(metadata),
        read_handle: Some(handle_of(&object)),
    };
    let (replies, response) = Replies::open();
    let stream = Stream {
        crcs: shared.store.piece_crcs(&object),
        per_piece_crc: shared.read_checksums == ReadChecksums::Full,
        size: object.size,
        data,
        queue: VecDeque::new(),
        trigger,
    };
    tokio::spawn(stream.run(reader, replies, kill, head, first.read_ranges));
    Ok(response)
}

/// The object the spec names, and whether a read handle named it. A handle
/// pins the generation it was given for.
fn resolve(shared: &Shared, spec: &pb::BidiReadObjectSpec) -> Result<(StoredObject, bool), Status> {
    let object = shared.store.get(bucket_name(&spec.bucket)?, &spec.object).map_err(to_status)?;
    let Some(handle) = &spec.read_handle else { return Ok((object, false)) };
    if handle.handle != handle_of(&object).handle {
        return Err(Status::not_found(format!(
            "the read handle is not one of {} at generation {}: open the stream without it",
            object.name, object.generation
        )));
    }
    Ok((object, true))
}

/// An opaque handle to this generation of the object.
fn handle_of(object: &StoredObject) -> pb::BidiReadHandle {
    pb::BidiReadHandle { handle: format!("{}/{}#{}", object.bucket, object.name, object.generation).into() }
}

/// A range still to send: [at, end) of the object, for the client's `id`.
struct Pending {
    id: i64,
    at: u64,
    end: u64,
}

struct Stream {
    data: Bytes,
    size: u64,
    crcs: Option<Arc<super::contents::PieceCrcs>>,
    per_piece_crc: bool,
    queue: VecDeque<Pending>,
    trigger: Trigger,
}

/// How a stream's serving stopped.
enum Stop {
    Done,
    Failed(Status),
    Reset,
    Gone,
}

impl Stream {
    async fn run(
        mut self,
        mut reader: MessageReader,
        replies: Replies,
        kill: ConnectionKill,
        head: pb::BidiReadObjectResponse,
        ranges: Vec<pb::ReadRange>,
    ) {
        if !replies.send(&head).await {
            return;
        }
        let stop = match self.add(ranges) {
            Ok(()) => self.serve(&mut reader, &replies).await,
            Err(status) => Stop::Failed(status),
        };
        match stop {
            Stop::Done => replies.end(None).await,
            Stop::Failed(status) => replies.end(Some(status)).await,
            Stop::Reset => {
                replies.drained().await;
                kill.reset_now();
            }
            Stop::Gone => {}
        }
    }

    /// Sends pieces in turn until the client has closed its side and every
    /// range is sent, taking the ranges of any message that has arrived.
    async fn serve(&mut self, reader: &mut MessageReader, replies: &Replies) -> Stop {
        let mut client_open = true;
        loop {
            // `next` is cancel-safe: a message half-arrived stays buffered.
            let arrived = match (client_open, self.queue.is_empty()) {
                (false, true) => return Stop::Done,
                (true, true) => Some(reader.next().await),
                (true, false) => now_or_never(reader.next()),
                (false, false) => None,
            };
            match arrived {
                Some(Ok(Some(message))) => {
                    let added =
                        pb::BidiReadObjectRequest::decode(message.flatten()).map_err(malformed).and_then(|request| {
                            match request.read_object_spec {
                                Some(_) => {
                                    Err(Status::invalid_argument("only the first message may carry a read_object_spec"))
                                }
                                None => self.add(request.read_ranges),
                            }
                        });
                    if let Err(status) = added {
                        return Stop::Failed(status);
                    }
                }
                Some(Ok(None)) => client_open = false,
                Some(Err(status)) => return Stop::Failed(status),
                None => {}
            }
            if let Some(stop) = self.send_next_piece(replies).await {
                return stop;
            }
        }
    }

    /// Queues ranges, refusing the message if any is out of range or reuses
    /// the id of a range still being sent.
    fn add(&mut self, ranges: Vec<pb::ReadRange>) -> Result<(), Status> {
        let mut errors = Vec::new();
        let mut accepted = Vec::new();
        for range in ranges {
            let busy = self.queue.iter().chain(&accepted).any(|p: &Pending| p.id == range.read_id);
            if busy {
                return Err(Status::invalid_argument(format!(
                    "read_id {} is already in use on this stream: give each outstanding range its own",
                    range.read_id
                )));
            }
            match range_span(&range, self.size) {
                Ok(span) => accepted.push(Pending { id: range.read_id, at: span.start, end: span.end }),
                Err(why) => errors.push((range.read_id, why)),
            }
        }
        if !errors.is_empty() {
            return Err(range_errors(errors));
        }
        self.queue.extend(accepted);
        Ok(())
    }

    /// The next piece of the range whose turn it is: `None` to go on.
    async fn send_next_piece(&mut self, replies: &Replies) -> Option<Stop> {
        let mut range = self.queue.pop_front()?;
        let piece_end = range.end.min(range.at + MESSAGE_CONTENT_BYTES as u64);
        let (data, crcs, per_piece_crc, id, end) =
            (&self.data, self.crcs.as_deref(), self.per_piece_crc, range.id, range.end);
        let mut sent_to = range.at;
        let send = |piece: Bytes, corrupted: bool| {
            let crc = piece_crc(crcs, data, &piece, corrupted);
            let at = sent_to;
            sent_to += piece.len() as u64;
            let read_range = pb::ReadRange { read_offset: at as i64, read_length: piece.len() as i64, read_id: id };
            let parts = frame_range(piece, per_piece_crc.then_some(crc), read_range, sent_to == end);
            async move { replies.send_parts(parts).await }
        };
        let span = Span { start: range.at, end: piece_end };
        let served = if span.is_empty() {
            // An empty range is still answered, with its end.
            let read_range = pb::ReadRange { read_offset: range.at as i64, read_length: 0, read_id: id };
            let parts = frame_range(Bytes::new(), per_piece_crc.then_some(0), read_range, true);
            if replies.send_parts(parts).await { Served::Complete } else { Served::Gone }
        } else {
            serve(data, span, MESSAGE_CONTENT_BYTES, &mut self.trigger, send).await
        };
        range.at = piece_end;
        match served {
            Served::Complete if range.at < range.end => self.queue.push_back(range),
            Served::Complete => {}
            Served::Gone => return Some(Stop::Gone),
            Served::Reset => return Some(Stop::Reset),
            Served::Failed(code) => {
                let outstanding = std::iter::once(range.id).chain(self.queue.iter().map(|p| p.id));
                let status = Status::new(grpc_code(code), format!("injected fault: return-{code}"));
                return Some(Stop::Failed(with_range_errors(status, outstanding.collect())));
            }
        }
        None
    }
}

/// The future's output if it is ready at the first poll.
fn now_or_never<F: std::future::Future>(future: F) -> Option<F::Output> {
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match std::pin::pin!(future).poll(&mut context) {
        std::task::Poll::Ready(output) => Some(output),
        std::task::Poll::Pending => None,
    }
}

/// A `ReadRange` over an object of `size` bytes: a negative offset counts
/// from the end, a length of 0 reads to the end, a negative one is refused.
fn range_span(range: &pb::ReadRange, size: u64) -> Result<Span, String> {
    if range.read_length < 0 {
        return Err(format!("read_length {} is negative", range.read_length));
    }
    offset_span(range.read_offset, range.read_length, size)
}

/// OUT_OF_RANGE for the stream, naming each bad range in a `BidiReadObjectError`.
fn range_errors(errors: Vec<(i64, String)>) -> Status {
    let message = errors.iter().map(|(id, why)| format!("read_id {id}: {why}")).collect::<Vec<_>>().join("; ");
    let details = pb::BidiReadObjectError {
        read_range_errors: errors
            .into_iter()
            .map(|(read_id, why)| pb::ReadRangeError { read_id, status: Some(rpc_status(Code::OutOfRange, why)) })
            .collect(),
    };
    detailed(Status::out_of_range(message), &details)
}

/// `status`, with a `BidiReadObjectError` giving it to every outstanding range.
fn with_range_errors(status: Status, ids: Vec<i64>) -> Status {
    let details = pb::BidiReadObjectError {
        read_range_errors: ids
            .into_iter()
            .map(|read_id| pb::ReadRangeError {
                read_id,
                status: Some(rpc_status(status.code(), status.message().to_string())),
            })
            .collect(),
    };
    detailed(status, &details)
}

fn rpc_status(code: Code, message: String) -> rpc::Status {
    rpc::Status { code: code as i32, message, details: Vec::new() }
}

/// The status with `details` packed as google.rpc.Status details, the way
/// GCS attaches them (`grpc-status-details-bin`).
fn detailed(status: Status, details: &pb::BidiReadObjectError) -> Status {
    let any = prost_types::Any {
        type_url: "type.googleapis.com/google.storage.v2.BidiReadObjectError".into(),
        value: details.encode_to_vec(),
    };
    let packed = rpc::Status { code: status.code() as i32, message: status.message().to_string(), details: vec![any] };
    Status::with_details(status.code(), status.message(), packed.encode_to_vec().into())
}
