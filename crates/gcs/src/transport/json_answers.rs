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
    finished_object(response, &request.name, phases).await
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

/// The object an answer describes. Only its generation is required (cleanup
/// deletes by it); a name the answer leaves out is the one asked for, and a
/// size it leaves out is unknown (not checked), never a reason to fail the upload.
pub async fn finished_object(response: Response, asked: &str, phases: Phases) -> Result<UploadOutcome, TransportError> {
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
        object: CreatedObject { name: object["name"].as_str().unwrap_or(asked).to_string(), generation },
        size: number("size").map(|size| size as u64),
        phases,
    })
}

/// The error's own message from a GCS JSON error body; anything else (an
/// HTML page, an empty body) means the server is not speaking the GCS JSON
/// API, and is said so instead of being echoed.
pub async fn http_error(response: Response) -> TransportError {
    let status = response.status();
    let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let text = response.text().await.unwrap_or_default();
    TransportError::Http { status: status.as_u16(), message: error_message(status, &content_type, &text) }
}

fn error_message(status: StatusCode, content_type: &str, body: &str) -> String {
    if let Some(message) = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(String::from))
    {
        return message;
    }
    let reason = status.canonical_reason().unwrap_or("error");
    let what = if body.trim().is_empty() {
        "an empty body".to_string()
    } else if content_type.is_empty() {
        format!("{} bytes of unknown type", body.len())
    } else {
        format!("{} bytes of {}", body.len(), content_type.split(';').next().unwrap_or(content_type))
    };
    format!(
        "{reason}, with {what} instead of a GCS JSON error: is this a GCS JSON API endpoint (try the base URL, without /storage/v1)?"
    )
}

pub fn connection_error(base: &str, what: &str, error: &reqwest::Error) -> TransportError {
    if error.is_timeout() {
        return TransportError::Timeout(format!("could not {what} at {base}: timed out"));
    }
    super::connection_failure(base, what, &super::root_cause(error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_gcs_answers_are_named_not_echoed() {
        let gcs = r#"{"error":{"code":404,"message":"No such object: b/o"}}"#;
        assert_eq!(error_message(StatusCode::NOT_FOUND, "application/json", gcs), "No such object: b/o");
        let html = error_message(StatusCode::NOT_IMPLEMENTED, "text/html; charset=utf-8", "<!DOCTYPE HTML><p>x</p>");
        assert!(html.starts_with("Not Implemented, with 23 bytes of text/html instead of a GCS JSON error"), "{html}");
        assert!(!html.contains('<'));
        let empty = error_message(StatusCode::NOT_FOUND, "", "");
        assert!(empty.starts_with("Not Found, with an empty body instead of a GCS JSON error"), "{empty}");
    }
}
