//! The open-loop unit of work for put and range: the round's `clients` x
//! `requests` arrivals, each sent at its intended instant by the engine's
//! pacer whatever the earlier ones are doing, on the same keys a closed
//! round uses. Latency counts from the intended start; service time from
//! the actual one.

use super::client::Kv;
use super::options::Mode;
use super::workload::{Batch, Work, request};
use engine::open_loop::{OpenLoop, PacedRound};
use std::sync::Arc;

/// Sends the round's arrivals at `open`'s rate and waits for their answers:
/// arrival `i` is the key the closed round's client `i % clients` sends as
/// its `i / clients`th.
pub async fn run_open(
    kv: Arc<dyn Kv>,
    mode: Mode,
    work: &Work,
    open: &OpenLoop,
    pacer: (u64, &str),
) -> (Batch, PacedRound) {
    let (keys, value, clients) = (work.keys.clone(), work.value.clone(), work.clients);
    engine::calls::batch::run_open(&work.turns(), open, pacer, move |client, n| {
        let (kv, key, value) = (kv.clone(), keys.nth(client, n, clients), value.clone());
        async move { request(&*kv, mode, key, &value).await }
    })
    .await
}
