//! The unit of work for put and range: `clients` tasks, each sending its
//! requests one after another (as the study's clients did), every request's
//! latency into a histogram.

use super::client::{EtcdError, Kv};
use super::options::Mode;
use engine::calls::batch::{Turns, run_closed};
use engine::calls::logged::RoundLog;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Latencies in microseconds, 1 µs to an hour, 3 significant digits.
pub use engine::open_loop::latency_histogram;

/// Which keys a run's requests use: `PREFIX/RUN-ID/` and a zero-padded
/// index of `key_size` digits, in order or spread at random over the space.
#[derive(Clone, Debug)]
pub struct Keys {
    pub prefix: Vec<u8>,
    pub key_size: usize,
    pub key_space: u32,
    pub sequential: bool,
}

impl Keys {
    pub fn key(&self, index: u64) -> Vec<u8> {
        let mut key = self.prefix.clone();
        key.extend(format!("{:0width$}", index % self.key_space as u64, width = self.key_size).bytes());
        key
    }

    /// The `n`th key of client `client`: sequential keys interleave the
    /// clients (0, 1, 2, ... across them); random keys come from a
    /// SplitMix64 stream seeded by the client and request.
    pub fn nth(&self, client: u32, n: u64, clients: u32) -> Vec<u8> {
        let index = n * clients as u64 + client as u64;
        if self.sequential { self.key(index) } else { self.key(units::splitmix64(index)) }
    }
}

/// One round's work: `clients` x `requests` on these keys, with this value;
/// `done` counts what has been answered, for the live view; `stop` ends it
/// between requests (a request dropped in flight could still reach etcd
/// after the cleanup, and leave a key behind).
#[derive(Clone)]
pub struct Work {
    pub keys: Arc<Keys>,
    pub value: Arc<Vec<u8>>,
    pub clients: u32,
    pub requests: u32,
    pub done: Arc<AtomicU64>,
    pub stop: Arc<AtomicBool>,
    /// A timed round's share of `--samples`.
    pub log: Option<RoundLog>,
}

impl Work {
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// The requests that failed: how many, by kind, and the first.
pub type Failures = engine::calls::batch::Failures<EtcdError>;

/// What one batch of clients did.
pub type Batch = engine::calls::batch::Batch<EtcdError>;

impl Work {
    /// The round's shape for the engine's loops (sharing `done` and `stop`).
    pub fn turns(&self) -> Turns {
        let (done, stop, log) = (self.done.clone(), self.stop.clone(), self.log.clone());
        Turns { clients: self.clients, requests: self.requests, done, stop, log }
    }
}

/// One request of `mode`; a range must find the key the run wrote (one kv
/// back): a range that finds nothing measured no read.
pub(crate) async fn request(kv: &dyn Kv, mode: Mode, key: Vec<u8>, value: &[u8]) -> Result<(), EtcdError> {
    match mode {
        Mode::Range => match kv.range(key.clone()).await? {
            0 => Err(EtcdError::Alone {
                kind: crate::client::NOT_FOUND,
                message: format!(
                    "a range of {} found no key: it was written before the rounds, so something deleted it",
                    String::from_utf8_lossy(&key)
                ),
            }),
            _ => Ok(()),
        },
        _ => kv.put(key, value.to_vec()).await.map(drop),
    }
}

/// Runs `clients` x `requests` puts or ranges on `kv` and waits for them all.
pub async fn run_batch(kv: Arc<dyn Kv>, mode: Mode, work: &Work) -> Batch {
    let (keys, value, clients) = (work.keys.clone(), work.value.clone(), work.clients);
    run_closed(&work.turns(), move |client, n| {
        let (kv, key, value) = (kv.clone(), keys.nth(client, n, clients), value.clone());
        async move { request(&*kv, mode, key, &value).await }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_have_the_prefix_and_the_size_asked_for() {
        let keys = Keys { prefix: b"p/run/".to_vec(), key_size: 8, key_space: 100, sequential: true };
        assert_eq!(keys.nth(1, 0, 4), b"p/run/00000001");
        assert_eq!(keys.nth(1, 1, 4), b"p/run/00000005");
        assert_eq!(keys.key(123), b"p/run/00000023", "wrapped into the key space");
        let random = Keys { sequential: false, ..keys };
        let spread: std::collections::BTreeSet<Vec<u8>> = (0..1000).map(|n| random.nth(0, n, 1)).collect();
        assert!(spread.len() > 90, "random keys cover the space: {}", spread.len());
    }
}
