//! The usual way to run an open-loop round: each arrival a task of the
//! current runtime, spawned by the pacer at the arrival's instant.

use super::{OpenLoop, PacingTally, Ticket, pace};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Paces `offsets`, running `arrival(ticket)` as a task at each instant;
/// returns every started task's output (in the order they were released)
/// and the round's tally. `stop` ends the releases; the tasks released
/// before it run to their end.
pub async fn run_paced<T, Work>(
    open: &OpenLoop,
    offsets: Vec<Duration>,
    stop: Arc<AtomicBool>,
    thread_name: &str,
    mut arrival: impl FnMut(Ticket) -> Work + Send + 'static,
) -> (Vec<T>, PacingTally)
where
    T: Send + 'static,
    Work: Future<Output = T> + Send + 'static,
{
    let runtime = tokio::runtime::Handle::current();
    let (spawned, mut tasks) = tokio::sync::mpsc::unbounded_channel();
    let pacer = pace(open, offsets, stop, thread_name, move |ticket| {
        let _ = spawned.send(runtime.spawn(arrival(ticket)));
    });
    let mut outputs = Vec::new();
    // The channel closes as the pacer's thread ends: by then every task is in it.
    while let Some(task) = tasks.recv().await {
        if let Ok(output) = task.await {
            outputs.push(output);
        }
    }
    (outputs, pacer.finish())
}
