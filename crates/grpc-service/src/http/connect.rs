//! Connect's protocol over JSON: a unary call is a plain POST of the
//! message (`connect-protocol-version: 1`); a server-streaming call sends
//! and receives enveloped messages (`application/connect+json`: a flags
//! byte, a 4-byte length, the JSON), the last envelope (flag 2) carrying
//! the error, if any.

use super::{HttpCaller, connection_error, decode, http_error};
use crate::error::{Result, ServiceError};
use crate::mapping::HttpCall;
use bytes::{Buf, BufMut};
use prost_reflect::DynamicMessage;
use serde_json::Value;

const END_STREAM: u8 = 2;

impl HttpCaller {
    pub(super) async fn connect_call(&self, call: &HttpCall, headers: &http::HeaderMap) -> Result<Vec<DynamicMessage>> {
        if !self.streaming && !self.client_streaming {
            let request = self.request(call, "application/json", headers).header("connect-protocol-version", "1");
            let response = self.send(request).await?;
            let status = response.status();
            let text = response.text().await.map_err(|e| connection_error(&e))?;
            if !status.is_success() {
                return Err(connect_error(&serde_json::from_str(&text).unwrap_or(Value::Null))
                    .unwrap_or_else(|| http_error(status, &text)));
            }
            let answer = serde_json::from_str(&text)
                .map_err(|_| ServiceError::Protocol(format!("the Connect answer is not JSON: {text:.160}")))?;
            return Ok(vec![decode(&self.response, answer)?]);
        }
        // A server stream's one request, or a client stream's every message, enveloped.
        let one = [call.body.clone().unwrap_or_else(|| "{}".into())];
        let bodies = if call.bodies.is_empty() { &one[..] } else { &call.bodies[..] };
        let mut envelope = Vec::with_capacity(bodies.iter().map(|b| 5 + b.len()).sum());
        for json in bodies {
            envelope.put_u8(0);
            envelope.put_u32(json.len() as u32);
            envelope.extend_from_slice(json.as_bytes());
        }
        let url = format!("{}{}", self.base, call.path_and_query);
        let request = self
            .client
            .post(url)
            .headers(headers.clone())
            .header("content-type", "application/connect+json")
            .header("connect-protocol-version", "1")
            .body(envelope);
        let response = self.send(request).await?;
        let status = response.status();
        let body = response.bytes().await.map_err(|e| connection_error(&e))?;
        if !status.is_success() {
            return Err(http_error(status, &String::from_utf8_lossy(&body)));
        }
        self.envelopes(body)
    }

    /// The messages of a streamed answer, up to its end-of-stream envelope.
    fn envelopes(&self, mut body: bytes::Bytes) -> Result<Vec<DynamicMessage>> {
        let cut = || ServiceError::Protocol("the Connect stream was cut inside an envelope".into());
        let mut messages = Vec::new();
        while body.has_remaining() {
            if body.remaining() < 5 {
                return Err(cut());
            }
            let flags = body.get_u8();
            let length = body.get_u32() as usize;
            if body.remaining() < length {
                return Err(cut());
            }
            let json: Value = serde_json::from_slice(&body.split_to(length))
                .map_err(|e| ServiceError::Protocol(format!("a Connect envelope is not JSON: {e}")))?;
            if flags & END_STREAM != 0 {
                return match connect_error(&json["error"]) {
                    Some(error) => Err(error),
                    None => Ok(messages),
                };
            }
            messages.push(decode(&self.response, json)?);
        }
        Err(ServiceError::Protocol("the Connect stream ended without its end-of-stream message".into()))
    }
}

/// Connect's error JSON (`{"code": "not_found", "message": ...}`), counted
/// by its code as gRPC spells it (`NOT_FOUND`).
fn connect_error(json: &Value) -> Option<ServiceError> {
    let code = json["code"].as_str()?;
    let message = json["message"].as_str().unwrap_or("").to_string();
    Some(ServiceError::Server { kind: code.to_ascii_uppercase(), message })
}
