//! Connect's protocol over JSON: a unary call is a plain POST of the
//! message (`connect-protocol-version: 1`); a server-streaming call sends
//! and receives enveloped messages (`application/connect+json`: a flags
//! byte, a 4-byte length, the JSON), the last envelope (flag 2) carrying
//! the error, if any.

use super::{HttpCaller, connection_error, decode, http_error};
use crate::caller::Answered;
use crate::error::{Result, ServiceError};
use crate::mapping::HttpCall;
use bytes::{Buf, BufMut};
use serde_json::Value;

const END_STREAM: u8 = 2;

impl HttpCaller {
    pub(super) async fn connect_call(&self, call: &HttpCall, headers: &http::HeaderMap) -> Result<Answered> {
        let started = std::time::Instant::now();
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
            return Ok(Answered::one(decode(&self.response, answer)?));
        }
        // A server stream's one request, or a client stream's every message, enveloped.
        let one = [call.body.clone().unwrap_or_else(|| "{}".into())];
        let bodies = if call.bodies.is_empty() { &one[..] } else { &call.bodies[..] };
        let mut enveloped = Vec::with_capacity(bodies.iter().map(|b| 5 + b.len()).sum());
        for json in bodies {
            enveloped.put_u8(0);
            enveloped.put_u32(json.len() as u32);
            enveloped.extend_from_slice(json.as_bytes());
        }
        let url = format!("{}{}", self.base, call.path_and_query);
        let request = self
            .client
            .post(url)
            .headers(headers.clone())
            .header("content-type", "application/connect+json")
            .header("connect-protocol-version", "1")
            .body(enveloped);
        let mut response = self.send(request).await?;
        let status = response.status();
        if !status.is_success() {
            let body = response.bytes().await.map_err(|e| connection_error(&e))?;
            return Err(http_error(status, &String::from_utf8_lossy(&body)));
        }
        // Each envelope as it arrives: a bidi stream's answers are timed.
        let mut answered = Answered::default();
        let mut pending = bytes::BytesMut::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| connection_error(&e))? {
            pending.extend_from_slice(&chunk);
            while let Some((flags, json)) = envelope(&mut pending)? {
                if flags & END_STREAM != 0 {
                    return match connect_error(&json["error"]) {
                        Some(error) => Err(error),
                        None => Ok(answered),
                    };
                }
                answered.messages.push(decode(&self.response, json)?);
                answered.arrivals.push(started.elapsed());
            }
        }
        match pending.is_empty() {
            true => Err(ServiceError::Protocol("the Connect stream ended without its end-of-stream message".into())),
            false => Err(ServiceError::Protocol("the Connect stream was cut inside an envelope".into())),
        }
    }
}

/// The next whole envelope in `pending` (its flags and JSON), taken out of
/// it; none until all of one has arrived.
fn envelope(pending: &mut bytes::BytesMut) -> Result<Option<(u8, Value)>> {
    if pending.len() < 5 {
        return Ok(None);
    }
    let length = u32::from_be_bytes([pending[1], pending[2], pending[3], pending[4]]) as usize;
    if pending.len() < 5 + length {
        return Ok(None);
    }
    let flags = pending.get_u8();
    pending.advance(4);
    let json = serde_json::from_slice(&pending.split_to(length))
        .map_err(|e| ServiceError::Protocol(format!("a Connect envelope is not JSON: {e}")))?;
    Ok(Some((flags, json)))
}

/// Connect's error JSON (`{"code": "not_found", "message": ...}`), counted
/// by its code as gRPC spells it (`NOT_FOUND`).
fn connect_error(json: &Value) -> Option<ServiceError> {
    let code = json["code"].as_str()?;
    let message = json["message"].as_str().unwrap_or("").to_string();
    Some(ServiceError::Server { kind: code.to_ascii_uppercase(), message })
}
