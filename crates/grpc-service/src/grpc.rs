//! The gRPC side: the method called by its path with dynamic messages;
//! unary calls framed as one body (`wire::unary`, as etcd's compiled client
//! sends them), server-streaming ones through tonic with a codec that
//! decodes each message as the method's response.

use crate::caller::Answered;
use crate::error::{Result, ServiceError};
use crate::reach::Reach;
use prost_reflect::{DynamicMessage, MessageDescriptor, MethodDescriptor};
use std::sync::atomic::{AtomicUsize, Ordering};
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::transport::Channel;
use wire::connections::{CountConnections, grpc_code_name, root_cause};
use wire::unary::{UnaryError, frame, unary};

pub struct GrpcCaller {
    channels: Vec<Channel>,
    next: AtomicUsize,
    headers: http::HeaderMap,
    path: http::uri::PathAndQuery,
    method: MethodDescriptor,
    url: String,
    connections: CountConnections,
}

impl GrpcCaller {
    /// Opens `reach.conns` channels now, so that a wrong address is said
    /// before any clock starts.
    pub async fn connect(reach: &Reach, method: &MethodDescriptor) -> Result<Self> {
        let url = &reach.grpc_endpoint;
        let trust = reach.trust()?;
        let endpoint = wire::channels::endpoint(url, &trust)
            .map_err(|message| ServiceError::Own { kind: crate::error::INPUT, message })?;
        let connections = CountConnections::default();
        let mut channels = Vec::new();
        for _ in 0..reach.conns.max(1) {
            let channel = wire::channels::connect(endpoint.clone(), &connections)
                .await
                .map_err(|e| unreachable(url, &root_cause(&e)))?;
            channels.push(channel);
        }
        let path = format!("/{}/{}", method.parent_service().full_name(), method.name());
        Ok(GrpcCaller {
            channels,
            next: AtomicUsize::new(0),
            headers: reach.header_map()?,
            path: path.parse().map_err(|_| ServiceError::Own {
                kind: crate::error::INPUT,
                message: format!("{path} is not a gRPC path"),
            })?,
            method: method.clone(),
            url: url.clone(),
            connections,
        })
    }

    fn channel(&self) -> Channel {
        self.channels[self.next.fetch_add(1, Ordering::Relaxed) % self.channels.len()].clone()
    }

    /// One call of `requests` (one, or a client or bidi stream's): its
    /// answer (a unary method's one message, a streaming method's every
    /// message), once the stream completes.
    pub async fn call(&self, requests: &[DynamicMessage], own: &http::HeaderMap) -> Result<Answered> {
        let started = std::time::Instant::now();
        let decoder = DynamicCodec(self.method.output());
        let headers = crate::call_headers::merged(&self.headers, own);
        let (streams_in, streams_out) = (self.method.is_client_streaming(), self.method.is_server_streaming());
        if !streams_in && !streams_out {
            let answer = unary(self.channel(), self.path.as_str(), &headers, frame(&requests[0]), decoder).await;
            return answer.map(Answered::one).map_err(|e| self.unary_error(e));
        }
        let mut grpc = tonic::client::Grpc::new(self.channel());
        grpc.ready().await.map_err(|e| ServiceError::Connection(format!("the gRPC connection failed: {e}")))?;
        let metadata = tonic::metadata::MetadataMap::from_headers(headers.into_owned());
        let path = self.path.clone();
        let mut stream = match (streams_in, streams_out) {
            (false, _) => grpc.server_streaming(with(metadata, requests[0].clone()), path, decoder).await,
            (true, false) => {
                let sent = with(metadata, tokio_stream::iter(requests.to_vec()));
                let answer = grpc.client_streaming(sent, path, decoder).await.map_err(|s| status_error(&s))?;
                return Ok(Answered::one(answer.into_inner()));
            }
            (true, true) => grpc.streaming(with(metadata, tokio_stream::iter(requests.to_vec())), path, decoder).await,
        }
        .map_err(|s| status_error(&s))?
        .into_inner();
        let mut answered = Answered::default();
        while let Some(message) = stream.message().await.map_err(|s| status_error(&s))? {
            answered.messages.push(message);
            answered.arrivals.push(started.elapsed());
        }
        Ok(answered)
    }

    fn unary_error(&self, error: UnaryError) -> ServiceError {
        match error {
            UnaryError::Status(status) => status_error(&status),
            UnaryError::Connection(message) => ServiceError::Connection(message),
            UnaryError::NotGrpc(what) => ServiceError::Connection(format!(
                "{} answered, but not as gRPC ({what}): check --grpc-endpoint",
                self.url
            )),
            UnaryError::NoAnswer => ServiceError::Protocol(format!("the server sent no answer to {}", self.path)),
        }
    }

    /// The protocol on the wire.
    pub fn protocol(&self) -> String {
        if self.url.starts_with("https://") { "HTTP/2 + TLS".into() } else { "HTTP/2".into() }
    }

    pub fn connections(&self) -> u64 {
        self.connections.opened.load(Ordering::Relaxed)
    }
}

/// A request of `body` carrying `metadata`.
fn with<T>(metadata: tonic::metadata::MetadataMap, body: T) -> tonic::Request<T> {
    tonic::Request::from_parts(metadata, Default::default(), body)
}

fn unreachable(url: &str, cause: &str) -> ServiceError {
    ServiceError::Connection(format!("cannot reach {url} over gRPC ({cause}): check --grpc-endpoint"))
}

fn status_error(status: &tonic::Status) -> ServiceError {
    match status.code() {
        tonic::Code::Unavailable | tonic::Code::Unknown if status.message().contains("transport") => {
            ServiceError::Connection(format!("the gRPC connection failed: {}", status.message()))
        }
        code => ServiceError::Server { kind: grpc_code_name(code), message: status.message().to_string() },
    }
}

/// Encodes a dynamic request; decodes each answer as `.0`, the method's
/// response type.
#[derive(Clone)]
struct DynamicCodec(MessageDescriptor);

impl Codec for DynamicCodec {
    type Encode = DynamicMessage;
    type Decode = DynamicMessage;
    type Encoder = DynamicCodec;
    type Decoder = DynamicCodec;

    fn encoder(&mut self) -> Self::Encoder {
        self.clone()
    }

    fn decoder(&mut self) -> Self::Decoder {
        self.clone()
    }
}

impl Encoder for DynamicCodec {
    type Item = DynamicMessage;
    type Error = tonic::Status;

    fn encode(&mut self, item: DynamicMessage, dst: &mut EncodeBuf<'_>) -> Result<(), tonic::Status> {
        prost::Message::encode(&item, dst).map_err(|e| tonic::Status::internal(format!("cannot encode: {e}")))
    }
}

impl Decoder for DynamicCodec {
    type Item = DynamicMessage;
    type Error = tonic::Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<DynamicMessage>, tonic::Status> {
        DynamicMessage::decode(self.0.clone(), src)
            .map(Some)
            .map_err(|e| tonic::Status::internal(format!("the answer does not decode as {}: {e}", self.0.full_name())))
    }
}
