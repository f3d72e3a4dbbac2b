//! etcd over gRPC with tonic, as etcd's own clients speak it:
//! `etcdserverpb.KV/Put`, `KV/Range`, `KV/DeleteRange`, `Watch/Watch`, and
//! `Auth/Authenticate` for a token sent as the `token` metadata.

use super::client::{Delivered, EtcdError, Kv, Reach, WatchEnd, explain_server_error, prefix_end, unreachable};
use super::proto::*;
use engine::plan::TransportKind;
use futures::future::BoxFuture;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use tokio::sync::mpsc;
use tonic::client::Grpc;
use tonic::transport::{Channel, Endpoint};
use tonic_prost::ProstCodec;
use wire::connections::{CountConnections, root_cause};

pub struct GrpcKv {
    channels: Vec<Channel>,
    next: AtomicUsize,
    token: Option<String>,
    tls: bool,
    connections: CountConnections,
}

impl GrpcKv {
    /// Opens `reach.conns` channels, spread over the endpoints, and signs in
    /// when a user is given.
    pub async fn connect(reach: &Reach) -> Result<Self, EtcdError> {
        wire::tls::install_crypto_provider();
        let connections = CountConnections::default();
        let mut channels = Vec::new();
        for index in 0..reach.conns.max(1) as usize {
            let url = &reach.endpoints[index % reach.endpoints.len()];
            let endpoint = endpoint(url, reach).await?;
            let channel =
                wire::channels::connect(endpoint, &connections).await.map_err(|e| unreachable(url, &root_cause(&e)))?;
            if index < reach.endpoints.len() {
                check_is_etcd(url, channel.clone()).await?;
            }
            channels.push(channel);
        }
        let tls = reach.endpoints[0].starts_with("https://");
        let mut kv = Self { channels, next: AtomicUsize::new(0), token: None, tls, connections };
        if let Some((name, password)) = &reach.user {
            let request = AuthenticateRequest { name: name.clone(), password: password.clone() };
            let answer: AuthenticateResponse = kv.unary("/etcdserverpb.Auth/Authenticate", request).await?;
            kv.token = Some(answer.token);
        }
        Ok(kv)
    }

    fn channel(&self) -> Channel {
        self.channels[self.next.fetch_add(1, Ordering::Relaxed) % self.channels.len()].clone()
    }

    fn request<T>(&self, message: T) -> Result<tonic::Request<T>, EtcdError> {
        let mut request = tonic::Request::new(message);
        if let Some(token) = &self.token {
            let value = token.parse().map_err(|_| EtcdError::Protocol("etcd gave a token that is not ASCII".into()))?;
            request.metadata_mut().insert("token", value);
        }
        Ok(request)
    }

    /// One unary call (`wire::unary`: framed here, sent as one body).
    async fn unary<Q, A>(&self, path: &'static str, message: Q) -> Result<A, EtcdError>
    where
        Q: prost::Message + Send + 'static,
        A: prost::Message + Default + Send + 'static,
    {
        unary_on(self.channel(), self.token.as_deref(), path, message).await
    }
}

/// An endpoint that answers gRPC is asked for its status, which only etcd
/// gives (with its version), so that another server on that port is named
/// now, not found out as failed requests. etcd refusing the question (with
/// authentication on) still says it is etcd.
async fn check_is_etcd(url: &str, channel: Channel) -> Result<(), EtcdError> {
    let not_etcd = |what: String| {
        EtcdError::Connection(format!(
            "{url} answered, but it is not etcd's gRPC ({what}): check --endpoints (etcd's client URL, usually port 2379)"
        ))
    };
    match unary_on::<_, StatusResponse>(channel, None, "/etcdserverpb.Maintenance/Status", StatusRequest {}).await {
        Ok(status) if !status.version.is_empty() => Ok(()),
        Ok(_) => Err(not_etcd("its status names no etcd version".into())),
        Err(EtcdError::Own { kind: crate::client::NOT_ETCD, message: what }) => Err(not_etcd(what)),
        Err(EtcdError::Connection(cause)) => Err(unreachable(url, &cause)),
        Err(_) => Ok(()),
    }
}

/// One unary call on this channel (see `GrpcKv::unary`).
async fn unary_on<Q, A>(channel: Channel, token: Option<&str>, path: &'static str, message: Q) -> Result<A, EtcdError>
where
    Q: prost::Message + Send + 'static,
    A: prost::Message + Default + Send + 'static,
{
    use tonic::codec::Codec;
    use wire::unary::{UnaryError, frame, unary};
    let mut headers = http::HeaderMap::new();
    if let Some(token) = token {
        let value = token.parse().map_err(|_| EtcdError::Protocol("etcd gave a token that is not ASCII".into()))?;
        headers.insert("token", value);
    }
    let decoder = ProstCodec::<Q, A>::default().decoder();
    unary(channel, path, &headers, frame(&message), decoder).await.map_err(|e| match e {
        UnaryError::Status(status) => status_error(&status),
        UnaryError::Connection(message) => EtcdError::Connection(message),
        UnaryError::NotGrpc(what) => EtcdError::Own { kind: crate::client::NOT_ETCD, message: what },
        UnaryError::NoAnswer => EtcdError::Protocol(format!("etcd sent no answer to {path}")),
    })
}

async fn endpoint(url: &str, reach: &Reach) -> Result<Endpoint, EtcdError> {
    let mut trust = wire::channels::Trust::default();
    if url.starts_with("https://") {
        trust.ca_pem = reach.cacert.as_deref().map(|path| super::tls::read(path, "--cacert")).transpose()?;
        if let Some((cert, key)) = &reach.identity {
            trust.identity = Some((super::tls::read(cert, "--cert")?, super::tls::read(key, "--key")?));
        }
    }
    wire::channels::endpoint(url, &trust).map_err(EtcdError::Connection)
}

fn status_error(status: &tonic::Status) -> EtcdError {
    match status.code() {
        tonic::Code::Unimplemented => {
            EtcdError::Own { kind: crate::client::NOT_ETCD, message: format!("UNIMPLEMENTED: {}", status.message()) }
        }
        tonic::Code::Unavailable | tonic::Code::Unknown if status.message().contains("transport") => {
            EtcdError::Connection(format!("the gRPC connection failed: {}", status.message()))
        }
        code => EtcdError::Server {
            kind: wire::connections::grpc_code_name(code),
            message: explain_server_error(status.message()),
        },
    }
}

impl Kv for GrpcKv {
    fn kind(&self) -> TransportKind {
        TransportKind::Grpc
    }

    fn put(&self, key: Vec<u8>, value: Vec<u8>) -> BoxFuture<'_, Result<i64, EtcdError>> {
        Box::pin(async move {
            let answer: PutResponse = self.unary("/etcdserverpb.KV/Put", PutRequest { key, value }).await?;
            Ok(answer.header.map_or(0, |h| h.revision))
        })
    }

    fn range(&self, key: Vec<u8>) -> BoxFuture<'_, Result<usize, EtcdError>> {
        Box::pin(async move {
            let request = RangeRequest { key, ..Default::default() };
            let answer: RangeResponse = self.unary("/etcdserverpb.KV/Range", request).await?;
            Ok(answer.kvs.len())
        })
    }

    fn delete_prefix(&self, prefix: Vec<u8>) -> BoxFuture<'_, Result<i64, EtcdError>> {
        Box::pin(async move {
            let request = DeleteRangeRequest { range_end: prefix_end(&prefix), key: prefix };
            let answer: DeleteRangeResponse = self.unary("/etcdserverpb.KV/DeleteRange", request).await?;
            Ok(answer.deleted)
        })
    }

    fn watch(
        &self,
        prefix: Vec<u8>,
        start_revision: i64,
        events: mpsc::UnboundedSender<Delivered>,
    ) -> BoxFuture<'_, Result<tokio::task::JoinHandle<WatchEnd>, EtcdError>> {
        Box::pin(async move {
            let create = WatchCreateRequest { range_end: prefix_end(&prefix), key: prefix, start_revision };
            let first = WatchRequest { request_union: Some(watch_request::RequestUnion::CreateRequest(create)) };
            // The request stream stays open (ended, etcd would cancel the watch).
            let (keep_open, requests) = mpsc::channel::<WatchRequest>(1);
            let requests = futures::StreamExt::chain(
                futures::stream::iter([first]),
                tokio_stream::wrappers::ReceiverStream::new(requests),
            );
            let mut grpc = Grpc::new(self.channel());
            grpc.ready()
                .await
                .map_err(|e| EtcdError::Connection(format!("the gRPC channel failed: {}", root_cause(&e))))?;
            let path = http::uri::PathAndQuery::from_static("/etcdserverpb.Watch/Watch");
            let codec = ProstCodec::<WatchRequest, WatchResponse>::default();
            let mut stream =
                grpc.streaming(self.request(requests)?, path, codec).await.map_err(|s| status_error(&s))?.into_inner();
            let created = stream.message().await.map_err(|s| status_error(&s))?;
            if !created.is_some_and(|w| w.created) {
                return Err(EtcdError::Protocol("etcd did not confirm the watch".into()));
            }
            Ok(tokio::spawn(async move {
                let _keep_open = keep_open;
                loop {
                    let answer = tokio::select! {
                        answer = stream.message() => answer.map_err(|s| status_error(&s))?,
                        () = events.closed() => return Ok(()),
                    };
                    let Some(answer) = answer else {
                        return Err(EtcdError::Connection("etcd ended the watch stream".into()));
                    };
                    if answer.canceled {
                        // Said after its kind: "watch cancelled: ...".
                        let message = format!("by etcd ({})", answer.cancel_reason);
                        return Err(EtcdError::Server { kind: "watch cancelled".into(), message });
                    }
                    let at = Instant::now();
                    for event in answer.events {
                        let revision = event.kv.map_or(0, |kv| kv.mod_revision);
                        if events.send(Delivered { revision, at }).is_err() {
                            return Ok(());
                        }
                    }
                }
            }))
        })
    }

    fn protocol(&self) -> String {
        if self.tls { "HTTP/2 + TLS".into() } else { "HTTP/2".into() }
    }

    fn connections(&self) -> u64 {
        self.connections.opened.load(Ordering::Relaxed)
    }
}
