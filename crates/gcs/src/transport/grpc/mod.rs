//! The gRPC v2 API over tonic, as the Go client does it: BidiWriteObject in
//! one shot when the object fits in one chunk, else StartResumableWrite and an
//! upload_id stream with flush + state_lookup at each chunk boundary; 2 MiB
//! messages, each with its crc32c, and the whole object's on the last.

pub use super::grpc_stream::status_error;
use super::grpc_stream::{StreamWriter, WriteBody, chunk_end, finished, next_status, outcome, server_reason};
use super::{
    CountConnections, CreatedObject, Phases, RetryPolicy, TransportError, UploadOutcome, UploadRequest, Uploader,
    back_off_or_fail, crc32c_in_background, root_cause, stall_guard, with_retries,
};
use crate::auth::Auth;
use crate::config::TransportKind;
use futures::future::BoxFuture;
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use pb::bidi_write_object_request::FirstMessage;
use pb::bidi_write_object_response::WriteStatus;
use pb::storage_client::StorageClient;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};
use tonic::{Code, Request, Status, Streaming};

/// Room above a 2 MiB message for framing; GCS's own limit is higher.
const MAX_MESSAGE_BYTES: usize = 64 << 20;
const BUCKET_PREFIX: &str = "projects/_/buckets/";
/// The largest DATA frame the server may send us (SETTINGS_MAX_FRAME_SIZE):
/// a read is 2 MiB messages, which at the protocol's default of 16 KiB
/// frames cost 128 frames each, and each frame costs both ends.
const MAX_RECEIVED_FRAME_BYTES: u32 = 1 << 20;

mod read_back;
mod upload;

pub struct GrpcSettings {
    /// The lane it is: `grpc`, or `grpc-read-object` (ranges read apart).
    pub kind: TransportKind,
    /// `https://storage.googleapis.com` or `http://127.0.0.1:PORT`.
    pub url: String,
    pub bucket: String,
    pub checksum: bool,
    pub chunk_size: u64,
    /// Channels used round-robin (0 means the library default of one).
    pub channels: u32,
    /// Uploads are appendable objects written in `chunk_size` appends, each
    /// flushed (the append workload).
    pub appendable: bool,
    /// A second stream reads each appendable flush back as the object grows.
    pub read_back: bool,
    /// How a read of many ranges goes: one BidiReadObject stream, or one ReadObject each.
    pub range_reads: RangeReads,
    /// HTTP/2 stream window; `None` = adaptive. It governs what the server
    /// sends to us; an upload's speed is set by the window the server grants.
    pub window: Option<u32>,
    pub retry: RetryPolicy,
    /// A request that makes no progress for this long fails.
    pub request_timeout: Duration,
    pub auth: Auth,
    /// CA certificates (PEM) to trust besides the system's.
    pub ca_pem: Option<Vec<u8>>,
}

/// How gRPC reads many ranges of one object (`--grpc-ranges`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RangeReads {
    /// All on one BidiReadObject stream.
    #[default]
    Bidi,
    /// One ReadObject per range, all at once.
    #[serde(rename = "read-object")]
    EachApart,
}

impl RangeReads {
    pub fn name(self) -> &'static str {
        match self {
            RangeReads::Bidi => "BidiReadObject",
            RangeReads::EachApart => "ReadObject per range",
        }
    }
}

pub struct GrpcTransport {
    clients: Vec<StorageClient<Channel>>,
    /// The same channels, for the write stream sent without the codec.
    channels: Vec<Channel>,
    next: AtomicUsize,
    settings: GrpcSettings,
    connections: CountConnections,
}

impl GrpcTransport {
    pub async fn connect(settings: GrpcSettings) -> Result<Self, TransportError> {
        wire::tls::install_crypto_provider();
        let mut endpoint = Endpoint::from_shared(settings.url.clone())
            .map_err(|e| TransportError::Connection(format!("'{}' is not a gRPC endpoint URL: {e}", settings.url)))?
            .user_agent(engine::report::USER_AGENT)
            .map_err(|e| TransportError::Connection(e.to_string()))?
            .connect_timeout(Duration::from_secs(30))
            .tcp_nodelay(true)
            .max_frame_size(MAX_RECEIVED_FRAME_BYTES);
        endpoint = match settings.window {
            Some(window) => {
                endpoint.initial_stream_window_size(window).initial_connection_window_size(window.saturating_mul(2))
            }
            None => endpoint.http2_adaptive_window(true),
        };
        if settings.url.starts_with("https://") {
            let mut tls = ClientTlsConfig::new().with_native_roots();
            if let Some(pem) = &settings.ca_pem {
                tls = tls.ca_certificate(tonic::transport::Certificate::from_pem(pem));
            }
            endpoint =
                endpoint.tls_config(tls).map_err(|e| TransportError::Connection(format!("TLS setup failed: {e}")))?;
        }
        let connections = CountConnections::default();
        let mut tcp = hyper_util::client::legacy::connect::HttpConnector::new();
        tcp.enforce_http(false); // TLS, when asked for, is layered on top by tonic
        tcp.set_nodelay(true);
        let mut clients = Vec::new();
        let mut channels = Vec::new();
        for _ in 0..settings.channels.max(1) {
            let counted = tower::Layer::layer(&connections, tcp.clone());
            // Uploads' frames in large writes, whatever frame size the server allows.
            let connector = tower::ServiceExt::map_response(counted, wire::bulk_writes::BulkWrites::new);
            let channel = endpoint.connect_with_connector(connector).await.map_err(|e| {
                super::connection_failure(&settings.url, "connect to the gRPC endpoint", &root_cause(&e))
            })?;
            channels.push(channel.clone());
            clients.push(
                StorageClient::new(channel)
                    .max_decoding_message_size(MAX_MESSAGE_BYTES)
                    .max_encoding_message_size(MAX_MESSAGE_BYTES),
            );
        }
        Ok(Self { clients, channels, next: AtomicUsize::new(0), settings, connections })
    }

    /// The next channel, round-robin.
    fn pick(&self) -> usize {
        self.next.fetch_add(1, Ordering::Relaxed) % self.clients.len()
    }

    pub(super) fn settings(&self) -> &GrpcSettings {
        &self.settings
    }

    pub(super) fn client(&self) -> StorageClient<Channel> {
        self.clients[self.pick()].clone()
    }

    fn request_params(&self) -> String {
        format!("bucket={}", self.bucket_resource().replace('/', "%2F"))
    }

    pub(super) fn bucket_resource(&self) -> String {
        format!("{BUCKET_PREFIX}{}", self.settings.bucket)
    }

    /// Auth and routing metadata: the write RPCs have no routing annotation,
    /// so GCS needs x-goog-request-params from the client.
    pub(super) async fn with_metadata<T>(&self, message: T) -> Result<Request<T>, TransportError> {
        let mut request = Request::new(message);
        let metadata = request.metadata_mut();
        if let Some(bearer) = self.settings.auth.bearer().await? {
            let value =
                bearer.parse().map_err(|_| TransportError::Auth("the access token is not a valid header".into()))?;
            metadata.insert("authorization", value);
        }
        metadata.insert("x-goog-request-params", self.request_params().parse().expect("bucket names are ASCII"));
        Ok(request)
    }
}

impl Uploader for GrpcTransport {
    fn kind(&self) -> TransportKind {
        self.settings.kind
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

    fn read_ranges(
        &self,
        request: super::ranges::RangesRequest,
    ) -> BoxFuture<'_, Result<super::ranges::RangesOutcome, TransportError>> {
        match self.settings().range_reads {
            RangeReads::Bidi => Box::pin(self.read_ranges_bidi(request)),
            RangeReads::EachApart => Box::pin(super::ranges::each_apart(self, request)),
        }
    }

    fn upload(&self, request: UploadRequest) -> BoxFuture<'_, Result<UploadOutcome, TransportError>> {
        Box::pin(self.upload_object(request))
    }

    fn delete<'a>(&'a self, object: &'a CreatedObject) -> BoxFuture<'a, Result<(), TransportError>> {
        Box::pin(async move {
            let delete = pb::DeleteObjectRequest {
                bucket: self.bucket_resource(),
                object: object.name.clone(),
                if_generation_match: Some(object.generation),
                ..Default::default()
            };
            self.client().delete_object(self.with_metadata(delete).await?).await.map_err(status_error)?;
            Ok(())
        })
    }

    fn lookup<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<Option<CreatedObject>, TransportError>> {
        Box::pin(async move {
            let get =
                pb::GetObjectRequest { bucket: self.bucket_resource(), object: name.into(), ..Default::default() };
            match self.client().get_object(self.with_metadata(get).await?).await {
                Ok(object) => {
                    let object = object.into_inner();
                    Ok(Some(CreatedObject { name: object.name, generation: object.generation }))
                }
                Err(status) if status.code() == Code::NotFound => Ok(None),
                Err(status) => Err(status_error(status)),
            }
        })
    }

    fn cancel_session<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), TransportError>> {
        Box::pin(async move {
            let cancel = pb::CancelResumableWriteRequest { upload_id: session.into() };
            match self.client().cancel_resumable_write(self.with_metadata(cancel).await?).await {
                Ok(_) => Ok(()),
                Err(status) if status.code() == Code::NotFound => Ok(()),
                Err(status) => Err(status_error(status)),
            }
        })
    }

    fn prepare_bucket(&self, create: bool) -> BoxFuture<'_, Result<(), TransportError>> {
        Box::pin(async move {
            let get = pb::GetBucketRequest { name: self.bucket_resource(), ..Default::default() };
            match self.client().get_bucket(self.with_metadata(get).await?).await {
                Ok(_) => Ok(()),
                Err(status) if status.code() == Code::NotFound && create => {
                    let insert = pb::CreateBucketRequest {
                        parent: "projects/_".into(),
                        bucket_id: self.settings.bucket.clone(),
                        ..Default::default()
                    };
                    match self.client().create_bucket(self.with_metadata(insert).await?).await {
                        Ok(_) => Ok(()),
                        Err(status) if status.code() == Code::AlreadyExists => Ok(()),
                        Err(status) => Err(status_error(status)),
                    }
                }
                Err(status) if status.code() == Code::NotFound => Err(TransportError::Grpc {
                    code: "NOT_FOUND".into(),
                    message: format!(
                        "bucket {} does not exist: create it (gcloud storage buckets create gs://{}) or check the name",
                        self.settings.bucket, self.settings.bucket
                    ),
                }),
                Err(status) if status.code() == Code::PermissionDenied => Ok(()),
                Err(status) => match answered_but_not_gcs(&status) {
                    Some(what) => Err(TransportError::Protocol(format!(
                        "{} answered, but it is not GCS's gRPC API google.storage.v2.Storage ({what}): give a GCS gRPC endpoint in --grpc-endpoint",
                        self.settings.url,
                    ))),
                    None => Err(status_error(status)),
                },
            }
        })
    }

    fn protocol(&self) -> String {
        let tls = if self.settings.url.starts_with("https://") { " + TLS" } else { "" };
        format!("HTTP/2{tls} ({} channel{})", self.clients.len(), if self.clients.len() == 1 { "" } else { "s" })
    }

    fn connections(&self) -> u64 {
        self.connections.opened.load(Ordering::Relaxed)
    }

    fn peer_port(&self) -> u16 {
        super::url_port(&self.settings.url)
    }
}

/// A server that answers, but not as GCS's gRPC API does: another gRPC
/// service (UNIMPLEMENTED: unknown service), or an HTTP/2 server that is not
/// gRPC at all (tonic reads its HTTP status into the error).
/// What it said, when so.
fn answered_but_not_gcs(status: &tonic::Status) -> Option<String> {
    let message = status.message();
    if let Some(http) = message.split("while receiving response with status: ").nth(1) {
        return Some(format!("it answered HTTP {http}, not gRPC"));
    }
    if let Some(code) = message.split("mapped from HTTP status code ").nth(1) {
        return Some(format!("it answered HTTP {code}, not gRPC"));
    }
    (status.code() == Code::Unimplemented).then(|| format!("UNIMPLEMENTED: {message}"))
}
