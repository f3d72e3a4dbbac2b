//! A GCS emulator on loopback that speaks the parts of the JSON API and the
//! gRPC v2 API that uploads use. It is the app's zero-setup target and the
//! real server every test runs against.

pub mod authority;
mod contents;
pub mod faults;
mod grpc_api;
mod grpc_append;
mod grpc_bidi_read;
mod grpc_read;
mod grpc_read_object;
mod grpc_reply;
mod grpc_unary;
mod grpc_write;
mod ingest;
mod json_api;
mod json_body;
mod json_read;
mod json_upload;
pub mod json_wire;
pub mod jwt;
mod link;
pub mod malloc;
mod oauth;
mod reads;
mod rope;
mod serve;
mod server;
mod shapes;
pub mod shaping;
pub mod store;
pub mod tls;

pub use shapes::{ReadChecksums, UploadAnswers};

use faults::{Fault, FaultPlan};
use shaping::Link;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use store::Store;
use tokio::net::{TcpListener, TcpSocket};
use tokio_util::sync::CancellationToken;

/// Threads of the emulator's runtime carry this name, so that a process
/// running it beside a client can tell their CPU apart.
pub const THREAD_NAME: &str = "gcs-emulator";

/// Large HTTP/2 windows and frames, so that the emulator's ingest is not
/// what a benchmark measures (16 KiB frames, HTTP/2's default, halve gRPC
/// throughput on loopback).
pub const DEFAULT_STREAM_WINDOW: u32 = 8 << 20;
pub const DEFAULT_MAX_FRAME: u32 = 1 << 20;

#[derive(Clone, Debug)]
pub struct EmulatorOptions {
    pub host: IpAddr,
    /// 0 picks a free port.
    pub http_port: u16,
    pub grpc_port: u16,
    pub buckets: Vec<String>,
    /// Keep object bytes (for reads); otherwise only size and checksums.
    pub retain: bool,
    pub latency: Duration,
    /// Total ingest rate in bytes per second, all connections together.
    pub bandwidth: Option<u64>,
    /// Standing faults: every Nth upload request gets the fault.
    pub faults: Vec<(Fault, u64)>,
    /// Upload sessions idle for longer are forgotten.
    pub session_ttl: Duration,
    /// HTTP/2 stream window the server grants (the connection's is twice
    /// that): over a long link a stream cannot go faster than window / RTT.
    pub stream_window: u32,
    /// The largest HTTP/2 frame either server accepts (SETTINGS_MAX_FRAME_SIZE):
    /// an HTTP/2 upload's DATA frames (gRPC's, or JSON's over HTTP/2) are at
    /// most this long.
    pub max_frame: u32,
    /// Serve both APIs over TLS (`--tls`), as GCS does.
    pub tls: Option<tls::TlsMode>,
    /// Tokens: required or not, issued to whom, for how long.
    pub auth: authority::AuthOptions,
    /// Where reads say the object's checksums (`--read-checksums`).
    pub read_checksums: ReadChecksums,
    /// What a JSON upload's answer carries (`--upload-answers`).
    pub upload_answers: UploadAnswers,
}

impl Default for EmulatorOptions {
    fn default() -> Self {
        Self {
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            http_port: 0,
            grpc_port: 0,
            buckets: Vec::new(),
            retain: false,
            latency: Duration::ZERO,
            bandwidth: None,
            faults: Vec::new(),
            session_ttl: Duration::from_secs(600),
            stream_window: DEFAULT_STREAM_WINDOW,
            max_frame: DEFAULT_MAX_FRAME,
            tls: None,
            auth: authority::AuthOptions::default(),
            read_checksums: ReadChecksums::Full,
            upload_answers: UploadAnswers::Full,
        }
    }
}

pub struct Shared {
    /// `https` with `--tls`: session URIs point back at the same scheme.
    pub scheme: &'static str,
    pub store: Store,
    pub authority: authority::Authority,
    pub faults: FaultPlan,
    pub link: Arc<Link>,
    pub read_checksums: ReadChecksums,
    pub upload_answers: UploadAnswers,
    pub bidi_reads: BidiReads,
    /// Each gRPC call's `x-goog-request-params`, counted by value, as GCS's
    /// front ends route by it.
    pub routed: std::sync::Mutex<std::collections::BTreeMap<String, u64>>,
}

/// BidiReadObject streams as the server saw them: how many opened, and how
/// many of those named a read handle (a client resuming a stream it had).
#[derive(Debug, Default)]
pub struct BidiReads {
    pub opened: std::sync::atomic::AtomicU64,
    pub by_handle: std::sync::atomic::AtomicU64,
}

/// A running emulator. Dropping it shuts both servers down.
pub struct Emulator {
    shared: Arc<Shared>,
    json_addr: SocketAddr,
    grpc_addr: SocketAddr,
    /// With `--require-auth`: the metadata server (GCE_METADATA_HOST=this).
    metadata_addr: Option<SocketAddr>,
    shutdown: CancellationToken,
    /// With `--tls`: `https`, and the CA made at start (PEM) if one was.
    scheme: &'static str,
    ca_pem: Option<String>,
    /// Its own threads, like a separate server: the client's CPU can be told
    /// from the emulator's, and neither scheduler starves the other's tasks.
    runtime: Option<tokio::runtime::Runtime>,
}

impl Emulator {
    pub async fn start(options: EmulatorOptions) -> std::io::Result<Emulator> {
        malloc::keep_freed_memory(); // the ingest's buffers are reused, not re-faulted
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name(THREAD_NAME)
            .enable_all()
            .build()?;
        let started = runtime.spawn(Self::start_here(options)).await.map_err(std::io::Error::other).and_then(|r| r);
        match started {
            Ok(mut emulator) => {
                emulator.runtime = Some(runtime);
                Ok(emulator)
            }
            Err(error) => {
                // We are inside another runtime: dropping this one here would
                // block (tokio panics), so let its threads wind down on their own.
                runtime.shutdown_background();
                Err(error)
            }
        }
    }

    /// Starts the servers on the current runtime.
    async fn start_here(options: EmulatorOptions) -> std::io::Result<Emulator> {
        let authority = authority::Authority::new(&options.auth)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        let tls = options.tls.as_ref().map(tls::ServerTls::new).transpose()?;
        let scheme = if tls.is_some() { "https" } else { "http" };
        let shared = Arc::new(Shared {
            scheme,
            authority,
            store: Store::new(options.retain, options.session_ttl),
            faults: FaultPlan::default(),
            link: Arc::new(Link::new(options.latency, options.bandwidth)),
            read_checksums: options.read_checksums,
            upload_answers: options.upload_answers,
            bidi_reads: BidiReads::default(),
            routed: Default::default(),
        });
        for bucket in &options.buckets {
            shared.store.create_bucket(bucket).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        }
        for (fault, every) in &options.faults {
            shared.faults.add_rule(fault.clone(), *every);
        }
        let receive_buffer = shared.link.is_shaped().then_some(link::RECEIVE_BUFFER_BYTES);
        let json_listener = bind(options.host, options.http_port, "--http-port", receive_buffer)?;
        let grpc_listener = bind(options.host, options.grpc_port, "--grpc-port", receive_buffer)?;
        let json_addr = json_listener.local_addr()?;
        let grpc_addr = grpc_listener.local_addr()?;
        let shutdown = CancellationToken::new();
        let (json_tls, grpc_tls) = match &tls {
            Some(tls) => (Some(tls.json.clone()), Some(tls.grpc.clone())),
            None => (None, None),
        };
        let http2 = serve::Http2 { stream_window: options.stream_window, max_frame: options.max_frame };
        serve::json(json_listener, &shared, &shutdown, json_tls, http2);
        serve::grpc(grpc_listener, &shared, &shutdown, grpc_tls, http2);
        let metadata_addr = match options.auth.required {
            true => {
                let listener = bind(options.host, 0, "--metadata-port", None)?;
                let addr = listener.local_addr()?;
                serve::metadata(listener, &shared, &shutdown);
                Some(addr)
            }
            false => None,
        };
        let ca_pem = tls.and_then(|t| t.ca_pem);
        Ok(Emulator { shared, json_addr, grpc_addr, metadata_addr, shutdown, scheme, ca_pem, runtime: None })
    }

    /// `http://127.0.0.1:PORT` (`https://` with TLS), the JSON API's base URL.
    pub fn json_url(&self) -> String {
        format!("{}://{}", self.scheme, self.json_addr)
    }

    /// `127.0.0.1:PORT`: plaintext HTTP/2, or TLS (see `grpc_url`).
    pub fn grpc_addr(&self) -> SocketAddr {
        self.grpc_addr
    }

    /// `http://127.0.0.1:PORT` or, with TLS, `https://127.0.0.1:PORT`.
    pub fn grpc_url(&self) -> String {
        format!("{}://{}", self.scheme, self.grpc_addr)
    }

    /// The metadata server's address, with `--require-auth`.
    pub fn metadata_addr(&self) -> Option<SocketAddr> {
        self.metadata_addr
    }

    /// Tokens issued, requests refused.
    pub fn authority(&self) -> &authority::Authority {
        &self.shared.authority
    }

    /// The CA that signed the emulator's certificate, when it made one (`--tls`).
    pub fn ca_pem(&self) -> Option<&str> {
        self.ca_pem.as_deref()
    }

    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    /// Queue faults for the next upload requests from tests.
    /// The BidiReadObject streams opened, and those resumed by handle.
    pub fn bidi_reads(&self) -> &BidiReads {
        &self.shared.bidi_reads
    }

    /// The routing headers gRPC calls carried, each with how many did.
    pub fn routed(&self) -> std::collections::BTreeMap<String, u64> {
        self.shared.routed.lock().unwrap().clone()
    }

    pub fn faults(&self) -> &FaultPlan {
        &self.shared.faults
    }

    pub fn shutdown(&self) {
        self.shutdown.cancel();
    }
}

/// Binds a listener (with a small receive buffer behind a shaped link); a
/// port in use or not ours to take is said as such.
fn bind(host: IpAddr, port: u16, flag: &str, receive_buffer: Option<u32>) -> std::io::Result<TcpListener> {
    let listen = || {
        let socket = if host.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
        socket.set_reuseaddr(true)?;
        if let Some(size) = receive_buffer {
            socket.set_recv_buffer_size(size)?;
        }
        socket.bind(SocketAddr::new(host, port))?;
        socket.listen(1024)
    };
    listen().map_err(|error: std::io::Error| {
        let advice = match error.kind() {
            std::io::ErrorKind::AddrInUse => format!("port {port} is already in use"),
            std::io::ErrorKind::PermissionDenied => format!("port {port} needs privileges this user lacks"),
            std::io::ErrorKind::AddrNotAvailable => format!("{host} is not an address of this machine"),
            _ => format!("cannot listen on {host}:{port} ({error})"),
        };
        std::io::Error::new(error.kind(), format!("{advice}: choose another {flag}, or 0 for any free port"))
    })
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.shutdown.cancel();
        if let Some(runtime) = self.runtime.take() {
            // Dropping a runtime may happen inside another one: do not block there.
            runtime.shutdown_background();
        }
    }
}
