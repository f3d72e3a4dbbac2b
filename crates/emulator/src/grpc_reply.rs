//! The answer side of a write stream read by `grpc_read`: response headers
//! at once, then length-prefixed messages, then the status as trailers.

use bytes::{BufMut, Bytes, BytesMut};
use http_body::Frame;
use std::convert::Infallible;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Status};

/// Sends a call's answers; dropped without `end`, the stream just stops.
#[derive(Clone)]
pub struct Replies {
    tx: mpsc::Sender<Result<Frame<Bytes>, Infallible>>,
}

impl Replies {
    /// The sender and the response to hand to the server now.
    pub fn open() -> (Self, http::Response<tonic::body::Body>) {
        let (tx, rx) = mpsc::channel(4);
        let body = tonic::body::Body::new(http_body_util::StreamBody::new(ReceiverStream::new(rx)));
        let mut response = http::Response::new(body);
        response.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/grpc"));
        (Self { tx }, response)
    }

    /// Sends one message; false when the client has gone.
    pub async fn send(&self, message: &impl prost::Message) -> bool {
        let len = message.encoded_len();
        let mut frame = BytesMut::with_capacity(5 + len);
        frame.put_u8(0); // not compressed
        frame.put_u32(len as u32);
        message.encode(&mut frame).expect("the buffer has room for the message");
        self.tx.send(Ok(Frame::data(frame.freeze()))).await.is_ok()
    }

    /// Sends one message framed by the caller, as the buffers it is made of
    /// (a large content slice is sent as it is); false when the client has gone.
    pub async fn send_parts(&self, parts: [Bytes; 3]) -> bool {
        for part in parts {
            if !part.is_empty() && self.tx.send(Ok(Frame::data(part))).await.is_err() {
                return false;
            }
        }
        true
    }

    /// Waits until the connection has taken the messages sent so far.
    pub async fn drained(&self) {
        super::reads::drained(&self.tx).await;
    }

    /// Ends the call with `status` (OK when `None`).
    pub async fn end(self, status: Option<Status>) {
        let status = status.unwrap_or_else(|| Status::new(Code::Ok, ""));
        let mut trailers = http::HeaderMap::new();
        if status.add_header(&mut trailers).is_err() {
            // Only a message that cannot be a header value gets here.
            trailers.insert("grpc-status", http::HeaderValue::from(status.code() as i32));
        }
        let _ = self.tx.send(Ok(Frame::trailers(trailers))).await;
    }
}
