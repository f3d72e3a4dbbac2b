//! One unary gRPC call framed here and sent as one whole body: tonic's own
//! unary path streams the body, which makes hyper write HEADERS and DATA in
//! separate syscalls (2.25 writev per etcd put, measured with strace) and
//! spawn a task per request; for small requests that was most of the
//! client's CPU. Every target's unary calls go this way, whether their
//! messages are compiled (prost) or dynamic (a .proto read at run time).

use bytes::{BufMut, Bytes, BytesMut};
use tonic::codec::Decoder;
use tonic::transport::Channel;

/// Why a call brought no answer.
#[derive(Debug)]
pub enum UnaryError {
    /// The server's gRPC status (not OK).
    Status(tonic::Status),
    /// The connection failed or was refused.
    Connection(String),
    /// The server answered, but not as gRPC does: another server there.
    NotGrpc(String),
    /// The server ended the call OK without a message.
    NoAnswer,
}

/// `message` in a gRPC frame: uncompressed, its length, its bytes.
pub fn frame(message: &impl prost::Message) -> Bytes {
    let length = message.encoded_len();
    let mut frame = BytesMut::with_capacity(5 + length);
    frame.put_u8(0);
    frame.put_u32(length as u32);
    message.encode(&mut frame).expect("the buffer has room for the message");
    frame.freeze()
}

/// Sends `frame` to `path` with these headers (metadata) and decodes the
/// one answer with `decoder`.
pub async fn unary<D>(
    channel: Channel,
    path: &str,
    headers: &http::HeaderMap,
    frame: Bytes,
    decoder: D,
) -> Result<D::Item, UnaryError>
where
    D: Decoder<Error = tonic::Status> + Send + 'static,
    D::Item: Send + 'static,
{
    let mut request = http::Request::builder()
        .method(http::Method::POST)
        .uri(path)
        .header("content-type", "application/grpc")
        .header("te", "trailers");
    if let Some(map) = request.headers_mut() {
        map.extend(headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    let body = http_body_util::Full::new(frame);
    let request = request
        .body(tonic::body::Body::new(body))
        .map_err(|e| UnaryError::Connection(format!("cannot build the request to {path}: {e}")))?;
    let response = tower::ServiceExt::oneshot(channel, request)
        .await
        .map_err(|e| UnaryError::Connection(format!("the gRPC connection failed: {}", crate::root_cause(&e))))?;
    if let Some(status) = tonic::Status::from_header_map(response.headers())
        && status.code() != tonic::Code::Ok
    {
        return Err(UnaryError::Status(status));
    }
    let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("");
    if response.status() != http::StatusCode::OK || !content_type.starts_with("application/grpc") {
        let what = if content_type.is_empty() { "no content type".to_string() } else { content_type.to_string() };
        return Err(UnaryError::NotGrpc(format!("HTTP {} with {what}, not a gRPC answer", response.status().as_u16())));
    }
    let (parts, body) = response.into_parts();
    let mut stream = tonic::Streaming::new_response(decoder, body, parts.status, None, None);
    let answer = stream.message().await.map_err(UnaryError::Status)?;
    stream.trailers().await.map_err(UnaryError::Status)?;
    answer.ok_or(UnaryError::NoAnswer)
}
