//! A simulated network link under each connection: bytes in both directions
//! arrive one-way-latency after they were sent, and client-to-server bytes
//! are admitted at the shaped rate. Because window updates come back late
//! too, HTTP/2 flow control meets the round trip as on a real long link
//! (a stream window caps throughput at window / RTT), and every answer
//! reaches the client a round trip after the request's last byte.

use super::shaping::Link;
use bytes::{Bytes, BytesMut};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// Largest piece moved at once.
const PIECE_BYTES: usize = 256 * 1024;
/// Pieces in flight per direction (64 MiB): what the link holds before the
/// sender's own socket fills up, like a large TCP window.
const PIECES_IN_FLIGHT: usize = 256;

/// Returns the server's end of a shaped pipe carrying `socket`'s bytes.
pub fn shaped(socket: TcpStream, link: Arc<Link>) -> DuplexStream {
    let (server_end, link_end) = tokio::io::duplex(PIECE_BYTES * 4);
    let (from_client, to_client) = socket.into_split();
    let (from_server, to_server) = tokio::io::split(link_end);
    tokio::spawn(carry(from_client, to_server, link.clone(), true));
    tokio::spawn(carry(from_server, to_client, link, false));
    server_end
}

/// Bytes the server's kernel may take in ahead of the link. A loopback
/// socket buffer grows to megabytes, all acknowledged at once: the client
/// would see bytes "delivered" that the link has not carried yet. Real links
/// acknowledge only what crossed them; a small buffer keeps that true here.
/// It is set on the listener, before any connection's window is advertised:
/// shrinking it on an open connection makes the kernel drop data already in
/// flight, and the retransmissions count as wire bytes. 512 KiB, not less:
/// at 128 KiB the kernel's per-packet accounting on loopback overflowed it
/// and dropped packets (wire 1.05-1.30x on 1 MiB uploads); at 512 KiB wire
/// stays at 1.000-1.002x and a 0.25 s live sample at 200 Mbit/s reads at
/// most ~1.15x the link (the buffer's worth of bytes acknowledged early).
pub const RECEIVE_BUFFER_BYTES: u32 = 512 * 1024;

/// Reads one direction as fast as it comes and delivers each piece one
/// latency later; the rate limit applies to what the client sends.
async fn carry(
    mut from: impl tokio::io::AsyncRead + Unpin + Send + 'static,
    mut to: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
    link: Arc<Link>,
    inbound: bool,
) {
    let (queue, mut due) = mpsc::channel::<(Instant, Bytes)>(PIECES_IN_FLIGHT);
    let latency = link.latency;
    let deliver = tokio::spawn(async move {
        while let Some((at, piece)) = due.recv().await {
            tokio::time::sleep_until(at).await;
            if to.write_all(&piece).await.is_err() {
                return;
            }
        }
        let _ = to.shutdown().await;
    });
    let mut buffer = BytesMut::with_capacity(PIECE_BYTES);
    loop {
        buffer.reserve(PIECE_BYTES);
        match from.read_buf(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if inbound {
                    link.admit(n).await;
                }
                if queue.send((Instant::now() + latency, buffer.split().freeze())).await.is_err() {
                    break;
                }
            }
        }
    }
    drop(queue);
    let _ = deliver.await;
}
