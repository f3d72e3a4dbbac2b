//! The HTTP/JSON side: each call as its mapping says (a google.api.http
//! rule or Connect), the answer read by the proto3 JSON mapping as the
//! method's response. A server-streaming answer is grpc-gateway's
//! newline-delimited `{"result": ...}` objects, or Connect's enveloped
//! JSON messages ending with an end-of-stream one.

use crate::caller::Answered;
use crate::error::{Result, ServiceError};
use crate::mapping::{HttpCall, Mapping};
use crate::reach::Reach;
use prost_reflect::{DeserializeOptions, DynamicMessage, MessageDescriptor, MethodDescriptor};
use serde_json::Value;
use std::sync::atomic::Ordering;
use std::time::Duration;
use wire::connections::{CountConnections, root_cause};

mod connect;

pub struct HttpCaller {
    client: reqwest::Client,
    base: String,
    mapping: Mapping,
    response: MessageDescriptor,
    streaming: bool,
    /// A client-streaming or bidi method: a call sends many messages.
    client_streaming: bool,
    headers: http::HeaderMap,
    connections: CountConnections,
    /// The HTTP version the last answer came in (ALPN picks HTTP/2 over TLS
    /// where the server offers it): 0 before any.
    version: std::sync::atomic::AtomicU8,
    /// The flag that names where HTTP/JSON goes, as a user would fix it.
    flag: &'static str,
}

impl HttpCaller {
    /// Builds the client (nothing is opened until the first call).
    pub fn new(reach: &Reach, method: &MethodDescriptor, mapping: Mapping) -> Result<Self> {
        wire::tls::install_crypto_provider();
        let connections = CountConnections::default();
        let trust = reach.trust()?;
        let mut builder = reqwest::Client::builder()
            .user_agent(engine::report::USER_AGENT)
            .connect_timeout(Duration::from_secs(10))
            .tcp_nodelay(true)
            .connector_layer(connections.clone());
        if let Some(pem) = &trust.ca_pem {
            let ca = reqwest::Certificate::from_pem(pem).map_err(|e| ServiceError::Own {
                kind: crate::error::INPUT,
                message: format!("--cacert: not a PEM certificate ({e})"),
            })?;
            builder = builder.tls_certs_only([ca]);
        }
        // Connect carries a bidi stream over HTTP/2 only: h2c to an http:// endpoint.
        let bidi = method.is_client_streaming() && method.is_server_streaming();
        if bidi && reach.http_endpoint.starts_with("http://") {
            builder = builder.http2_prior_knowledge();
        }
        if let Some((cert, key)) = &trust.identity {
            let identity = reqwest::Identity::from_pem(&[cert.as_slice(), key.as_slice()].concat()).map_err(|e| {
                ServiceError::Own {
                    kind: crate::error::INPUT,
                    message: format!("--cert/--key: not a PEM certificate and its key ({})", root_cause(&e)),
                }
            })?;
            builder = builder.identity(identity);
        }
        let client = builder.build().map_err(|e| ServiceError::Own {
            kind: crate::error::INPUT,
            message: format!("cannot set up the HTTP client ({}): check --key is --cert's key", root_cause(&e)),
        })?;
        Ok(HttpCaller {
            client,
            base: reach.http_endpoint.trim_end_matches('/').to_string(),
            mapping,
            response: method.output(),
            streaming: method.is_server_streaming(),
            client_streaming: method.is_client_streaming(),
            headers: reach.header_map()?,
            connections,
            version: Default::default(),
            flag: match reach.http_endpoint == reach.grpc_endpoint {
                true => "--grpc-endpoint (HTTP/JSON goes there too unless --http-endpoint says otherwise)",
                false => "--http-endpoint",
            },
        })
    }

    /// Opens (and drops) a TCP connection to the endpoint, so that a wrong
    /// address is said before anything is sent, as gRPC's is: the client
    /// itself opens nothing until the first call.
    pub async fn reachable(&self) -> Result<()> {
        let url = reqwest::Url::parse(&self.base).map_err(|e| ServiceError::Own {
            kind: crate::error::INPUT,
            message: format!("--http-endpoint {}: not a URL ({e})", self.base),
        })?;
        let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
            return Err(ServiceError::Own {
                kind: crate::error::INPUT,
                message: format!("--http-endpoint {}: names no host", self.base),
            });
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let cannot = |cause: String| {
            ServiceError::Connection(format!("cannot reach {} over HTTP ({cause}): check {}", self.base, self.flag))
        };
        match tokio::time::timeout(Duration::from_secs(10), tokio::net::TcpStream::connect((host, port))).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(cannot(e.to_string())),
            Err(_) => Err(cannot("no answer within 10 s".into())),
        }
    }

    pub fn mapping(&self) -> &Mapping {
        &self.mapping
    }

    /// One call of `requests` (one, or a client or bidi stream's): its
    /// answer (a unary method's one message, a streaming method's every
    /// message). A client stream goes as Connect's envelopes, or (an HTTP
    /// rule, as grpc-gateway takes it) as newline-delimited JSON; its path
    /// is the first message's.
    pub async fn call(&self, requests: &[DynamicMessage], own: &http::HeaderMap) -> Result<Answered> {
        let mut call = self.mapping.call(&requests[0])?;
        if self.client_streaming {
            let bodies: Result<Vec<String>> =
                requests.iter().map(|m| Ok(self.mapping.call(m)?.body.unwrap_or_else(|| "{}".into()))).collect();
            call.bodies = bodies?;
        }
        let headers = crate::call_headers::merged(&self.headers, own);
        if let Mapping::Connect { .. } = self.mapping {
            return self.connect_call(&call, &headers).await;
        }
        let content_type = if self.client_streaming { "application/x-ndjson" } else { "application/json" };
        let response = self.send(self.request(&call, content_type, &headers)).await?;
        let status = response.status();
        let text = response.text().await.map_err(|e| connection_error(&e))?;
        if !status.is_success() {
            return Err(http_error(status, &text));
        }
        if !self.streaming {
            if !self.mapping.has_response_body() {
                // Straight from the text to the message: every call comes here.
                return Ok(Answered::one(decode_text(&self.response, &text, || not_json(&call, status, &text))?));
            }
            let json = serde_json::from_str(&text).map_err(|_| not_json(&call, status, &text))?;
            return Ok(Answered::one(decode(&self.response, self.mapping.response_json(json))?));
        }
        let mut messages = Vec::new();
        for line in serde_json::Deserializer::from_str(&text).into_iter::<Value>() {
            let mut line = line.map_err(|_| not_json(&call, status, &text))?;
            if let Some(error) = line.get("error") {
                return Err(stream_error(error));
            }
            let result = line.get_mut("result").map(Value::take).unwrap_or(line);
            messages.push(decode(&self.response, self.mapping.response_json(result))?);
        }
        Ok(Answered { messages, arrivals: Vec::new() })
    }

    fn request(&self, call: &HttpCall, content_type: &str, headers: &http::HeaderMap) -> reqwest::RequestBuilder {
        let url = format!("{}{}", self.base, call.path_and_query);
        let mut builder = self.client.request(call.verb.clone(), url).headers(headers.clone());
        if !call.bodies.is_empty() {
            // A client stream: a message a line.
            let lines: String = call.bodies.iter().map(|b| format!("{b}\n")).collect();
            builder = builder.header("content-type", content_type).body(lines);
        } else if let Some(body) = &call.body {
            builder = builder.header("content-type", content_type).body(body.clone());
        }
        builder
    }

    async fn send(&self, builder: reqwest::RequestBuilder) -> Result<reqwest::Response> {
        let response = builder.send().await.map_err(|e| connection_error(&e))?;
        let version = if response.version() == http::Version::HTTP_2 { 2 } else { 1 };
        self.version.store(version, Ordering::Relaxed);
        Ok(response)
    }

    /// The protocol the last answer came in.
    pub fn protocol(&self) -> String {
        let tls = if self.base.starts_with("https://") { " + TLS" } else { "" };
        let version = if self.version.load(Ordering::Relaxed) == 2 { "HTTP/2" } else { "HTTP/1.1" };
        format!("{version}{tls}")
    }

    pub fn connections(&self) -> u64 {
        self.connections.opened.load(Ordering::Relaxed)
    }
}

/// An answer's JSON as the response type (fields the type does not have
/// are left out, as proto3 JSON parsers do).
pub fn decode(response: &MessageDescriptor, json: Value) -> Result<DynamicMessage> {
    let options = DeserializeOptions::new().deny_unknown_fields(false);
    DynamicMessage::deserialize_with_options(response.clone(), json, &options)
        .map_err(|e| ServiceError::Protocol(format!("the HTTP answer does not read as {}: {e}", response.full_name())))
}

/// An answer's text as the response type, read once; a failure says
/// whether it was JSON at all.
fn decode_text(
    response: &MessageDescriptor,
    text: &str,
    not_json: impl FnOnce() -> ServiceError,
) -> Result<DynamicMessage> {
    let options = DeserializeOptions::new().deny_unknown_fields(false);
    let mut deserializer = serde_json::Deserializer::from_str(text);
    DynamicMessage::deserialize_with_options(response.clone(), &mut deserializer, &options).map_err(|e| {
        match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Err(_) => not_json(),
            Ok(_) => ServiceError::Protocol(format!("the HTTP answer does not read as {}: {e}", response.full_name())),
        }
    })
}

fn connection_error(e: &reqwest::Error) -> ServiceError {
    let at = e.url().map(|u| u.origin().ascii_serialization()).unwrap_or_default();
    // Under TLS 1.3 a server that wants a client certificate and got none
    // closes the connection after the handshake: said as what it may be.
    let certificate = match at.starts_with("https://") {
        true => " (and --cert and --key, if the server asks for a client certificate)",
        false => "",
    };
    ServiceError::Connection(format!(
        "cannot reach {at} over HTTP ({}): check --http-endpoint{certificate}",
        root_cause(e)
    ))
}

/// An error answer: counted by its HTTP status, said by its message
/// (grpc-gateway's and Connect's JSON both have one).
fn http_error(status: reqwest::StatusCode, text: &str) -> ServiceError {
    let json: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let message = json["message"].as_str().or(json["error"].as_str()).map(str::to_string);
    let said: String = text.trim().chars().take(160).collect();
    ServiceError::Server { kind: format!("HTTP {}", status.as_u16()), message: message.unwrap_or(said) }
}

fn stream_error(error: &Value) -> ServiceError {
    let code = error["grpc_code"].as_i64().or(error["code"].as_i64()).unwrap_or(2);
    let kind = wire::connections::grpc_code_name(tonic::Code::from_i32(code as i32));
    ServiceError::Server { kind, message: error["message"].as_str().unwrap_or("").to_string() }
}

fn not_json(call: &HttpCall, status: reqwest::StatusCode, text: &str) -> ServiceError {
    let said: String = text.trim().chars().take(160).collect();
    ServiceError::Protocol(format!(
        "{} {} answered HTTP {} with something that is not JSON (\"{said}\"): check --http-endpoint",
        call.verb,
        call.path_and_query,
        status.as_u16()
    ))
}
