//! `--start-at`, `--start-in`, `--host-label` and `--log-markers`: the flags
//! of a synchronized start, checked here; the wait itself is the engine's.

use engine::start::{AHEAD_BY_AT_MOST, LATE_BY_AT_MOST, parse_rfc3339};
use std::time::SystemTime;

/// `--start-at` and `--start-in` as typed.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct StartArgs {
    /// Begin the timed rounds at this instant (RFC 3339, e.g.
    /// 2026-12-01T18:30:00Z), after connecting and the warmup; for several
    /// hosts started together. The wait is not part of --timeout.
    #[arg(long, value_name = "TIME", conflicts_with = "start_in")]
    pub start_at: Option<String>,
    /// Begin the timed rounds this long from now (30s, 2m).
    #[arg(long, value_name = "DURATION")]
    pub start_in: Option<String>,
    /// The name this host's rounds carry in the report, for `merge`
    /// (default: the hostname, which is the pod's name on Kubernetes).
    #[arg(long, value_name = "NAME")]
    pub host_label: Option<String>,
    /// Print the report between two marker lines, so that it can be cut
    /// from a log that has other lines in it (a pod's; `merge` reads such logs).
    #[arg(long)]
    pub log_markers: bool,
}

impl StartArgs {
    /// When to begin (if asked) and the host's label, or what is wrong.
    pub fn resolve(&self, now: SystemTime) -> Result<(Option<SystemTime>, String), String> {
        Ok((self.when(now)?, self.host()?))
    }

    /// `--host-label`, or the hostname.
    pub fn host(&self) -> Result<String, String> {
        match self.host_label.as_deref().map(str::trim) {
            None => Ok(engine::timeline::hostname()),
            Some("") => Err("--host-label is empty: give each host a name of its own, like pod-3".into()),
            Some(label) if label.chars().any(char::is_control) => {
                Err("--host-label has a control character in it: give a plain name, like pod-3".into())
            }
            Some(label) => Ok(label.to_string()),
        }
    }

    /// When to begin, if asked; `now` is passed in for tests.
    pub fn when(&self, now: SystemTime) -> Result<Option<SystemTime>, String> {
        if let Some(text) = &self.start_in {
            let wait = units::parse_duration(text).map_err(|e| format!("--start-in: {e}"))?;
            return Ok(Some(now + wait));
        }
        let Some(text) = &self.start_at else { return Ok(None) };
        let at = parse_rfc3339(text).ok_or_else(|| {
            format!("--start-at '{text}' is not an RFC 3339 time: use e.g. 2026-12-01T18:30:00Z (UTC) or ...+01:00")
        })?;
        if let Ok(ahead) = at.duration_since(now)
            && ahead > AHEAD_BY_AT_MOST
        {
            return Err(format!(
                "--start-at {text} is {:.1} days away: give a time within a day",
                ahead.as_secs_f64() / 86_400.0
            ));
        }
        match now.duration_since(at) {
            Ok(late) if late > LATE_BY_AT_MOST => Err(format!(
                "--start-at {text} was {} ago: give a time in the future (or within {} past)",
                units::format_span(late),
                units::format_duration(LATE_BY_AT_MOST)
            )),
            _ => Ok(Some(at)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_start_in_the_past_is_refused_unless_just_past() {
        let now = parse_rfc3339("2026-12-01T18:30:10Z").unwrap();
        let at = |text: &str| StartArgs { start_at: Some(text.into()), ..Default::default() }.when(now);
        assert_eq!(at("2026-12-01T18:31:00Z").unwrap(), parse_rfc3339("2026-12-01T18:31:00Z"));
        assert!(at("2026-12-01T18:30:06Z").is_ok(), "4 s late is within the 5 s allowed");
        let late = at("2026-12-01T18:30:00Z").unwrap_err();
        assert_eq!(late, "--start-at 2026-12-01T18:30:00Z was 10s ago: give a time in the future (or within 5s past)");
        let start_in = StartArgs { start_in: Some("30s".into()), ..Default::default() }.when(now).unwrap();
        assert_eq!(start_in, Some(now + Duration::from_secs(30)));
        assert_eq!(StartArgs::default().when(now), Ok(None));
        let far = at("2030-01-01T00:00:00Z").unwrap_err();
        assert_eq!(far, "--start-at 2030-01-01T00:00:00Z is 1126.2 days away: give a time within a day");
    }

    #[test]
    fn a_host_label_is_a_plain_name_and_defaults_to_the_hostname() {
        let label = |text: &str| StartArgs { host_label: Some(text.into()), ..Default::default() }.host();
        assert_eq!(label(" pod-3 "), Ok("pod-3".into()));
        assert_eq!(label(""), Err("--host-label is empty: give each host a name of its own, like pod-3".into()));
        assert!(label("a\nb").unwrap_err().contains("control character"));
        assert_eq!(StartArgs::default().host(), Ok(engine::timeline::hostname()));
    }
}
