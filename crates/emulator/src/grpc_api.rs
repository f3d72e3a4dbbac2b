//! google.storage.v2.Storage on loopback. The published crate has client code
//! only, so the few methods uploads use are routed by hand: the two write
//! RPCs are read off the HTTP/2 body without copying their data (`grpc_read`)
//! and answered by `grpc_reply`; the others go through tonic's server
//! machinery with the crate's prost message types.

use super::Shared;
use super::faults::{FaultAction, INSTRUCTIONS_HEADER, Trigger};
use super::grpc_read::{MAX_MESSAGE_BYTES, MessageReader};
use super::grpc_reply::Replies;
use super::grpc_write::{WriteMessage, WriteStop, Writer};
use super::server::ConnectionKill;
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use hyper::body::Incoming;
use std::convert::Infallible;
use std::sync::Arc;
use tonic::Status;
use tonic::server::Grpc;
use tonic_prost::ProstCodec;

pub(crate) fn grpc<E, D>() -> Grpc<ProstCodec<E, D>>
where
    E: prost::Message + Send + 'static,
    D: prost::Message + Default + Send + 'static,
{
    Grpc::new(ProstCodec::default())
        .max_decoding_message_size(MAX_MESSAGE_BYTES)
        .max_encoding_message_size(MAX_MESSAGE_BYTES)
}

pub async fn handle(
    shared: Arc<Shared>,
    kill: ConnectionKill,
    req: http::Request<Incoming>,
) -> Result<http::Response<tonic::body::Body>, Infallible> {
    use super::grpc_unary::*;
    let path = req.uri().path().to_string();
    let method = path.strip_prefix("/google.storage.v2.Storage/").unwrap_or("").to_string();
    if let Some(refused) = authorize(&shared, &method, req.headers()) {
        return Ok(refused.into_http());
    }
    if let Some(params) = req.headers().get("x-goog-request-params").and_then(|v| v.to_str().ok()) {
        let mut routed = shared.routed.lock().unwrap();
        match routed.get_mut(params) {
            Some(count) => *count += 1,
            None => drop(routed.insert(params.to_string(), 1)),
        }
    }
    let response = match method.as_str() {
        "WriteObject" | "BidiWriteObject" => write(shared, kill, req, method == "BidiWriteObject").await,
        "ReadObject" => super::grpc_read_object::read_object(shared, kill, req).await.unwrap_or_else(Status::into_http),
        "BidiReadObject" => {
            super::grpc_bidi_read::bidi_read_object(shared, kill, req).await.unwrap_or_else(Status::into_http)
        }
        "StartResumableWrite" => unary(shared, req, start_resumable_write).await,
        "QueryWriteStatus" => unary(shared, req, query_write_status).await,
        "CancelResumableWrite" => unary(shared, req, cancel_resumable_write).await,
        "GetObject" => unary(shared, req, get_object).await,
        "DeleteObject" => unary(shared, req, delete_object).await,
        "ListObjects" => unary(shared, req, list_objects).await,
        "GetBucket" => unary(shared, req, get_bucket).await,
        "CreateBucket" => unary(shared, req, create_bucket).await,
        "" => Status::unimplemented(format!("unknown service for {path}: this is GCS's google.storage.v2.Storage"))
            .into_http(),
        other => Status::unimplemented(format!("the emulator does not implement {other}")).into_http(),
    };
    Ok(response)
}

/// A write stream: its fault first (a refusal, a reset or a stall before
/// any message is read), then its messages, read in a task of their own
/// while the answer's headers go out at once.
async fn write(
    shared: Arc<Shared>,
    kill: ConnectionKill,
    req: http::Request<Incoming>,
    bidi: bool,
) -> http::Response<tonic::body::Body> {
    let header = req.headers().get(INSTRUCTIONS_HEADER).and_then(|v| v.to_str().ok());
    let mut trigger = match shared.faults.for_data_request(header) {
        Ok(fault) => Trigger::new(fault),
        Err(message) => return Status::invalid_argument(message).into_http(),
    };
    match trigger.split(0).1 {
        Some(FaultAction::Return(code)) => {
            let status = Status::new(super::grpc_write::grpc_code(code), format!("injected fault: return-{code}"));
            return status.into_http();
        }
        Some(FaultAction::ResetConnection) => kill.reset().await,
        Some(FaultAction::Stall(duration)) => tokio::time::sleep(duration).await,
        Some(FaultAction::Corrupt) | None => {}
    }
    let (replies, response) = Replies::open();
    tokio::spawn(write_call(shared, kill, trigger, req.into_body(), replies, bidi));
    response
}

/// How a write stream ended when nothing went wrong.
enum Ended {
    Finished(Box<pb::Object>),
    /// The client closed the stream without finish_write: bytes persisted so far.
    Open(u64),
}

/// Serves one WriteObject or BidiWriteObject call: both end with the same
/// answer (the object, or the persisted size); only a bidi stream answers
/// state lookups on the way.
async fn write_call(
    shared: Arc<Shared>,
    kill: ConnectionKill,
    trigger: Trigger,
    body: Incoming,
    replies: Replies,
    bidi: bool,
) {
    let mut reader = MessageReader::new(body);
    let result = if bidi {
        drive::<pb::BidiWriteObjectRequest>(&shared, &mut reader, trigger, Some(&replies)).await
    } else {
        drive::<pb::WriteObjectRequest>(&shared, &mut reader, trigger, None).await
    };
    let status = match result {
        Ok(Ended::Finished(object)) => Ok(*object),
        Ok(Ended::Open(persisted)) => Err(persisted),
        Err(WriteStop::Status(status)) => return replies.end(Some(status)).await,
        Err(WriteStop::Reset) => return kill.reset_now(),
    };
    let sent = if bidi {
        use pb::bidi_write_object_response::WriteStatus;
        let status = status.map_or_else(|p| WriteStatus::PersistedSize(p as i64), WriteStatus::Resource);
        replies.send(&pb::BidiWriteObjectResponse { write_status: Some(status), write_handle: None }).await
    } else {
        use pb::write_object_response::WriteStatus;
        let status = status.map_or_else(|p| WriteStatus::PersistedSize(p as i64), WriteStatus::Resource);
        replies.send(&pb::WriteObjectResponse { write_status: Some(status) }).await
    };
    if sent {
        replies.end(None).await;
    }
}

/// Reads a write stream to its end, answering state lookups on `lookups`.
async fn drive<M: prost::Message + Default + Into<WriteMessage>>(
    shared: &Shared,
    reader: &mut MessageReader,
    trigger: Trigger,
    lookups: Option<&Replies>,
) -> Result<Ended, WriteStop> {
    let first = match reader.next().await? {
        Some(message) => WriteMessage::decode::<M>(message)?,
        None => return Err(Status::invalid_argument("the write stream carried no message").into()),
    };
    let mut writer = Writer::open(shared, &first, trigger).await?;
    if let Some(answer) = writer.session().and_then(|entry| super::grpc_append::opening_answer(shared, entry)) {
        let Some(replies) = lookups else {
            return Err(Status::invalid_argument("appendable objects are written with BidiWriteObject").into());
        };
        if !replies.send(&answer).await {
            return Err(Status::cancelled("the client went away").into());
        }
    }
    if let Some(object) = writer.finished() {
        return Ok(Ended::Finished(Box::new(object)));
    }
    let mut next = Some(first);
    loop {
        let message = match next.take() {
            Some(message) => message,
            None => match tokio::select! {
                message = reader.next() => message?,
                _ = writer.superseded() => return Err(Status::aborted("a newer write to this session took over").into()),
            } {
                Some(message) => WriteMessage::decode::<M>(message)?,
                None if writer.is_resumable() => return Ok(Ended::Open(writer.persisted())),
                None => {
                    return Err(Status::invalid_argument("the stream ended before finish_write").into());
                }
            },
        };
        if let Some(data) = message.data {
            writer.write(message.write_offset, data).await?;
        }
        if message.finish_write {
            return Ok(Ended::Finished(Box::new(writer.finish(message.object_checksums)?)));
        }
        if message.state_lookup
            && let Some(replies) = lookups
        {
            use pb::bidi_write_object_response::WriteStatus;
            let persisted = WriteStatus::PersistedSize(writer.persisted() as i64);
            if !replies.send(&pb::BidiWriteObjectResponse { write_status: Some(persisted), write_handle: None }).await {
                return Err(Status::cancelled("the client went away").into());
            }
        }
    }
}

/// `--require-auth` and `--deny`, as GCS answers them over gRPC:
/// UNAUTHENTICATED without a good token, PERMISSION_DENIED without the
/// permission.
fn authorize(shared: &Shared, method: &str, headers: &http::HeaderMap) -> Option<Status> {
    let authority = &shared.authority;
    let mut principal = "the caller".to_string();
    if authority.required {
        match authority.principal(headers.get("authorization").and_then(|v| v.to_str().ok())) {
            Ok(who) => principal = who,
            Err(why) => {
                return Some(Status::unauthenticated(format!(
                    "Request had invalid authentication credentials ({why}). Expected OAuth 2 access token, login cookie or other valid authentication credential."
                )));
            }
        }
    }
    let permission = match method {
        "DeleteObject" => "storage.objects.delete",
        "WriteObject" | "BidiWriteObject" | "StartResumableWrite" => "storage.objects.create",
        "ReadObject" | "BidiReadObject" | "GetObject" => "storage.objects.get",
        "ListObjects" => "storage.objects.list",
        _ => return None,
    };
    (!authority.grants(permission)).then(|| {
        Status::permission_denied(format!(
            "{principal} does not have {permission} access to the Google Cloud Storage object. Permission '{permission}' denied on resource (or it may not exist)."
        ))
    })
}
