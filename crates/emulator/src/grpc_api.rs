//! google.storage.v2.Storage on loopback. The published crate has client code
//! only, so the few methods uploads use are routed by hand: the two write
//! RPCs are read off the HTTP/2 body without copying their data (`grpc_read`)
//! and answered by `grpc_reply`; the others go through tonic's server
//! machinery with the crate's prost message types.

use super::Shared;
use super::faults::{FaultAction, INSTRUCTIONS_HEADER, Trigger};
use super::grpc_read::{MAX_MESSAGE_BYTES, MessageReader};
use super::grpc_reply::Replies;
use super::grpc_write::{WriteMessage, WriteStop, Writer, bucket_name, new_object, to_proto, to_status};
use super::server::ConnectionKill;
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use hyper::body::Incoming;
use std::convert::Infallible;
use std::sync::Arc;
use tonic::server::Grpc;
use tonic::{Request, Response, Status};
use tonic_prost::ProstCodec;
use tower::service_fn;

fn grpc<E, D>() -> Grpc<ProstCodec<E, D>>
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
    let path = req.uri().path().to_string();
    let method = path.strip_prefix("/google.storage.v2.Storage/").unwrap_or("").to_string();
    if let Some(refused) = authorize(&shared, &method, req.headers()) {
        return Ok(refused.into_http());
    }
    let response = match method.as_str() {
        "WriteObject" | "BidiWriteObject" => {
            let header = req.headers().get(INSTRUCTIONS_HEADER).and_then(|v| v.to_str().ok());
            let mut trigger = match shared.faults.for_data_request(header) {
                Ok(fault) => Trigger::new(fault),
                Err(message) => return Ok(Status::invalid_argument(message).into_http()),
            };
            match trigger.split(0).1 {
                Some(FaultAction::Return(code)) => {
                    let status =
                        Status::new(super::grpc_write::grpc_code(code), format!("injected fault: return-{code}"));
                    return Ok(status.into_http());
                }
                Some(FaultAction::ResetConnection) => kill.reset().await,
                Some(FaultAction::Stall(duration)) => tokio::time::sleep(duration).await,
                Some(FaultAction::Corrupt) | None => {}
            }
            let bidi = method == "BidiWriteObject";
            let (replies, response) = Replies::open();
            // Headers go out at once; the stream is read in its own task.
            tokio::spawn(write_call(shared, kill, trigger, req.into_body(), replies, bidi));
            response
        }
        "ReadObject" => super::grpc_read_object::read_object(shared, kill, req).await,
        "StartResumableWrite" => {
            let service = service_fn(move |r: Request<pb::StartResumableWriteRequest>| {
                let shared = shared.clone();
                async move {
                    let r = r.into_inner();
                    let spec =
                        r.write_object_spec.ok_or_else(|| Status::invalid_argument("write_object_spec is required"))?;
                    let spec = new_object(&spec, r.object_checksums.as_ref())?;
                    let upload_id = shared.store.start_session(spec).map_err(to_status)?;
                    Ok::<_, Status>(Response::new(pb::StartResumableWriteResponse { upload_id }))
                }
            });
            grpc::<pb::StartResumableWriteResponse, _>().unary(service, req).await
        }
        "QueryWriteStatus" => {
            let service = service_fn(move |r: Request<pb::QueryWriteStatusRequest>| {
                let shared = shared.clone();
                async move {
                    use pb::query_write_status_response::WriteStatus;
                    // Answered from the session's mirrors: a write in progress does not hold it up.
                    let entry = shared.store.session(&r.into_inner().upload_id).map_err(to_status)?;
                    let status = match entry.finished() {
                        Some(object) => WriteStatus::Resource(to_proto(&object)),
                        None => WriteStatus::PersistedSize(entry.persisted() as i64),
                    };
                    Ok::<_, Status>(Response::new(pb::QueryWriteStatusResponse { write_status: Some(status) }))
                }
            });
            grpc::<pb::QueryWriteStatusResponse, _>().unary(service, req).await
        }
        "CancelResumableWrite" => {
            let service = service_fn(move |r: Request<pb::CancelResumableWriteRequest>| {
                let shared = shared.clone();
                async move {
                    shared.store.cancel_session(&r.into_inner().upload_id).map_err(to_status)?;
                    Ok::<_, Status>(Response::new(pb::CancelResumableWriteResponse {}))
                }
            });
            grpc::<pb::CancelResumableWriteResponse, _>().unary(service, req).await
        }
        "GetObject" => {
            let service = service_fn(move |r: Request<pb::GetObjectRequest>| {
                let shared = shared.clone();
                async move {
                    let r = r.into_inner();
                    let object = shared.store.get(bucket_name(&r.bucket)?, &r.object).map_err(to_status)?;
                    if r.generation != 0 && r.generation != object.generation {
                        return Err(Status::not_found(format!(
                            "generation {} of {} not found",
                            r.generation, r.object
                        )));
                    }
                    Ok(Response::new(to_proto(&object)))
                }
            });
            grpc::<pb::Object, _>().unary(service, req).await
        }
        "DeleteObject" => {
            let service = service_fn(move |r: Request<pb::DeleteObjectRequest>| {
                let shared = shared.clone();
                async move {
                    let r = r.into_inner();
                    let generation = r.if_generation_match.or((r.generation != 0).then_some(r.generation));
                    shared.store.delete(bucket_name(&r.bucket)?, &r.object, generation).map_err(to_status)?;
                    Ok::<_, Status>(Response::new(()))
                }
            });
            grpc::<(), pb::DeleteObjectRequest>().unary(service, req).await
        }
        "ListObjects" => {
            let service = service_fn(move |r: Request<pb::ListObjectsRequest>| {
                let shared = shared.clone();
                async move {
                    let r = r.into_inner();
                    let objects = shared.store.list(bucket_name(&r.parent)?, &r.prefix).map_err(to_status)?;
                    // Pages in name order: the token is the last name given.
                    let page = if r.page_size > 0 { r.page_size as usize } else { 1000 };
                    let rest: Vec<_> = objects.iter().filter(|o| o.name > r.page_token).collect();
                    let next_page_token = if rest.len() > page { rest[page - 1].name.clone() } else { String::new() };
                    let objects = rest.into_iter().take(page).map(to_proto).collect();
                    Ok::<_, Status>(Response::new(pb::ListObjectsResponse {
                        objects,
                        next_page_token,
                        ..Default::default()
                    }))
                }
            });
            grpc::<pb::ListObjectsResponse, _>().unary(service, req).await
        }
        "GetBucket" => {
            let service = service_fn(move |r: Request<pb::GetBucketRequest>| {
                let shared = shared.clone();
                async move {
                    let name = r.into_inner().name;
                    shared.store.bucket_created(bucket_name(&name)?).map_err(to_status)?;
                    Ok::<_, Status>(Response::new(pb::Bucket {
                        name: name.clone(),
                        bucket_id: name,
                        ..Default::default()
                    }))
                }
            });
            grpc::<pb::Bucket, _>().unary(service, req).await
        }
        "CreateBucket" => {
            let service = service_fn(move |r: Request<pb::CreateBucketRequest>| {
                let shared = shared.clone();
                async move {
                    let id = r.into_inner().bucket_id;
                    shared.store.create_bucket(&id).map_err(to_status)?;
                    let name = format!("{}{id}", super::grpc_write::BUCKET_PREFIX);
                    Ok::<_, Status>(Response::new(pb::Bucket { name, bucket_id: id, ..Default::default() }))
                }
            });
            grpc::<pb::Bucket, _>().unary(service, req).await
        }
        "" => Status::unimplemented(format!("unknown service for {path}: this is GCS's google.storage.v2.Storage"))
            .into_http(),
        other => Status::unimplemented(format!("the emulator does not implement {other}")).into_http(),
    };
    Ok(response)
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
        "ReadObject" | "GetObject" => "storage.objects.get",
        "ListObjects" => "storage.objects.list",
        _ => return None,
    };
    (!authority.grants(permission)).then(|| {
        Status::permission_denied(format!(
            "{principal} does not have {permission} access to the Google Cloud Storage object. Permission '{permission}' denied on resource (or it may not exist)."
        ))
    })
}
