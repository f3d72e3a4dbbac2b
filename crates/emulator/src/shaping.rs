//! Link shaping for realistic demos: a one-way latency (applied to every
//! byte, both ways, by `link::shaped`) and a token bucket that caps the total
//! ingest rate of all connections together, like one NIC.

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

    /// Whether connections go through a simulated link at all.
    pub fn is_shaped(&self) -> bool {
        !self.latency.is_zero() || self.bucket.is_some()
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
        assert_eq!(start.elapsed(), Duration::ZERO);
        assert!(!link.is_shaped());
    }
}
