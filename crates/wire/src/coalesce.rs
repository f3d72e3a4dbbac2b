//! A connection that lets small requests go out together: the requests of
//! every client answered by one read leave in one write, where h2 alone
//! wrote each request (and each PING answer) in a syscall of its own,
//! measured with strace at 1.36 writev per put (0.40 sends with this). Two things do it:
//! - it tells h2 it has no vectored writes, so h2 copies DATA payloads of
//!   up to 1 KiB into its write buffer instead of chaining them (it chains
//!   anything over 256 bytes on a vectored socket and can hold only one
//!   chained payload, so it flushed once per request);
//! - before each write it yields once to the runtime, so the client tasks
//!   that were just woken add their requests to the buffer first (more
//!   yields were tried: 4 cost more CPU per put than they saved).
//!
//! Large payloads (GCS uploads) are better chained and do not use this.

use hyper::rt::{Read, ReadBufCursor, Write};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

pub struct Coalescing<T> {
    inner: T,
    /// Whether this write has yielded already.
    yielded: bool,
}

impl<T> Coalescing<T> {
    pub fn new(inner: T) -> Self {
        Self { inner, yielded: false }
    }
}

impl<T: Read + Unpin> Read for Coalescing<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: ReadBufCursor<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<T: Write + Unpin> Write for Coalescing<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if !this.yielded {
            // Woken now, the connection runs again after the tasks already
            // woken (a yield: to the back of the run queue).
            this.yielded = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        this.yielded = false;
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper_util::rt::TokioIo;

    #[tokio::test]
    async fn a_write_yields_once_then_goes_through_and_is_not_vectored() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut io = Coalescing::new(TokioIo::new(near));
        assert!(!Write::is_write_vectored(&io));
        let woken = std::sync::Arc::new(Woken::default());
        let waker = std::task::Waker::from(woken.clone());
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut io).poll_write(&mut cx, b"ab").is_pending());
        assert!(woken.0.load(std::sync::atomic::Ordering::SeqCst), "a yield wakes its own task");
        assert!(matches!(Pin::new(&mut io).poll_write(&mut cx, b"ab"), Poll::Ready(Ok(2))));
        let mut got = [0u8; 2];
        tokio::io::AsyncReadExt::read_exact(&mut far, &mut got).await.unwrap();
        assert_eq!(&got, b"ab");
        assert!(Pin::new(&mut io).poll_write(&mut cx, b"c").is_pending(), "each write yields once again");
    }

    #[derive(Default)]
    struct Woken(std::sync::atomic::AtomicBool);

    impl std::task::Wake for Woken {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
}
