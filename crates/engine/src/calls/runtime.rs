//! The client's own runtime, so that its CPU can be told apart from the
//! app's drawing or the CLI's printing.

/// A runtime of its own for a run's client, on threads of one name (whose
/// CPU is the client CPU: the app's drawing or the CLI's printing are on
/// other threads): connect and run there, await from anywhere.
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
    pub fn new(threads: usize, thread_name: &str) -> Result<Self, String> {
        let mut builder = match threads {
            0 | 1 => tokio::runtime::Builder::new_current_thread(),
            _ => tokio::runtime::Builder::new_multi_thread(),
        };
        if threads > 1 {
            builder.worker_threads(threads);
        }
        // A thread's CPU is read from /proc while it lives: the blocking
        // pool's idle threads stay for the run, not 10 s, so none ends
        // inside a round and takes the CPU it spent with it.
        let runtime = builder
            .thread_name(thread_name)
            .thread_keep_alive(std::time::Duration::MAX)
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the client's threads: {e}"))?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name(thread_name.into())
            .spawn(move || {
                // Drives a current-thread runtime's tasks (a multi-thread
                // one has its own workers) until the `ClientRuntime` goes.
                let _ = runtime.block_on(stopped);
                runtime.shutdown_background();
            })
            .map_err(|e| format!("cannot start the client's threads: {e}"))?;
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
