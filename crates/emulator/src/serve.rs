//! The emulator's three servers on their listeners: the JSON API (HTTP/1.1
//! and HTTP/2), the gRPC API (HTTP/2) and, with tokens required, a VM's
//! metadata server (plain HTTP/1.1).

use super::server::spawn_accept_loop;
use super::shaping::Link;
use super::{Shared, grpc_api, json_api, oauth};
use hyper::service::service_fn;
use hyper_util::rt::TokioExecutor;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;

/// What both servers grant an HTTP/2 peer.
#[derive(Clone, Copy)]
pub struct Http2 {
    /// A stream's window (the connection's is twice it).
    pub stream_window: u32,
    /// The largest frame the server accepts.
    pub max_frame: u32,
}
/// Streams one gRPC connection may have open at once: Google's front ends
/// advertise 100; a client past it waits for a stream to end.
const MAX_CONCURRENT_STREAMS: u32 = 100;

/// Serves the JSON API: HTTP/1.1 or HTTP/2, whichever the client speaks.
pub fn json(
    listener: TcpListener,
    shared: &Arc<Shared>,
    shutdown: &CancellationToken,
    tls: Option<TlsAcceptor>,
    http2: Http2,
) {
    let mut builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    builder
        .http2()
        .max_frame_size(http2.max_frame)
        .initial_stream_window_size(http2.stream_window)
        .initial_connection_window_size(http2.stream_window.saturating_mul(2));
    let shared = shared.clone();
    spawn_accept_loop(listener, shutdown.clone(), shared.link.clone(), tls, move |io, kill| {
        let builder = builder.clone();
        let shared = shared.clone();
        async move {
            let service = service_fn(move |req| json_api::handle(shared.clone(), kill.clone(), req));
            let _ = builder.serve_connection(io, service).await;
        }
    });
}

/// Serves google.storage.v2.Storage over HTTP/2.
pub fn grpc(
    listener: TcpListener,
    shared: &Arc<Shared>,
    shutdown: &CancellationToken,
    tls: Option<TlsAcceptor>,
    http2: Http2,
) {
    let mut builder = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
    builder
        .max_frame_size(http2.max_frame)
        .max_concurrent_streams(MAX_CONCURRENT_STREAMS)
        .initial_stream_window_size(http2.stream_window)
        .initial_connection_window_size(http2.stream_window.saturating_mul(2));
    let shared = shared.clone();
    spawn_accept_loop(listener, shutdown.clone(), shared.link.clone(), tls, move |io, kill| {
        let shared = shared.clone();
        let connection =
            builder.serve_connection(io, service_fn(move |req| grpc_api::handle(shared.clone(), kill.clone(), req)));
        async move {
            let _ = connection.await;
        }
    });
}

/// A VM's metadata server is plain HTTP on a host of its own: here a port,
/// never shaped.
pub fn metadata(listener: TcpListener, shared: &Arc<Shared>, shutdown: &CancellationToken) {
    let shared = shared.clone();
    let unshaped = Arc::new(Link::new(Duration::ZERO, None));
    spawn_accept_loop(listener, shutdown.clone(), unshaped, None, move |io, _| {
        let shared = shared.clone();
        async move {
            let service = service_fn(move |req| {
                let shared = shared.clone();
                async move { Ok::<_, std::convert::Infallible>(oauth::metadata(&shared.authority, req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
        }
    });
}
