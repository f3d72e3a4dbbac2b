//! Uploads over the v2 API: BidiWriteObject in one shot when the object fits
//! in one chunk, else a resumable session (StartResumableWrite, an upload_id
//! stream per attempt, QueryWriteStatus to resume).

use super::read_back::Persisted;
use super::*;

impl GrpcTransport {
    /// Opens BidiWriteObject with a body of ready-made frames (see
    /// `grpc_frame`), and decodes the answers with tonic's own decoder.
    async fn open_write_stream(
        &self,
        channel: Channel,
        body: WriteBody,
    ) -> Result<Streaming<pb::BidiWriteObjectResponse>, TransportError> {
        use tonic::codec::Codec;
        let mut request = http::Request::builder()
            .method(http::Method::POST)
            .uri("/google.storage.v2.Storage/BidiWriteObject")
            .header("content-type", "application/grpc")
            .header("te", "trailers")
            .header("x-goog-request-params", self.request_params());
        if let Some(bearer) = self.settings.auth.bearer().await? {
            request = request.header("authorization", bearer);
        }
        let request = request
            .body(tonic::body::Body::new(body))
            .map_err(|e| TransportError::Protocol(format!("cannot build the write request: {e}")))?;
        let response = tower::ServiceExt::oneshot(channel, request).await.map_err(|e| {
            TransportError::Connection(format!(
                "the gRPC write stream to {} failed: {}",
                self.settings.url,
                root_cause(&e)
            ))
        })?;
        if let Some(status) = Status::from_header_map(response.headers())
            && status.code() != Code::Ok
        {
            return Err(status_error(status));
        }
        let (parts, body) = response.into_parts();
        let decoder =
            tonic_prost::ProstCodec::<pb::BidiWriteObjectRequest, pb::BidiWriteObjectResponse>::default().decoder();
        Ok(Streaming::new_response(decoder, body, parts.status, None, Some(MAX_MESSAGE_BYTES)))
    }

    fn spec(&self, request: &UploadRequest) -> pb::WriteObjectSpec {
        pb::WriteObjectSpec {
            resource: Some(pb::Object {
                bucket: self.bucket_resource(),
                name: request.name.clone(),
                content_type: "application/octet-stream".into(),
                ..Default::default()
            }),
            if_generation_match: Some(0),
            // An appendable object's size is not known until it is finalized.
            object_size: (!self.settings.appendable).then(|| request.payload.size() as i64),
            appendable: self.settings.appendable.then_some(true),
            ..Default::default()
        }
    }

    pub(super) async fn upload_object(&self, request: UploadRequest) -> Result<UploadOutcome, TransportError> {
        let (policy, limit, progress) = (&self.settings.retry, self.settings.request_timeout, &*request.progress);
        let total = request.payload.size();
        let index = self.pick();
        let started = Instant::now();
        if self.settings.appendable {
            return self.upload_appendable(index, request, started).await;
        }
        if self.settings.chunk_size == 0 || self.settings.chunk_size >= total {
            // One stream with the whole object, retried whole; FAILED_PRECONDITION
            // after a retry means an earlier attempt created it.
            let request = &request;
            return with_retries(policy, progress, |attempt| async move {
                let first = FirstMessage::WriteObjectSpec(self.spec(request));
                let attempt_start = Instant::now();
                match stall_guard(progress, limit, self.write_stream(index, request, first, 0, total, None)).await {
                    Ok(object) => Ok(outcome(
                        object,
                        Phases::from_instants(attempt_start, None, progress.last_byte(), Instant::now()),
                    )),
                    Err(TransportError::Grpc { code, .. }) if attempt > 0 && code == "FAILED_PRECONDITION" => {
                        self.adopt(&request.name).await
                    }
                    Err(error) => Err(error),
                }
            })
            .await;
        }
        let start = || stall_guard(progress, limit, self.start_resumable(index, &request));
        let mut upload_id = progress.start_session(with_retries(policy, progress, |_| start())).await?;
        let session_ready = Instant::now();
        let (mut offset, mut retries) = (0, 0);
        loop {
            let first = FirstMessage::UploadId(upload_id.clone());
            let error = match stall_guard(
                progress,
                limit,
                self.write_stream(index, &request, first, offset, self.settings.chunk_size, None),
            )
            .await
            {
                Ok(object) => {
                    return Ok(finished(progress, started, session_ready, object));
                }
                Err(error) => error,
            };
            back_off_or_fail(policy, progress, &mut retries, started, error).await?;
            match stall_guard(progress, limit, self.query_status(&upload_id)).await {
                Ok(WriteStatus::PersistedSize(persisted)) => {
                    offset = (persisted.max(0) as u64).min(total);
                    progress.note_resume();
                }
                Ok(WriteStatus::Resource(object)) => {
                    return Ok(finished(progress, started, session_ready, object));
                }
                Err(TransportError::Grpc { code, .. }) if code == "NOT_FOUND" => {
                    upload_id = progress.start_session(with_retries(policy, progress, |_| start())).await?;
                    offset = 0;
                    progress.note_resume();
                }
                // The stream is opened again where we were; the server skips what it has.
                Err(_) => {}
            }
        }
    }

    /// One appendable stream: a flush and state lookup after each chunk
    /// (append group), finish_write at the end; not retried. A second
    /// stream reads each flush back (unless told not to; its notices then
    /// end at once); the write's time ends with its answer, not with the
    /// last read back.
    async fn upload_appendable(
        &self,
        index: usize,
        request: UploadRequest,
        started: Instant,
    ) -> Result<UploadOutcome, TransportError> {
        let (limit, progress) = (self.settings.request_timeout, &*request.progress);
        let first = FirstMessage::WriteObjectSpec(self.spec(&request));
        let (persisted, notices) = mpsc::unbounded_channel();
        let chunk = self.settings.chunk_size.max(1);
        let write = async {
            let persisted = Some(persisted).filter(|_| self.settings.read_back);
            let write = self.write_stream(index, &request, first, 0, chunk, persisted);
            (stall_guard(progress, limit, write).await, Instant::now())
        };
        let ((object, ended), read_back) = tokio::join!(write, self.read_back(&request.name, notices, progress));
        let object = object?;
        read_back?;
        Ok(outcome(object, Phases::from_instants(started, None, progress.last_byte(), ended)))
    }

    async fn start_resumable(&self, index: usize, request: &UploadRequest) -> Result<String, TransportError> {
        let start =
            pb::StartResumableWriteRequest { write_object_spec: Some(self.spec(request)), ..Default::default() };
        let mut client = self.clients[index].clone();
        let response = client.start_resumable_write(self.with_metadata(start).await?).await.map_err(status_error)?;
        Ok(response.into_inner().upload_id)
    }

    async fn query_status(&self, upload_id: &str) -> Result<WriteStatus, TransportError> {
        let query = pb::QueryWriteStatusRequest { upload_id: upload_id.into(), ..Default::default() };
        let response =
            self.client().query_write_status(self.with_metadata(query).await?).await.map_err(status_error)?;
        let status = response.into_inner().write_status.map(|status| match status {
            pb::query_write_status_response::WriteStatus::PersistedSize(n) => WriteStatus::PersistedSize(n),
            pb::query_write_status_response::WriteStatus::Resource(object) => WriteStatus::Resource(object),
        });
        status.ok_or_else(|| TransportError::Protocol("QueryWriteStatus answered with no status".into()))
    }

    async fn adopt(&self, name: &str) -> Result<UploadOutcome, TransportError> {
        let get = pb::GetObjectRequest { bucket: self.bucket_resource(), object: name.into(), ..Default::default() };
        let object = self.client().get_object(self.with_metadata(get).await?).await.map_err(status_error)?;
        Ok(outcome(object.into_inner(), Phases::default()))
    }

    /// One BidiWriteObject stream from byte `from` to the object's end, in
    /// chunks of `chunk` bytes: each chunk ends with flush + state_lookup
    /// and waits for the persisted size; the last ends with finish_write.
    async fn write_stream(
        &self,
        index: usize,
        request: &UploadRequest,
        first: FirstMessage,
        from: u64,
        chunk: u64,
        read_back: Option<mpsc::UnboundedSender<Persisted>>,
    ) -> Result<pb::Object, TransportError> {
        let total = request.payload.size();
        let checksum = self.settings.checksum;
        let writer_first_was_spec = matches!(first, FirstMessage::WriteObjectSpec(_));
        let crc_before = if checksum && from > 0 { crc32c_in_background(&request.payload, 0, from).await? } else { 0 };
        // The writer waits for the server's answer to a range before the next.
        let (tx, rx) = mpsc::channel(1);
        let body = WriteBody::new(request.payload.clone(), request.progress.clone(), rx, checksum);
        let mut writer = StreamWriter { tx, first: Some(first) };
        request.progress.advance_to(from);
        // The first chunk is sent while the call opens: a server may hold the
        // response headers until it has read the first message.
        let mut offset = chunk_end(from, chunk, total);
        let send_first = writer.send_range(request, from, offset, Some(crc_before));
        let call = self.open_write_stream(self.channels[index].clone(), body);
        let (sent, answer) = tokio::join!(send_first, call);
        let mut responses = answer?;
        if let Err(error) = sent {
            return Err(server_reason(&mut responses, error).await);
        }
        // An appendable object is answered first as it is created (size 0).
        let (mut opening, mut generation) = (self.settings.appendable && writer_first_was_spec, 0);
        loop {
            let status = next_status(&mut responses).await?;
            if std::mem::take(&mut opening)
                && let WriteStatus::Resource(object) = &status
            {
                generation = object.generation;
                continue;
            }
            if let (Some(flush_started), Some(read_back)) = (request.progress.flush_persisted(), &read_back) {
                let size = match &status {
                    WriteStatus::PersistedSize(persisted) => *persisted as u64,
                    WriteStatus::Resource(_) => total,
                };
                // The reader gone means the write is failing anyway.
                let _ = read_back.send(Persisted { generation, size, flush_started });
            }
            match status {
                WriteStatus::Resource(object) => return Ok(object),
                WriteStatus::PersistedSize(persisted) => {
                    let persisted = persisted as u64;
                    if persisted > offset || persisted >= total {
                        return Err(TransportError::Protocol(format!(
                            "the server says {persisted} bytes are persisted after {offset} were sent"
                        )));
                    }
                    // Fewer bytes kept than sent: resend from there.
                    let crc_before = if persisted < offset && checksum {
                        Some(crc32c_in_background(&request.payload, 0, persisted).await?)
                    } else {
                        None
                    };
                    let end = chunk_end(persisted, chunk, total);
                    if let Err(error) = writer.send_range(request, persisted, end, crc_before).await {
                        return Err(server_reason(&mut responses, error).await);
                    }
                    offset = end;
                }
            }
        }
    }
}
