//! JSON API media reads (`alt=media`): the whole object or a `Range` of it,
//! with `generation` and `ifGenerationMatch`, sent as slices of the stored
//! bytes, with the request's fault applied mid-body: an answer whose body
//! has begun cannot change its status, so a failure mid-read breaks the
//! connection, as a dying server would.

use super::Shared;
use super::faults::{FaultAction, INSTRUCTIONS_HEADER, Trigger};
use super::json_api::optional_i64;
use super::json_wire::*;
use super::reads::{Served, parse_range, serve};
use super::server::ConnectionKill;
use super::store::StoredObject;
use bytes::Bytes;
use http_body::Frame;
use http_body_util::{Either, Full, StreamBody};
use hyper::{HeaderMap, Response, StatusCode};
use std::collections::HashMap;
use std::convert::Infallible;
use tokio_stream::wrappers::ReceiverStream;

/// A JSON API answer: small and whole, or media streamed.
pub type Body = Either<Full<Bytes>, StreamBody<ReceiverStream<Result<Frame<Bytes>, Infallible>>>>;

/// Media bodies go out in slices of this much.
const PIECE_BYTES: usize = 1 << 20;

pub fn whole(response: JsonResponse) -> Response<Body> {
    response.map(Either::Left)
}

pub async fn media(
    shared: &Shared,
    kill: &ConnectionKill,
    object: StoredObject,
    query: &HashMap<String, String>,
    headers: &HeaderMap,
) -> Response<Body> {
    let instruction = headers.get(INSTRUCTIONS_HEADER).and_then(|v| v.to_str().ok());
    let mut trigger = match shared.faults.for_data_request(instruction) {
        Ok(fault) => Trigger::new(fault),
        Err(message) => return whole(error_response(StatusCode::BAD_REQUEST, &message)),
    };
    let (data, span) = match readable(&object, query, headers) {
        Ok(readable) => readable,
        Err(refused) => return whole(refused),
    };
    match trigger.split(0).1 {
        Some(FaultAction::Return(code)) => {
            let status = StatusCode::from_u16(code).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
            return whole(error_response(status, &format!("injected fault: return-{code}")));
        }
        Some(FaultAction::ResetConnection) => kill.reset().await,
        Some(FaultAction::Stall(duration)) => tokio::time::sleep(duration).await,
        Some(FaultAction::Corrupt) | None => {}
    }
    let whole_object = super::reads::Span { start: 0, end: object.size };
    let partial = span.is_some();
    let span = span.unwrap_or(whole_object);
    let mut builder = Response::builder()
        .status(if partial { StatusCode::PARTIAL_CONTENT } else { StatusCode::OK })
        .header("content-type", object.content_type.as_str())
        .header("content-length", span.len())
        .header("accept-ranges", "bytes")
        .header("x-goog-generation", object.generation)
        .header("x-goog-stored-content-length", object.size);
    if shared.read_checksums != super::ReadChecksums::None {
        builder = builder.header("x-goog-hash", goog_hash_header(&object));
    }
    if partial {
        builder = builder.header("content-range", format!("bytes {}-{}/{}", span.start, span.end - 1, object.size));
    }
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let kill = kill.clone();
    tokio::spawn(async move {
        let send = |piece: Bytes, _corrupted: bool| {
            let tx = tx.clone();
            async move { tx.send(Ok(Frame::data(piece))).await.is_ok() }
        };
        if matches!(serve(&data, span, PIECE_BYTES, &mut trigger, send).await, Served::Failed(_) | Served::Reset) {
            super::reads::drained(&tx).await;
            kill.reset_now();
        }
    });
    builder
        .body(Either::Right(StreamBody::new(ReceiverStream::new(rx))))
        .unwrap_or_else(|_| whole(error_response(StatusCode::INTERNAL_SERVER_ERROR, "bad content type")))
}

/// The object's bytes and the span asked for (none: the whole object), or
/// the answer refusing the read (another generation, bytes not kept, a range
/// outside the object).
// The Err is the finished answer itself, built once on the refusal path.
#[allow(clippy::result_large_err)]
fn readable(
    object: &StoredObject,
    query: &HashMap<String, String>,
    headers: &HeaderMap,
) -> Result<(Bytes, Option<super::reads::Span>), JsonResponse> {
    for (key, status) in [("generation", StatusCode::NOT_FOUND), ("ifGenerationMatch", StatusCode::PRECONDITION_FAILED)]
    {
        if let Some(wanted) = optional_i64(query, key)?.filter(|wanted| *wanted != object.generation) {
            let message = format!("{key}={wanted} but {} is at generation {}", object.name, object.generation);
            return Err(error_response(status, &message));
        }
    }
    let Some(data) = object.data.clone() else {
        return Err(error_response(
            StatusCode::NOT_IMPLEMENTED,
            "this emulator does not keep object bytes: start it with --retain to read them back",
        ));
    };
    let range = headers.get(hyper::header::RANGE).and_then(|v| v.to_str().ok());
    let span = parse_range(range, object.size).map_err(|message| {
        let mut response = error_response(StatusCode::RANGE_NOT_SATISFIABLE, &message);
        if let Ok(value) = format!("bytes */{}", object.size).parse() {
            response.headers_mut().insert(hyper::header::CONTENT_RANGE, value);
        }
        response
    })?;
    Ok((data, span))
}

/// The whole object's hashes, as GCS sends them on every read (ranged too).
fn goog_hash_header(object: &StoredObject) -> String {
    let mut value = format!("crc32c={}", gcs_protocol::crc::crc32c_base64(object.crc32c));
    if let Some(md5) = object.md5 {
        use base64::Engine;
        value += &format!(",md5={}", base64::engine::general_purpose::STANDARD.encode(md5));
    }
    value
}
