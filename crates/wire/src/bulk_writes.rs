//! A connection that sends an upload's small HTTP/2 frames in large writes.
//!
//! h2 writes each DATA frame in a syscall of its own and flushes after it
//! (it holds one chained payload at a time), and a frame is at most what the
//! server allows (SETTINGS_MAX_FRAME_SIZE). A server that sets none allows
//! HTTP/2's default, 16 KiB: 65,536 `writev`s a GiB. Against the built-in
//! emulator with `--frame-size 16KiB`, that cost gRPC uploads 0.57-0.59 CPU
//! seconds a GiB where JSON's cost 0.25 (docs/performance.md).
//!
//! So a frame that arrives while a burst of them is flowing is copied into
//! a buffer, and a flush with a burst buffered waits one turn of the
//! runtime: the connection's task is woken at once, and if it writes
//! nothing more before it flushes again, the buffer goes out then. A full
//! buffer goes out at once. Writes of `PASS_THROUGH` bytes or more (1 MiB
//! frames, as the emulator's default allows) go straight to the socket,
//! uncopied; a flush with less than a default frame's worth buffered (a
//! request's headers, a small message, a window update) goes out at once,
//! as before. Below TLS, this gathers TLS records the same way.

use hyper::rt::{Read, ReadBufCursor, Write};
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll, ready};

/// The most buffered before it is written: a write this long costs about
/// what raw TCP's 1 MiB writes cost a byte on loopback.
pub const BUFFER_BYTES: usize = 512 * 1024;
/// Writes at least this long are not copied: there are few of them.
pub const PASS_THROUGH: usize = 64 * 1024;
/// A flush waits a turn only with a burst buffered: at least one frame of
/// HTTP/2's default size. Less goes out at once, as it would without this.
pub const BURST: usize = 16 * 1024;

pub struct BulkWrites<T> {
    inner: T,
    buffer: Vec<u8>,
    /// Bytes of `buffer` already written to `inner`.
    written: usize,
    /// Whether anything was buffered since the last flush.
    wrote_since_flush: bool,
}

impl<T> BulkWrites<T> {
    pub fn new(inner: T) -> Self {
        Self { inner, buffer: Vec::new(), written: 0, wrote_since_flush: false }
    }
}

impl<T: Write + Unpin> BulkWrites<T> {
    /// Writes out what is buffered.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.buffer.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.buffer[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.buffer.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }

    /// Takes `slices` whole (or as much as fits), through the buffer or,
    /// when long and nothing is buffered, straight to the socket.
    fn poll_take(&mut self, cx: &mut Context<'_>, slices: &[IoSlice<'_>]) -> Poll<io::Result<usize>> {
        let len: usize = slices.iter().map(|s| s.len()).sum();
        if self.buffer.len() + len > BUFFER_BYTES || len >= PASS_THROUGH {
            ready!(self.poll_drain(cx))?;
        }
        if len >= PASS_THROUGH {
            return Pin::new(&mut self.inner).poll_write_vectored(cx, slices);
        }
        if self.buffer.capacity() == 0 {
            self.buffer.reserve_exact(BUFFER_BYTES);
        }
        let mut taken = 0;
        for slice in slices {
            let room = BUFFER_BYTES - self.buffer.len();
            let part = &slice[..slice.len().min(room)];
            self.buffer.extend_from_slice(part);
            taken += part.len();
            if part.len() < slice.len() {
                break;
            }
        }
        self.wrote_since_flush = true;
        Poll::Ready(Ok(taken))
    }
}

impl<T: Read + Unpin> Read for BulkWrites<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: ReadBufCursor<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<T: Write + Unpin> Write for BulkWrites<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.get_mut().poll_take(cx, &[IoSlice::new(buf)])
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        slices: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().poll_take(cx, slices)
    }

    fn is_write_vectored(&self) -> bool {
        // h2 then chains each frame's payload to its head instead of copying
        // payloads over 256 bytes into its own buffer first.
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.wrote_since_flush && this.buffer.len() - this.written >= BURST {
            // More frames may come when the task runs again; if none do, its
            // next flush finds nothing new written and sends these.
            this.wrote_since_flush = false;
            cx.waker().wake_by_ref();
            return Poll::Ready(Ok(()));
        }
        this.wrote_since_flush = false;
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::task::{Wake, Waker};

    /// A socket that keeps each write apart, and can be made to block, to
    /// block one write only, or to take at most `limit` bytes a write (a
    /// full send buffer).
    #[derive(Default)]
    struct Socket {
        writes: Vec<Vec<u8>>,
        flushes: usize,
        blocked: bool,
        blocked_once: bool,
        limit: Option<usize>,
    }

    impl Write for Socket {
        fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
            let this = self.get_mut();
            if this.blocked || std::mem::take(&mut this.blocked_once) {
                return Poll::Pending;
            }
            let taken = &buf[..buf.len().min(this.limit.unwrap_or(usize::MAX))];
            this.writes.push(taken.to_vec());
            Poll::Ready(Ok(taken.len()))
        }
        /// As a TCP socket's `writev`: every slice, in one write.
        fn poll_write_vectored(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            slices: &[IoSlice<'_>],
        ) -> Poll<io::Result<usize>> {
            let whole: Vec<u8> = slices.iter().flat_map(|s| s.iter().copied()).collect();
            self.poll_write(cx, &whole)
        }
        fn is_write_vectored(&self) -> bool {
            true
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            self.get_mut().flushes += 1;
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[derive(Default)]
    struct Woken(AtomicBool);

    impl Wake for Woken {
        fn wake(self: Arc<Self>) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    /// What h2 does with each DATA frame: writes its head and payload, then flushes.
    fn send_frame(io: &mut BulkWrites<Socket>, cx: &mut Context<'_>, payload: &[u8]) {
        let head = [payload.len() as u8; 9]; // PASS_THROUGH as u8 is 0
        let slices = [IoSlice::new(&head), IoSlice::new(payload)];
        let taken = Pin::new(&mut *io).poll_write_vectored(cx, &slices);
        assert!(matches!(taken, Poll::Ready(Ok(n)) if n == 9 + payload.len()), "{taken:?}");
        assert!(matches!(Pin::new(&mut *io).poll_flush(cx), Poll::Ready(Ok(()))));
    }

    fn frame(byte: u8) -> Vec<u8> {
        vec![byte; BURST]
    }

    #[test]
    fn a_burst_of_small_frames_goes_out_in_writes_of_the_buffers_size_in_order() {
        let woken = Arc::new(Woken::default());
        let waker = Waker::from(woken.clone());
        let mut cx = Context::from_waker(&waker);
        let mut io = BulkWrites::new(Socket::default());
        // A frame with its head is BURST + 9 bytes: 31 fit in the buffer, the 32nd does not.
        let per_buffer = BUFFER_BYTES / (BURST + 9);
        let frames = 2 * per_buffer + 5;
        for i in 0..frames {
            send_frame(&mut io, &mut cx, &frame(i as u8));
            assert!(woken.0.swap(false, Ordering::SeqCst), "a flush that waits wakes its task");
        }
        assert_eq!(io.inner.writes.len(), 2, "two buffers filled, none written before it was full");
        assert_eq!(io.inner.flushes, 0, "no flush reached the socket while the burst went on");
        assert!(io.inner.writes.iter().all(|w| w.len() == per_buffer * (BURST + 9)));
        // The task runs again and flushes having written nothing: out it goes.
        assert!(matches!(Pin::new(&mut io).poll_flush(&mut cx), Poll::Ready(Ok(()))));
        assert!(!woken.0.load(Ordering::SeqCst), "nothing left to wait for");
        assert_eq!(io.inner.flushes, 1);
        assert_eq!(io.inner.writes.len(), 3);
        assert_eq!(io.inner.writes[2].len(), 5 * (BURST + 9));
        let sent: Vec<u8> = io.inner.writes.concat();
        let expected: Vec<u8> =
            (0..frames).flat_map(|i| [[BURST as u8; 9].to_vec(), frame(i as u8)].concat()).collect();
        assert_eq!(sent.len(), frames * (BURST + 9));
        assert!(sent == expected, "every byte, in the order written");
    }

    #[test]
    fn a_small_write_is_flushed_at_once_as_without_the_buffer() {
        let mut cx = Context::from_waker(Waker::noop());
        let mut io = BulkWrites::new(Socket::default());
        send_frame(&mut io, &mut cx, b"a small message");
        assert_eq!(io.inner.writes, [[[15u8; 9].as_slice(), b"a small message"].concat()]);
        assert_eq!(io.inner.flushes, 1);
    }

    #[test]
    fn a_large_frame_goes_straight_to_the_socket_after_what_was_buffered() {
        let mut cx = Context::from_waker(Waker::noop());
        let mut io = BulkWrites::new(Socket::default());
        send_frame(&mut io, &mut cx, &frame(1));
        assert!(io.inner.writes.is_empty(), "a default-size frame waits for more");
        let large = vec![2u8; PASS_THROUGH];
        let head = [0u8; 9];
        let slices = [IoSlice::new(&head), IoSlice::new(&large)];
        // The socket refuses the buffered frame, then would take the large one.
        io.inner.blocked_once = true;
        let blocked = Pin::new(&mut io).poll_write_vectored(&mut cx, &slices);
        assert!(blocked.is_pending(), "the buffered frame goes first, so the large one waits for it");
        assert!(io.inner.writes.is_empty());
        send_frame(&mut io, &mut cx, &large);
        let buffered = [head.as_slice(), &frame(1)].concat();
        assert_eq!(
            io.inner.writes,
            [buffered, [head.as_slice(), &large].concat()],
            "in order, the large one in one writev"
        );
        assert_eq!(io.buffer.capacity(), BUFFER_BYTES);
    }

    #[test]
    fn a_socket_that_takes_part_or_blocks_gets_every_byte_once_in_order_and_shutdown_sends_the_rest() {
        let mut cx = Context::from_waker(Waker::noop());
        let mut io = BulkWrites::new(Socket::default());
        send_frame(&mut io, &mut cx, &frame(1));
        // The socket takes at most 1,000 bytes a write, as a full send buffer does.
        io.inner.limit = Some(1000);
        let flush = Pin::new(&mut io).poll_flush(&mut cx);
        assert!(flush.is_ready(), "a socket taking every write in part still takes it all: {flush:?}");
        let writes_of_the_first = io.inner.writes.len();
        send_frame(&mut io, &mut cx, &frame(2));
        io.inner.blocked = true;
        assert!(Pin::new(&mut io).poll_flush(&mut cx).is_pending(), "the second flush must write");
        io.inner.blocked = false;
        assert!(matches!(Pin::new(&mut io).poll_shutdown(&mut cx), Poll::Ready(Ok(()))));
        assert!(io.inner.writes.len() > writes_of_the_first, "shutdown sent the second frame");
        assert!(io.inner.writes.iter().all(|w| w.len() <= 1000));
        let sent = [[0u8; 9].as_slice(), &frame(1), &[0u8; 9], &frame(2)].concat();
        assert!(io.inner.writes.concat() == sent, "every byte once, in order, across short writes");
    }
}
