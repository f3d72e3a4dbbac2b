//! The open-loop unit of work for put and range: the round's `clients` x
//! `requests` arrivals, each sent at its intended instant by the engine's
//! pacer whatever the earlier ones are doing, on the same keys a closed
//! round uses. Latency counts from the intended start; service time from
//! the actual one.

use super::client::Kv;
use super::options::Mode;
use super::workload::{Batch, Work, request};
use engine::open_loop::{OpenLoop, PacedRound, latency_histogram, micros, run_paced};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// Sends the round's arrivals at `open`'s rate and waits for their answers.
pub async fn run_open(
    kv: Arc<dyn Kv>,
    mode: Mode,
    work: &Work,
    open: &OpenLoop,
    (seed, pacer_thread): (u64, &str),
) -> (Batch, PacedRound) {
    let clients = work.clients as u64;
    let count = (clients * work.requests as u64) as usize;
    let shared = work.clone();
    let arrival = move |ticket: engine::open_loop::Ticket| {
        let (kv, work) = (kv.clone(), shared.clone());
        async move {
            let turn = ticket.start();
            // The same key the closed round's client would send as its nth.
            let n = turn.index as u64;
            let key = work.keys.nth((n % clients) as u32, n / clients, work.clients);
            let result = request(&*kv, mode, key, &work.value).await;
            let (latency, service) = turn.finished();
            if result.is_ok() {
                work.done.fetch_add(1, Ordering::Relaxed);
            }
            (result, latency, service)
        }
    };
    let offsets = open.offsets(count, seed);
    let (answers, tally) = run_paced(open, offsets, work.stop.clone(), pacer_thread, arrival).await;
    let mut batch = Batch::new();
    let mut service_times = latency_histogram();
    for (result, latency, service) in answers {
        match result {
            Ok(()) => {
                batch.ops += 1;
                batch.latency.saturating_record(micros(latency));
                service_times.saturating_record(micros(service));
            }
            Err(error) => batch.failures.add(error),
        }
    }
    (batch, PacedRound::of(tally, service_times))
}
