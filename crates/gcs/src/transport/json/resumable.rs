//! Resumable uploads over the JSON API: a session, chunks each with the
//! crc32c of all before it, and on a failed chunk a status query and a resume
//! from what the server kept (a lost session starts over).

use super::*;

impl JsonTransport {
    async fn start_session(&self, request: &UploadRequest, token: &str) -> Result<String, TransportError> {
        let start = self
            .request(Method::POST, &self.upload_url())
            .await?
            .query(&[("uploadType", "resumable"), ("name", request.name.as_str()), ("ifGenerationMatch", "0")])
            .header("x-upload-content-type", CONTENT_TYPE)
            .header("x-upload-content-length", request.payload.size())
            .header("x-goog-gcs-idempotency-token", token)
            .header("content-length", 0);
        let response = self.send(start, "start a resumable upload").await?;
        if !response.status().is_success() {
            return Err(http_error(response).await);
        }
        let location = response.headers().get("location").and_then(|v| v.to_str().ok());
        location
            .map(String::from)
            .ok_or_else(|| TransportError::Protocol("the resumable upload answer has no Location".into()))
    }

    /// Sends bytes [offset, next chunk boundary) of the object. Answers the
    /// session's state and the crc32c of [0, boundary), which holds when the
    /// server persisted the whole chunk.
    async fn put_chunk(
        &self,
        request: &UploadRequest,
        session: &str,
        offset: u64,
        crc_before: u32,
    ) -> Result<(SessionState, u32), TransportError> {
        let payload = &request.payload;
        let total = payload.size();
        let end = ((offset / self.settings.chunk_size + 1) * self.settings.chunk_size).min(total);
        let last = end == total;
        let mut put = self
            .request(Method::PUT, session)
            .await?
            .header("content-range", format!("bytes {}-{}/{total}", offset, end - 1))
            .header("content-length", end - offset)
            .header("content-type", CONTENT_TYPE);
        let combine = |chunk_crc| gcs_protocol::crc::combine(crc_before, chunk_crc, end - offset);
        // The chunk's crc32c pass runs on another core while the chunk is
        // sent, except for the last chunk: it carries the whole object's
        // crc32c in its headers, so it waits for its pass.
        let mut pass = self.settings.checksum.then(|| crc32c_in_background(payload, offset, end));
        let mut chunk_crc = 0;
        if last && let Some(before_sending) = pass.take() {
            chunk_crc = before_sending.await?;
            put = put.header("x-goog-hash", format!("crc32c={}", crc32c_base64(combine(chunk_crc))));
        }
        request.progress.advance_to(offset);
        let body = PayloadBody::new(payload.clone(), offset, end, MESSAGE_BYTES, request.progress.clone());
        request.progress.flush_started();
        let response = self.send(put.body(reqwest::Body::wrap(body)), "upload a chunk").await?;
        let state = session_state(response).await?;
        request.progress.flush_persisted();
        if let Some(while_sending) = pass {
            chunk_crc = while_sending.await?;
        }
        Ok((state, combine(chunk_crc)))
    }

    /// Asks a session how far it got (`bytes */TOTAL`).
    async fn query(&self, session: &str, total: u64) -> Result<SessionState, TransportError> {
        let put = self
            .request(Method::PUT, session)
            .await?
            .header("content-range", format!("bytes */{total}"))
            .header("content-length", 0);
        session_state(self.send(put, "ask how far an upload got").await?).await
    }

    /// A resumable session in chunks. A failed chunk is retried after asking
    /// the session how far it got, and the upload resumes from there; a lost
    /// session (404/410) starts over with a new one.
    pub(super) async fn upload_resumable(
        &self,
        request: &UploadRequest,
        token: &str,
    ) -> Result<UploadOutcome, TransportError> {
        let (policy, limit) = (&self.settings.retry, self.settings.request_timeout);
        let total = request.payload.size();
        let started = Instant::now();
        let start = || stall_guard(&request.progress, limit, self.start_session(request, token));
        let mut session = request.progress.start_session(with_retries(policy, &request.progress, |_| start())).await?;
        let session_ready = Instant::now();
        // crc32c of [0, offset): the last chunk carries the whole object's.
        let (mut offset, mut crc_before, mut retries) = (0, 0, 0);
        loop {
            let error = match stall_guard(
                &request.progress,
                limit,
                self.put_chunk(request, &session, offset, crc_before),
            )
            .await
            {
                Ok((SessionState::Finished(response), _)) => {
                    return finish_session(request, started, session_ready, response).await;
                }
                Ok((SessionState::Persisted(persisted), crc_after)) => {
                    let end = ((offset / self.settings.chunk_size + 1) * self.settings.chunk_size).min(total);
                    if persisted < offset || persisted > end || persisted >= total {
                        return Err(TransportError::Protocol(format!(
                            "the server says {persisted} bytes are persisted after a chunk of {offset}..{end}"
                        )));
                    }
                    // Fewer bytes kept than sent: resend from there.
                    crc_before = if persisted == end { crc_after } else { self.crc_prefix(request, persisted).await? };
                    offset = persisted;
                    continue;
                }
                Err(error) => error,
            };
            back_off_or_fail(policy, &request.progress, &mut retries, started, error).await?;
            match stall_guard(&request.progress, limit, self.query(&session, total)).await {
                Ok(SessionState::Persisted(persisted)) => {
                    offset = persisted.min(total);
                    crc_before = self.crc_prefix(request, offset).await?;
                    request.progress.note_resume();
                }
                Ok(SessionState::Finished(response)) => {
                    return finish_session(request, started, session_ready, response).await;
                }
                Err(TransportError::Http { status: 404 | 410, .. }) => {
                    session =
                        request.progress.start_session(with_retries(policy, &request.progress, |_| start())).await?;
                    (offset, crc_before) = (0, 0);
                    request.progress.note_resume();
                }
                // The chunk is sent again from where we were; the server skips what it has.
                Err(_) => {}
            }
        }
    }

    async fn crc_prefix(&self, request: &UploadRequest, end: u64) -> Result<u32, TransportError> {
        if !self.settings.checksum {
            return Ok(0);
        }
        crc32c_in_background(&request.payload, 0, end).await
    }
}
