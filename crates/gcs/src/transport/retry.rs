//! When and how long to wait before trying again: exponential backoff with
//! full jitter (initial 1 s, x2, capped), a retry count and an overall
//! deadline. Only for what is safe to repeat: creates carry
//! `ifGenerationMatch=0` and deletes a generation, so a repeat cannot
//! overwrite or remove anything else.

use super::TransportError;
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct RetryPolicy {
    pub max_retries: u32,
    /// No retry starts after this much time since the operation began.
    pub deadline: Duration,
    pub initial: Duration,
    pub max_backoff: Duration,
    /// The credentials the requests carry: a refused token (401,
    /// UNAUTHENTICATED) makes them fetch a new one, and the request is tried
    /// once more at once (once per upload or read).
    pub credentials: Option<crate::auth::Auth>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 5,
            deadline: Duration::from_secs(120),
            initial: Duration::from_secs(1),
            max_backoff: Duration::from_secs(32),
            credentials: None,
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `attempt` (0 for the first retry):
    /// uniformly random in [0, min(max, initial x 2^attempt)].
    pub fn backoff(&self, attempt: u32, random: u64) -> Duration {
        let ceiling = self.initial.saturating_mul(1u32 << attempt.min(20)).min(self.max_backoff);
        let fraction = (random >> 11) as f64 / (1u64 << 53) as f64;
        ceiling.mul_f64(fraction)
    }

    /// A refused token, with credentials that can fetch another: they start
    /// over now, and the caller may try once more (if this item has not
    /// already had its one).
    pub fn refresh_after(&self, error: &TransportError, progress: &super::Progress) -> bool {
        let Some(credentials) = &self.credentials else { return false };
        is_unauthenticated(error) && progress.take_auth_retry() && credentials.refresh()
    }

    /// Whether another try may start: retries left and time before the deadline.
    pub fn allows(&self, retries_so_far: u32, elapsed: Duration, error: &TransportError) -> bool {
        retries_so_far < self.max_retries && elapsed < self.deadline && is_retryable(error)
    }
}

/// The server refused the token (expired early, revoked).
pub fn is_unauthenticated(error: &TransportError) -> bool {
    match error {
        TransportError::Http { status, .. } => *status == 401,
        TransportError::Grpc { code, .. } => code == "UNAUTHENTICATED",
        _ => false,
    }
}

/// HTTP 408, 429 and 5xx, gRPC UNAVAILABLE, DEADLINE_EXCEEDED, INTERNAL and
/// RESOURCE_EXHAUSTED (after the backoff has slowed us down), timeouts and
/// broken connections. Never a checksum mismatch, a precondition or a 4xx.
pub fn is_retryable(error: &TransportError) -> bool {
    match error {
        TransportError::Http { status, .. } => matches!(status, 408 | 429 | 500..=599),
        TransportError::Grpc { code, .. } => {
            matches!(code.as_str(), "UNAVAILABLE" | "DEADLINE_EXCEEDED" | "INTERNAL" | "RESOURCE_EXHAUSTED")
        }
        TransportError::Connection(_) | TransportError::Timeout(_) => true,
        TransportError::Protocol(_) | TransportError::Auth(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_with_full_jitter_up_to_the_cap() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.backoff(0, 0), Duration::ZERO);
        assert!(policy.backoff(0, u64::MAX) <= Duration::from_secs(1));
        assert!(policy.backoff(3, u64::MAX) > Duration::from_millis(7900));
        assert!(policy.backoff(3, u64::MAX) <= Duration::from_secs(8));
        assert!(policy.backoff(30, u64::MAX) <= Duration::from_secs(32), "capped");
        let half = policy.backoff(2, u64::MAX / 2);
        assert!((half.as_secs_f64() - 2.0).abs() < 0.01, "{half:?}");
    }

    #[test]
    fn only_transient_failures_are_retried() {
        let http = |status| TransportError::Http { status, message: String::new() };
        let grpc = |code: &str| TransportError::Grpc { code: code.into(), message: String::new() };
        for retryable in [http(408), http(429), http(500), http(503), grpc("UNAVAILABLE"), grpc("INTERNAL")] {
            assert!(is_retryable(&retryable), "{retryable}");
        }
        assert!(is_retryable(&TransportError::Connection("reset".into())));
        assert!(is_retryable(&TransportError::Timeout("stalled".into())));
        for fatal in [
            http(400),
            http(401),
            http(403),
            http(404),
            http(412),
            grpc("INVALID_ARGUMENT"),
            grpc("FAILED_PRECONDITION"),
        ] {
            assert!(!is_retryable(&fatal), "{fatal}");
        }
    }

    #[test]
    fn retries_stop_at_the_count_or_the_deadline() {
        let policy = RetryPolicy { max_retries: 2, deadline: Duration::from_secs(10), ..RetryPolicy::default() };
        let error = TransportError::Http { status: 503, message: String::new() };
        assert!(policy.allows(1, Duration::from_secs(1), &error));
        assert!(!policy.allows(2, Duration::from_secs(1), &error));
        assert!(!policy.allows(0, Duration::from_secs(11), &error));
    }
}
