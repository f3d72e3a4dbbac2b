//! JSON API uploads: `uploadType=media`, `multipart` and `resumable`
//! (session start, chunks with Content-Range, status queries, cancel).
// Handlers return a finished error response as their Err: it is the answer
// itself, built once on the error path, so boxing it would buy nothing.
#![allow(clippy::result_large_err)]

use super::Shared;
use super::faults::{FaultAction, INSTRUCTIONS_HEADER, Trigger};
use super::ingest::Ingest;
use super::json_api::{optional_i64, read_json};
use super::json_body::{cut_response, drain, read_body};
use super::json_wire::*;
use super::server::ConnectionKill;
use super::store::{NewObject, Session, SessionEntry, StoredObject};
use bytes::BytesMut;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use std::collections::HashMap;

use gcs_protocol::rules::CHUNK_ALIGNMENT;

pub async fn route(
    shared: &Shared,
    kill: &ConnectionKill,
    method: Method,
    bucket: String,
    query: HashMap<String, String>,
    req: Request<Incoming>,
) -> JsonResponse {
    let header = req.headers().get(INSTRUCTIONS_HEADER).and_then(|v| v.to_str().ok());
    let upload_type = query.get("uploadType").map(String::as_str).unwrap_or("");
    let upload_id = query.get("upload_id").cloned();
    let is_data_request = matches!((&method, upload_type), (&Method::POST, "media" | "multipart") | (&Method::PUT, _));
    let mut trigger = if is_data_request {
        match shared.faults.for_data_request(header) {
            Ok(fault) => Trigger::new(fault),
            Err(message) => return error_response(StatusCode::BAD_REQUEST, &message),
        }
    } else {
        Trigger::new(None)
    };
    match trigger.split(0).1 {
        Some(FaultAction::Return(code)) => {
            drain(&mut req.into_body()).await;
            return fault_response(code);
        }
        Some(FaultAction::ResetConnection) => kill.reset().await,
        Some(FaultAction::Stall(duration)) => tokio::time::sleep(duration).await,
        Some(FaultAction::Corrupt) | None => {}
    }
    match (&method, upload_type, upload_id) {
        (&Method::POST, "media", _) => media(shared, kill, bucket, query, req, trigger).await,
        (&Method::POST, "multipart", _) => multipart(shared, kill, bucket, query, req, trigger).await,
        (&Method::POST, "resumable", None) => start_resumable(shared, bucket, query, req).await,
        (&Method::PUT, _, Some(id)) => put_chunk(shared, kill, &id, req, trigger).await,
        (&Method::DELETE, _, Some(id)) => match shared.store.cancel_session(&id) {
            // GCS answers a cancelled session with 499 (client closed request).
            Ok(()) => error_response(StatusCode::from_u16(499).unwrap(), "upload cancelled"),
            Err(error) => store_error_response(&error),
        },
        _ => error_response(
            StatusCode::BAD_REQUEST,
            "uploads need uploadType=media, multipart or resumable (or a PUT to a session with upload_id)",
        ),
    }
}

fn fault_response(code: u16) -> JsonResponse {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
    error_response(status, &format!("injected fault: return-{code}"))
}

fn spec_from(
    bucket: String,
    query: &HashMap<String, String>,
    headers: &HeaderMap,
    metadata: &serde_json::Value,
) -> Result<NewObject, JsonResponse> {
    let name = query
        .get("name")
        .cloned()
        .or_else(|| metadata["name"].as_str().map(String::from))
        .ok_or_else(|| error_response(StatusCode::BAD_REQUEST, "the upload names no object: add name=..."))?;
    let (header_crc, md5) = goog_hash(headers);
    let metadata_crc = metadata["crc32c"].as_str().and_then(gcs_protocol::crc::crc32c_from_base64);
    let content_type = metadata["contentType"]
        .as_str()
        .or_else(|| headers.get("x-upload-content-type").and_then(|v| v.to_str().ok()))
        .unwrap_or("application/octet-stream")
        .to_string();
    let expected_size = headers.get("x-upload-content-length").and_then(|v| v.to_str().ok()?.parse().ok());
    Ok(NewObject {
        bucket,
        name,
        content_type,
        if_generation_match: optional_i64(query, "ifGenerationMatch")?,
        expected_crc32c: header_crc.or(metadata_crc),
        expected_size,
        md5,
    })
}

async fn media(
    shared: &Shared,
    kill: &ConnectionKill,
    bucket: String,
    query: HashMap<String, String>,
    req: Request<Incoming>,
    mut trigger: Trigger,
) -> JsonResponse {
    let spec = match spec_from(bucket, &query, req.headers(), &serde_json::Value::Null) {
        Ok(spec) => spec,
        Err(response) => return response,
    };
    if let Err(error) = shared.store.check_create(&spec) {
        return store_error_response(&error);
    }
    let mut ingest = Ingest::new(shared.store.retain);
    if let Err(cut) = read_body(req.into_body(), &mut trigger, 0, None, |bytes| ingest.push(bytes)).await {
        return cut_response(kill, cut).await;
    }
    finish(shared, &spec, ingest)
}

async fn multipart(
    shared: &Shared,
    kill: &ConnectionKill,
    bucket: String,
    query: HashMap<String, String>,
    req: Request<Incoming>,
    mut trigger: Trigger,
) -> JsonResponse {
    let content_type = header_str(req.headers(), "content-type").to_string();
    let headers = req.headers().clone();
    let mut body = BytesMut::new();
    if let Err(cut) = read_body(req.into_body(), &mut trigger, 0, None, |bytes| body.extend_from_slice(bytes)).await {
        return cut_response(kill, cut).await;
    }
    let (metadata, data) = match split_multipart(&content_type, &body.freeze()) {
        Ok(parts) => parts,
        Err(message) => return error_response(StatusCode::BAD_REQUEST, &message),
    };
    let spec = match spec_from(bucket, &query, &headers, &metadata) {
        Ok(spec) => spec,
        Err(response) => return response,
    };
    let mut ingest = Ingest::new(shared.store.retain);
    ingest.push(&data);
    finish(shared, &spec, ingest)
}

fn finish(shared: &Shared, spec: &NewObject, ingest: Ingest) -> JsonResponse {
    match shared.store.finalize(spec, ingest) {
        Ok(object) => json_response(StatusCode::OK, &upload_answer(shared, &object)),
        Err(error) => store_error_response(&error),
    }
}

async fn start_resumable(
    shared: &Shared,
    bucket: String,
    query: HashMap<String, String>,
    req: Request<Incoming>,
) -> JsonResponse {
    let host = req
        .headers()
        .get("host")
        .and_then(|v| v.to_str().ok())
        .map(String::from)
        .or_else(|| req.uri().authority().map(|a| a.to_string()))
        .unwrap_or_else(|| "127.0.0.1".into());
    let headers = req.headers().clone();
    let metadata = match read_json(req).await {
        Ok(metadata) => metadata,
        Err(response) => return response,
    };
    let spec = match spec_from(bucket.clone(), &query, &headers, &metadata) {
        Ok(spec) => spec,
        Err(response) => return response,
    };
    match shared.store.start_session(spec) {
        Ok(id) => {
            let scheme = shared.scheme;
            let location =
                format!("{scheme}://{host}/upload/storage/v1/b/{bucket}/o?uploadType=resumable&upload_id={id}");
            Response::builder()
                .status(StatusCode::OK)
                .header("location", location)
                .header("x-guploader-uploadid", id)
                .body(Full::default())
                .unwrap_or_else(|_| error_response(StatusCode::BAD_REQUEST, "the Host header is not valid"))
        }
        Err(error) => store_error_response(&error),
    }
}

async fn put_chunk(
    shared: &Shared,
    kill: &ConnectionKill,
    id: &str,
    req: Request<Incoming>,
    mut trigger: Trigger,
) -> JsonResponse {
    let entry = match shared.store.session(id) {
        Ok(entry) => entry,
        Err(error) => return store_error_response(&error),
    };
    if let Some(object) = entry.finished() {
        return json_response(StatusCode::OK, &upload_answer(shared, &object));
    }
    let range = match req.headers().get("content-range") {
        None => None,
        Some(value) => match parse_content_range(value.to_str().unwrap_or("")) {
            Ok(range) => Some(range),
            Err(message) => return error_response(StatusCode::BAD_REQUEST, &message),
        },
    };
    // A status query that finishes nothing is answered without waiting for a write.
    if let Some(ContentRange { bytes: None, total }) = &range
        && *total != Some(entry.persisted())
    {
        return resume_incomplete(entry.persisted());
    }
    let claim = entry.claim();
    let mut session = entry.state.lock().await;
    session.touched = std::time::Instant::now();
    let (header_crc, _) = goog_hash(req.headers());
    if header_crc.is_some() {
        session.spec.expected_crc32c = header_crc;
    }
    let persisted = session.ingest.size;
    let content_length: Option<u64> = req.headers().get("content-length").and_then(|v| v.to_str().ok()?.parse().ok());
    // No Content-Range: the body is the whole object.
    let range = range.unwrap_or(ContentRange {
        bytes: content_length.filter(|n| *n > 0).map(|n| (0, n - 1)),
        total: Some(content_length.unwrap_or(0)),
    });
    if let Some((first, last)) = range.bytes {
        if let Err(refused) = check_chunk((first, last), range.total, persisted, content_length) {
            return refused;
        }
        let skip = persisted.saturating_sub(first);
        let ingest = &mut session.ingest;
        let sink = |bytes: &[u8]| {
            ingest.push(bytes);
            entry.set_persisted(ingest.size);
        };
        if let Err(cut) = read_body(req.into_body(), &mut trigger, skip, Some((&entry, claim)), sink).await {
            return cut_response(kill, cut).await;
        }
        if session.ingest.size != persisted.max(last + 1) {
            return error_response(StatusCode::BAD_REQUEST, "the body is shorter than its Content-Range");
        }
    }
    let done = range.total.is_some_and(|total| total == session.ingest.size);
    if range.total.is_some_and(|total| total < session.ingest.size) {
        return error_response(StatusCode::BAD_REQUEST, "the declared total is below the bytes already persisted");
    }
    if !done {
        return resume_incomplete(session.ingest.size);
    }
    finalize(shared, &entry, session)
}

/// A chunk starts within what is persisted, is as long as Content-Length
/// says and, unless it is the last, ends on the chunk alignment.
fn check_chunk(
    (first, last): (u64, u64),
    total: Option<u64>,
    persisted: u64,
    content_length: Option<u64>,
) -> Result<(), JsonResponse> {
    if first > persisted {
        let message = format!("the chunk starts at byte {first} but only {persisted} bytes are persisted");
        return Err(error_response(StatusCode::BAD_REQUEST, &message));
    }
    if content_length.is_some_and(|n| n != last - first + 1) {
        return Err(error_response(StatusCode::BAD_REQUEST, "Content-Length does not match Content-Range"));
    }
    if total != Some(last + 1) && (last + 1) % CHUNK_ALIGNMENT != 0 {
        return Err(error_response(
            StatusCode::BAD_REQUEST,
            "every chunk but the last must end on a multiple of 256 KiB",
        ));
    }
    Ok(())
}

/// The whole object is in: it is stored, or the session is dropped with why.
fn finalize(shared: &Shared, entry: &SessionEntry, mut session: tokio::sync::MutexGuard<'_, Session>) -> JsonResponse {
    let ingest = std::mem::replace(&mut session.ingest, Ingest::new(false));
    match shared.store.finalize(&session.spec, ingest) {
        Ok(object) => {
            let response = json_response(StatusCode::OK, &upload_answer(shared, &object));
            entry.set_finished(object);
            response
        }
        Err(error) => {
            let id = session.id.clone();
            drop(session);
            let _ = shared.store.cancel_session(&id);
            store_error_response(&error)
        }
    }
}

/// 308 with the persisted range; no Range header while nothing is persisted.
fn resume_incomplete(persisted: u64) -> JsonResponse {
    let mut builder = Response::builder().status(StatusCode::PERMANENT_REDIRECT);
    if persisted > 0 {
        builder = builder.header("range", format!("bytes=0-{}", persisted - 1));
    }
    builder.body(Full::default()).expect("static headers are valid")
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
}

/// The final answer to an upload, in the shape `--upload-answers` asks for.
fn upload_answer(shared: &Shared, object: &StoredObject) -> serde_json::Value {
    let resource = object_resource(object);
    match shared.upload_answers {
        super::UploadAnswers::Full => resource,
        super::UploadAnswers::Minimal => {
            let keep = ["kind", "name", "bucket", "generation"];
            keep.iter().map(|key| (key.to_string(), resource[key].clone())).collect::<serde_json::Map<_, _>>().into()
        }
    }
}
