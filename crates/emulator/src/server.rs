//! The accept loop both APIs share: one task per connection, each of which
//! can be killed on its own (a fault that resets the connection) or all at
//! once (shutdown).

use super::shaping::Link;
use hyper_util::rt::TokioIo;
use std::future::Future;
use std::sync::Arc;
use tokio::io::DuplexStream;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_util::either::Either;
use tokio_util::sync::CancellationToken;

/// Kills one connection: the socket is dropped mid-request, as a reset would.
#[derive(Clone)]
pub struct ConnectionKill(CancellationToken);

impl ConnectionKill {
    /// Drops the connection without answering. Never returns: the connection's
    /// task drops this request along with the socket.
    pub async fn reset(&self) -> ! {
        self.reset_now();
        std::future::pending().await
    }

    /// The same, from a task that is not the connection's own.
    pub fn reset_now(&self) {
        self.0.cancel();
    }
}

/// The socket, or the end of a shaped link.
type Plain = Either<TcpStream, DuplexStream>;

/// A connection as the server sees it: plain, or TLS over it (`--tls`).
pub type Connection = TokioIo<Either<Plain, tokio_rustls::server::TlsStream<Plain>>>;

pub fn spawn_accept_loop<C, F>(
    listener: TcpListener,
    shutdown: CancellationToken,
    link: Arc<Link>,
    tls: Option<tokio_rustls::TlsAcceptor>,
    serve: C,
) -> JoinHandle<()>
where
    C: Fn(Connection, ConnectionKill) -> F + Send + Sync + 'static,
    F: Future<Output = ()> + Send + 'static,
{
    let serve = Arc::new(serve);
    tokio::spawn(async move {
        loop {
            let accepted = tokio::select! {
                _ = shutdown.cancelled() => break,
                accepted = listener.accept() => accepted,
            };
            let stream = match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of descriptors and the like: back off, keep serving.
                    tracing::warn!("emulator accept failed: {error}");
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let kill = shutdown.child_token();
            let stream = if link.is_shaped() {
                Either::Right(super::link::shaped(stream, link.clone()))
            } else {
                Either::Left(stream)
            };
            let (serve, tls) = (serve.clone(), tls.clone());
            tokio::spawn(async move {
                let connection = async {
                    let stream = match tls {
                        // A client that does not trust us hangs up here: its error says why.
                        Some(tls) => match tls.accept(stream).await {
                            Ok(stream) => Either::Right(stream),
                            Err(_) => return,
                        },
                        None => Either::Left(stream),
                    };
                    serve(TokioIo::new(stream), ConnectionKill(kill.clone())).await
                };
                tokio::select! {
                    biased;
                    _ = kill.cancelled() => {}
                    _ = connection => {}
                }
            });
        }
    })
}
