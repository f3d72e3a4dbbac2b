//! The JSON API over reqwest: one `uploadType=media` request when the object
//! fits in one chunk, else a resumable session in `chunk_size` PUTs with
//! Content-Range; crc32c in x-goog-hash; `ifGenerationMatch=0`.

use super::json_answers::{SessionState, connection_error, finish_session, finished_object, http_error, session_state};
use super::payload_body::PayloadBody;
use super::{
    CountConnections, CreatedObject, MESSAGE_BYTES, Phases, RetryPolicy, TransportError, UploadOutcome, UploadRequest,
    Uploader, back_off_or_fail, crc32c_in_background, stall_guard, with_retries,
};
use crate::auth::Auth;
use crate::config::{JsonHttp, TransportKind};
use futures::future::BoxFuture;
use gcs_protocol::crc::crc32c_base64;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::{Method, RequestBuilder, Response, StatusCode, Version};
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Everything but RFC 3986's unreserved characters is escaped in a path segment.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');
const CONTENT_TYPE: &str = "application/octet-stream";

pub struct JsonSettings {
    pub base_url: String,
    pub bucket: String,
    pub checksum: bool,
    pub chunk_size: u64,
    pub http: JsonHttp,
    pub auth: Auth,
    pub retry: RetryPolicy,
    /// A request that makes no progress for this long fails.
    pub request_timeout: Duration,
    /// CA certificates (PEM) to trust besides the system's.
    pub ca_pem: Option<Vec<u8>>,
}

pub struct JsonTransport {
    client: reqwest::Client,
    settings: JsonSettings,
    seen_version: Mutex<Option<Version>>,
    connections: CountConnections,
}

mod resumable;

impl JsonTransport {
    pub fn new(settings: JsonSettings) -> Result<Self, TransportError> {
        wire::tls::install_crypto_provider();
        let connections = CountConnections::default();
        let mut builder = reqwest::Client::builder()
            .connector_layer(connections.clone())
            // 308 means "resume incomplete" here, not a redirect to follow.
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(engine::report::USER_AGENT)
            .connect_timeout(Duration::from_secs(30))
            .tcp_nodelay(true);
        if let Some(pem) = &settings.ca_pem {
            for certificate in reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|e| TransportError::Connection(format!("--ca-cert is not a PEM certificate file: {e}")))?
            {
                builder = builder.add_root_certificate(certificate);
            }
        }
        builder = match settings.http {
            JsonHttp::Auto => builder,
            JsonHttp::Http1 => builder.http1_only(),
            JsonHttp::Http2 => builder.http2_prior_knowledge(),
        };
        let client =
            builder.build().map_err(|e| TransportError::Connection(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self { client, settings, seen_version: Mutex::new(None), connections })
    }

    /// An object's resource URL (reads add `alt=media`).
    pub(super) fn object_url(&self, name: &str) -> String {
        format!(
            "{}/storage/v1/b/{}/o/{}",
            self.settings.base_url,
            self.settings.bucket,
            utf8_percent_encode(name, SEGMENT)
        )
    }

    pub(super) fn settings(&self) -> &JsonSettings {
        &self.settings
    }

    pub(super) async fn request(&self, method: Method, url: &str) -> Result<RequestBuilder, TransportError> {
        let mut builder = self.client.request(method, url);
        if let Some(bearer) = self.settings.auth.bearer().await? {
            builder = builder.header("authorization", bearer);
        }
        Ok(builder)
    }

    pub(super) async fn send(&self, builder: RequestBuilder, what: &str) -> Result<Response, TransportError> {
        let response = builder.send().await.map_err(|e| connection_error(&self.settings.base_url, what, &e))?;
        *self.seen_version.lock().unwrap() = Some(response.version());
        Ok(response)
    }

    fn upload_url(&self) -> String {
        format!("{}/upload/storage/v1/b/{}/o", self.settings.base_url, self.settings.bucket)
    }

    /// One request with the whole object, retried whole. A 412 after a retry
    /// means an earlier attempt created the object before its answer was
    /// lost: the object of that exact name is ours.
    async fn upload_one_shot(&self, request: &UploadRequest, token: &str) -> Result<UploadOutcome, TransportError> {
        with_retries(&self.settings.retry, &request.progress, |attempt| async move {
            let sent =
                stall_guard(&request.progress, self.settings.request_timeout, self.send_one_shot(request, token));
            match sent.await {
                Err(TransportError::Http { status: 412, .. }) if attempt > 0 => self.adopt(&request.name).await,
                other => other,
            }
        })
        .await
    }

    async fn send_one_shot(&self, request: &UploadRequest, token: &str) -> Result<UploadOutcome, TransportError> {
        let size = request.payload.size();
        request.progress.advance_to(0);
        let mut builder = self
            .request(Method::POST, &self.upload_url())
            .await?
            .query(&[("uploadType", "media"), ("name", request.name.as_str()), ("ifGenerationMatch", "0")])
            .header("content-type", CONTENT_TYPE)
            .header("content-length", size)
            .header("x-goog-gcs-idempotency-token", token);
        if self.settings.checksum {
            let crc = crc32c_in_background(&request.payload, 0, size).await?;
            builder = builder.header("x-goog-hash", format!("crc32c={}", crc32c_base64(crc)));
        }
        let body = PayloadBody::new(request.payload.clone(), 0, size, MESSAGE_BYTES, request.progress.clone());
        let start = Instant::now();
        let response = self.send(builder.body(reqwest::Body::wrap(body)), "upload").await?;
        let phases = Phases::from_instants(start, None, request.progress.last_byte(), Instant::now());
        finished_object(response, &request.name, phases).await
    }

    async fn adopt(&self, name: &str) -> Result<UploadOutcome, TransportError> {
        self.get_object(name).await?.ok_or_else(|| {
            TransportError::Protocol(format!("{name} was refused as existing, but no such object is there"))
        })
    }

    async fn get_object(&self, name: &str) -> Result<Option<UploadOutcome>, TransportError> {
        let url = self.object_url(name);
        let response = self.send(self.request(Method::GET, &url).await?, "look up an object").await?;
        match response.status() {
            StatusCode::NOT_FOUND => Ok(None),
            status if status.is_success() => Ok(Some(finished_object(response, name, Phases::default()).await?)),
            _ => Err(http_error(response).await),
        }
    }
}

impl Uploader for JsonTransport {
    fn kind(&self) -> TransportKind {
        TransportKind::Json
    }

    fn list<'a>(
        &'a self,
        prefix: &'a str,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<super::download::ListedObject>, TransportError>> {
        Box::pin(self.list_objects(prefix, limit))
    }

    fn download(
        &self,
        request: super::download::DownloadRequest,
    ) -> BoxFuture<'_, Result<super::download::DownloadOutcome, TransportError>> {
        Box::pin(self.download_object(request))
    }

    fn upload(&self, request: UploadRequest) -> BoxFuture<'_, Result<UploadOutcome, TransportError>> {
        Box::pin(async move {
            let token = engine::schedule::idempotency_token();
            if self.settings.chunk_size == 0 || self.settings.chunk_size >= request.payload.size() {
                self.upload_one_shot(&request, &token).await
            } else {
                self.upload_resumable(&request, &token).await
            }
        })
    }

    fn delete<'a>(&'a self, object: &'a CreatedObject) -> BoxFuture<'a, Result<(), TransportError>> {
        Box::pin(async move {
            let url = self.object_url(&object.name);
            let request = self
                .request(Method::DELETE, &url)
                .await?
                .query(&[("ifGenerationMatch", object.generation.to_string())]);
            let response = self.send(request, "delete an object").await?;
            if response.status().is_success() { Ok(()) } else { Err(http_error(response).await) }
        })
    }

    fn lookup<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<Option<CreatedObject>, TransportError>> {
        Box::pin(async move { Ok(self.get_object(name).await?.map(|outcome| outcome.object)) })
    }

    fn cancel_session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), TransportError>> {
        Box::pin(async move {
            let response = self.send(self.request(Method::DELETE, session).await?, "cancel an upload").await?;
            // GCS answers 499 to a cancel; 404 means it is gone already.
            match response.status().as_u16() {
                200..=299 | 404 | 410 | 499 => Ok(()),
                _ => Err(http_error(response).await),
            }
        })
    }

    fn prepare_bucket(&self, create: bool) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move {
            let bucket = &self.settings.bucket;
            let url = format!("{}/storage/v1/b/{bucket}", self.settings.base_url);
            let response = self.send(self.request(Method::GET, &url).await?, "look up the bucket").await?;
            match response.status() {
                status if status.is_success() => Ok(()),
                StatusCode::NOT_FOUND if create => {
                    let url = format!("{}/storage/v1/b", self.settings.base_url);
                    let insert = self
                        .request(Method::POST, &url)
                        .await?
                        .query(&[("project", "gcs-speed-tui")])
                        .json(&serde_json::json!({ "name": bucket }));
                    let response = self.send(insert, "create the bucket").await?;
                    match response.status() {
                        status if status.is_success() || status == StatusCode::CONFLICT => Ok(()),
                        _ => Err(http_error(response).await),
                    }
                }
                StatusCode::NOT_FOUND => Err(TransportError::Http {
                    status: 404,
                    message: format!(
                        "bucket {bucket} does not exist: create it (gcloud storage buckets create gs://{bucket}) or check the name"
                    ),
                }),
                // Object permissions without storage.buckets.get: the uploads will tell.
                StatusCode::FORBIDDEN => Ok(()),
                _ => Err(http_error(response).await),
            }
        })
    }

    fn granted_permissions<'a>(
        &'a self,
        permissions: &'a [&'a str],
    ) -> BoxFuture<'a, Result<Option<Vec<String>>, TransportError>> {
        Box::pin(async move {
            let url = format!("{}/storage/v1/b/{}/iam/testPermissions", self.settings.base_url, self.settings.bucket);
            let query: Vec<(&str, &str)> = permissions.iter().map(|p| ("permissions", *p)).collect();
            let response = self
                .send(self.request(Method::GET, &url).await?.query(&query), "check the bucket's permissions")
                .await?;
            if !response.status().is_success() {
                return Err(http_error(response).await);
            }
            let answer: serde_json::Value = response.json().await.map_err(|e| {
                TransportError::Protocol(format!("testIamPermissions answered something that is not JSON: {e}"))
            })?;
            let granted = answer["permissions"]
                .as_array()
                .map(|list| list.iter().filter_map(|p| p.as_str().map(String::from)).collect::<Vec<String>>());
            Ok(Some(granted.unwrap_or_default()))
        })
    }

    fn protocol(&self) -> String {
        let version = match *self.seen_version.lock().unwrap() {
            Some(Version::HTTP_2) => "HTTP/2",
            Some(Version::HTTP_11) => "HTTP/1.1",
            Some(Version::HTTP_10) => "HTTP/1.0",
            Some(_) => "HTTP/?",
            None => "not yet connected",
        };
        let tls = if self.settings.base_url.starts_with("https://") { " + TLS" } else { "" };
        format!("{version}{tls}")
    }

    fn connections(&self) -> u64 {
        self.connections.opened.load(Ordering::Relaxed)
    }

    fn peer_port(&self) -> u16 {
        super::url_port(&self.settings.base_url)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn object_names_escape_in_paths() {
        let name = super::utf8_percent_encode("a/b c+d", super::SEGMENT).to_string();
        assert_eq!(name, "a%2Fb%20c%2Bd");
    }
}
