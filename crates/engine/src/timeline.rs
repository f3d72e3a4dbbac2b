//! When a round ran, on two clocks: the wall clock (RFC 3339 with
//! microseconds), which lines up the hosts of a fleet, and the run's own
//! monotonic clock (seconds since its timed rounds began), which no clock
//! step can bend. Both come from one anchor, so they agree to the microsecond.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A round's place in time, and the host that ran it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct Span {
    /// `--host-label` (default the hostname: the pod's name on Kubernetes).
    pub host: String,
    /// Wall-clock start and end, by the host's clock.
    pub started_at: String,
    pub ended_at: String,
    /// The same instants in seconds since the run's timed rounds began.
    pub start_s: f64,
    pub end_s: f64,
}

impl Span {
    /// Start and end in microseconds since the Unix epoch, when the report has them.
    pub fn wall_micros(&self) -> Option<(i64, i64)> {
        let micros = |text: &str| {
            let at = crate::start::parse_rfc3339(text)?;
            i64::try_from(at.duration_since(UNIX_EPOCH).ok()?.as_micros()).ok()
        };
        Some((micros(&self.started_at)?, micros(&self.ended_at)?))
    }
}

/// The instant a run's timed rounds began, on both clocks.
#[derive(Clone, Copy, Debug)]
pub struct Anchor {
    instant: Instant,
    wall: SystemTime,
    /// The hostname, until a report is labelled otherwise (`--host-label`).
    host: &'static str,
}

impl Anchor {
    /// `instant` (the run's clock) with the wall-clock time it had.
    pub fn of(instant: Instant) -> Self {
        Self { instant, wall: SystemTime::now() - instant.elapsed(), host: this_host() }
    }

    /// Seconds from the anchor to `at` on the monotonic clock.
    pub fn offset_s(&self, at: Instant) -> f64 {
        at.saturating_duration_since(self.instant).as_secs_f64()
    }

    /// A span from offsets on the run's clock.
    pub fn span(&self, start_s: f64, end_s: f64) -> Span {
        let wall = |s: f64| units::rfc3339_micros(self.wall + Duration::from_secs_f64(s.max(0.0)));
        Span { host: self.host.to_string(), started_at: wall(start_s), ended_at: wall(end_s), start_s, end_s }
    }
}

/// Names the host on each span (a report's rounds), so that they stay
/// attributed once merged.
pub fn label<'a>(spans: impl Iterator<Item = &'a mut Span>, host: &str) {
    for span in spans {
        span.host = host.to_string();
    }
}

/// This machine's name, asked once.
pub fn this_host() -> &'static str {
    static HOST: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HOST.get_or_init(hostname)
}

/// This machine's name: the default `--host-label` (a pod's name on Kubernetes).
pub fn hostname() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is writable for its length; gethostname writes at most that.
    let ok = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) } == 0;
    let name = if ok { String::from_utf8_lossy(&buffer).trim_end_matches('\0').to_string() } else { String::new() };
    if name.is_empty() { "localhost".into() } else { name }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_clocks_of_a_span_agree_to_the_microsecond() {
        let wall = UNIX_EPOCH + Duration::from_micros(1_796_149_800_000_001);
        let anchor = Anchor { instant: Instant::now(), wall, host: "h" };
        let span = anchor.span(1.5, 2.250_001);
        assert_eq!(span.started_at, "2026-12-01T18:30:01.500001Z");
        assert_eq!(span.ended_at, "2026-12-01T18:30:02.250002Z");
        let (start, end) = span.wall_micros().unwrap();
        assert_eq!((start, end - start), (1_796_149_801_500_001, 750_001));
        assert_eq!(Span::default().wall_micros(), None, "an older report has no times");
        assert!(!hostname().is_empty());
    }
}
