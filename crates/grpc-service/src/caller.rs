//! Either transport, called the same way: a request in, its answers out.

use crate::error::Result;
use crate::grpc::GrpcCaller;
use crate::http::HttpCaller;
use prost_reflect::DynamicMessage;

/// A call's answers, and when each arrived from the call's start (timed
/// for streamed answers; a unary answer's is the call's latency).
#[derive(Debug, Default)]
pub struct Answered {
    pub messages: Vec<DynamicMessage>,
    pub arrivals: Vec<std::time::Duration>,
}

impl Answered {
    pub fn one(message: DynamicMessage) -> Answered {
        Answered { messages: vec![message], arrivals: Vec::new() }
    }
}

pub enum Caller {
    Grpc(GrpcCaller),
    Http(HttpCaller),
}

impl Caller {
    /// One call of `messages` (a unary or server-streaming method's one
    /// request, or a client or bidi stream's), with its own headers
    /// (`CallHeaders`) over those every call carries: its answers, when the
    /// stream completes.
    pub async fn call(&self, messages: &[DynamicMessage], headers: &http::HeaderMap) -> Result<Answered> {
        match self {
            Caller::Grpc(grpc) => grpc.call(messages, headers).await,
            Caller::Http(http) => http.call(messages, headers).await,
        }
    }

    /// `h2c`, `HTTP/1.1`: what the calls went over.
    pub fn protocol(&self) -> String {
        match self {
            Caller::Grpc(grpc) => grpc.protocol(),
            Caller::Http(http) => http.protocol(),
        }
    }

    /// Connections opened so far.
    pub fn connections(&self) -> u64 {
        match self {
            Caller::Grpc(grpc) => grpc.connections(),
            Caller::Http(http) => http.connections(),
        }
    }
}
