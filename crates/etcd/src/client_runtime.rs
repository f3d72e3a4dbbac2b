//! The client's own runtime, so that its CPU can be told apart from the
//! app's drawing or the CLI's printing.

use super::client::EtcdError;

/// The threads an etcd run's client runs on, and whose CPU is its client
/// CPU: the app's drawing (or the CLI's printing) is on other threads.
pub const CLIENT_THREAD_NAME: &str = "etcd-client";

/// A runtime of its own for an etcd run's client, on threads named
/// `CLIENT_THREAD_NAME`: connect and run there, await from anywhere.
pub struct ClientRuntime {
    handle: tokio::runtime::Handle,
    /// Ends the client's threads when dropped (the runtime is theirs).
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl ClientRuntime {
    /// One thread is a current-thread runtime: it runs woken tasks in the
    /// order they were woken, so the requests of every client answered by
    /// one read reach the connection before it writes, and go out in one
    /// writev (a multi-thread runtime's LIFO slot runs each request through
    /// to its own write first: 1.33 writev per put, measured with strace).
    pub fn new(threads: usize) -> Result<Self, EtcdError> {
        let mut builder = match threads {
            0 | 1 => tokio::runtime::Builder::new_current_thread(),
            _ => tokio::runtime::Builder::new_multi_thread(),
        };
        if threads > 1 {
            builder.worker_threads(threads);
        }
        let runtime = builder
            .thread_name(CLIENT_THREAD_NAME)
            .enable_all()
            .build()
            .map_err(|e| EtcdError::Connection(format!("cannot start the client's threads: {e}")))?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name(CLIENT_THREAD_NAME.into())
            .spawn(move || {
                // Drives a current-thread runtime's tasks (a multi-thread
                // one has its own workers) until the `ClientRuntime` goes.
                let _ = runtime.block_on(stopped);
                runtime.shutdown_background();
            })
            .map_err(|e| EtcdError::Connection(format!("cannot start the client's threads: {e}")))?;
        Ok(Self { handle, _stop: stop })
    }

    /// Runs `work` on the client's threads.
    pub async fn run<F>(&self, work: F) -> F::Output
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.handle.spawn(work).await.expect("the client's work does not panic")
    }
}
