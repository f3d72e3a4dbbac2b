//! Link shaping for realistic demos: a round trip before every answer, and a
//! token bucket that caps the total ingest rate of all connections together,
//! like one NIC.
//!
//! The latency model: on a real link, an answer reaches the client one round
//! trip after the client's last byte of the request (the request's head
//! travels while its body is still being sent, so it adds nothing on its own;
//! data streams on without waiting). So every answer, of either API, is held
//! back for two one-way delays after the request (or the flushed chunk, the
//! state lookup, the finishing message) has been read. Both transports pay
//! the same per round trip they really make.

use std::sync::Mutex;
use std::time::Duration;
use tokio::time::Instant;

#[derive(Default)]
pub struct Link {
    pub latency: Duration,
    bucket: Option<TokenBucket>,
}

struct TokenBucket {
    bytes_per_second: f64,
    burst: f64,
    state: Mutex<(f64, Instant)>,
}

impl Link {
    pub fn new(latency: Duration, bytes_per_second: Option<u64>) -> Self {
        let bucket = bytes_per_second.filter(|rate| *rate > 0).map(|rate| {
            let rate = rate as f64;
            // 10 ms worth of bytes, at least one 256 KiB frame, so bursts stay short.
            let burst = (rate / 100.0).max(256.0 * 1024.0);
            TokenBucket { bytes_per_second: rate, burst, state: Mutex::new((burst, Instant::now())) }
        });
        Self { latency, bucket }
    }

    /// Holds an answer back for a round trip (twice the one-way latency).
    pub async fn round_trip(&self) {
        if !self.latency.is_zero() {
            tokio::time::sleep(self.latency * 2).await;
        }
    }

    /// Waits until `bytes` more may be taken in at the shaped rate.
    pub async fn admit(&self, bytes: usize) {
        let Some(bucket) = &self.bucket else { return };
        let wait = {
            let mut state = bucket.state.lock().unwrap();
            let now = Instant::now();
            let (tokens, last) = *state;
            let refilled =
                (tokens + now.duration_since(last).as_secs_f64() * bucket.bytes_per_second).min(bucket.burst);
            let left = refilled - bytes as f64;
            *state = (left, now);
            // A debt is paid by waiting; the next caller sees it and queues behind.
            (left < 0.0).then(|| Duration::from_secs_f64(-left / bucket.bytes_per_second))
        };
        if let Some(wait) = wait {
            tokio::time::sleep(wait).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_bucket_holds_the_rate() {
        let link = Link::new(Duration::ZERO, Some(1_000_000));
        let start = Instant::now();
        for _ in 0..40 {
            link.admit(100_000).await;
        }
        // 4 MB at 1 MB/s, less the initial burst of 256 KiB.
        let elapsed = start.elapsed().as_secs_f64();
        assert!((3.6..=4.0).contains(&elapsed), "{elapsed}");
    }

    #[tokio::test(start_paused = true)]
    async fn no_shaping_means_no_waiting() {
        let link = Link::default();
        let start = Instant::now();
        link.admit(1 << 30).await;
        link.round_trip().await;
        assert_eq!(start.elapsed(), Duration::ZERO);
    }
}
