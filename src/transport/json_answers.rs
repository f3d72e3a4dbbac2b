//! What the JSON API answers, read: resumable session states, finished
//! objects, GCS error bodies, connection failures.

use super::{CreatedObject, Phases, TransportError, UploadOutcome, UploadRequest};
use reqwest::{Response, StatusCode};
use std::time::Instant;

/// The session's final answer: the object, with the upload's phases.
pub async fn finish_session(
    request: &UploadRequest,
    started: Instant,
    session_ready: Instant,
    response: Response,
) -> Result<UploadOutcome, TransportError> {
    request.progress.set_session(None);
    let phases = Phases::from_instants(started, Some(session_ready), request.progress.last_byte(), Instant::now());
    finished_object(response, phases).await
}

/// What a session said to a chunk or a status query.
pub enum SessionState {
    Persisted(u64),
    Finished(Response),
}

pub async fn session_state(response: Response) -> Result<SessionState, TransportError> {
    match response.status() {
        StatusCode::PERMANENT_REDIRECT => Ok(SessionState::Persisted(persisted_bytes(&response)?)),
        status if status.is_success() => Ok(SessionState::Finished(response)),
        _ => Err(http_error(response).await),
    }
}

/// `Range: bytes=0-N` means N+1 bytes are persisted; no Range means none.
pub fn persisted_bytes(response: &Response) -> Result<u64, TransportError> {
    let Some(range) = response.headers().get("range") else {
        return Ok(0);
    };
    range
        .to_str()
        .ok()
        .and_then(|r| r.strip_prefix("bytes=0-"))
        .and_then(|last| last.parse::<u64>().ok())
        .map(|last| last + 1)
        .ok_or_else(|| TransportError::Protocol(format!("unreadable Range header {range:?}")))
}

pub async fn finished_object(response: Response, phases: Phases) -> Result<UploadOutcome, TransportError> {
    if !response.status().is_success() {
        return Err(http_error(response).await);
    }
    let object: serde_json::Value = response
        .json()
        .await
        .map_err(|e| TransportError::Protocol(format!("the upload answer is not object JSON: {e}")))?;
    let number = |key: &str| object[key].as_str().and_then(|s| s.parse().ok()).or_else(|| object[key].as_i64());
    let generation =
        number("generation").ok_or_else(|| TransportError::Protocol("the object has no generation".into()))?;
    Ok(UploadOutcome {
        object: CreatedObject { name: object["name"].as_str().unwrap_or_default().to_string(), generation },
        size: number("size").unwrap_or(0) as u64,
        phases,
    })
}

/// The error's own message from a GCS JSON error body, else the status line.
pub async fn http_error(response: Response) -> TransportError {
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    let message = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(String::from))
        .unwrap_or_else(|| text.chars().take(200).collect());
    TransportError::Http { status, message }
}

pub fn connection_error(base: &str, what: &str, error: &reqwest::Error) -> TransportError {
    if error.is_timeout() {
        return TransportError::Timeout(format!("could not {what} at {base}: timed out"));
    }
    super::connection_failure(base, what, &super::root_cause(error))
}
