//! A synchronized start (`--start-at RFC3339`, `--start-in 30s`): hosts of
//! a fleet (pods of one Job) connect, then wait for the same instant and
//! begin the run (warmup, then the timed rounds) together, with a countdown
//! on stderr.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A start time already past by more than this is refused (pods that
/// started late would measure a different window than the others).
pub const LATE_BY_AT_MOST: Duration = Duration::from_secs(5);

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

/// The lines around a report with `--log-markers`.
pub const REPORT_BEGINS: &str = "----- BEGIN GCS-SPEED-TUI REPORT -----";
pub const REPORT_ENDS: &str = "----- END GCS-SPEED-TUI REPORT -----";

/// The report as written: between the markers when asked.
pub fn marked(text: String, markers: bool) -> String {
    if markers { format!("{REPORT_BEGINS}\n{}\n{REPORT_ENDS}\n", text.trim_end()) } else { text }
}

impl StartArgs {
    /// When to begin (if asked) and the host's label, or what is wrong.
    pub fn resolve(&self, now: SystemTime) -> Result<(Option<SystemTime>, String), String> {
        Ok((self.when(now)?, self.host()?))
    }

    /// `--host-label`, or the hostname.
    pub fn host(&self) -> Result<String, String> {
        match self.host_label.as_deref().map(str::trim) {
            None => Ok(crate::engine::timeline::hostname()),
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
            let wait = crate::units::parse_duration(text).map_err(|e| format!("--start-in: {e}"))?;
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
                crate::units::format_span(late),
                crate::units::format_duration(LATE_BY_AT_MOST)
            )),
            _ => Ok(Some(at)),
        }
    }
}

/// A start further off than this is refused: a pod holding its node for
/// days is a mistyped date, not a plan.
pub const AHEAD_BY_AT_MOST: Duration = Duration::from_secs(24 * 3600);

/// Waits, after the warmup, for the timed rounds' start, moving the run's
/// `deadline` on by the wait (`--timeout` does not count it); says what to
/// note if the warmup ended after the instant; or `Cancelled`.
pub async fn begin_at(
    at: SystemTime,
    cancel: &tokio_util::sync::CancellationToken,
    deadline: &mut tokio::time::Instant,
) -> Result<Option<String>, super::Stop> {
    if let Ok(late) = SystemTime::now().duration_since(at) {
        let note = (late > Duration::from_secs(1)).then(|| {
            format!(
                "the rounds began {:.1} s after --start-at (connecting and the warmup took longer): this host started late",
                late.as_secs_f64()
            )
        });
        return Ok(note);
    }
    let began = std::time::Instant::now();
    let terminal = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tokio::select! {
        () = wait_until(at, terminal) => {
            *deadline += began.elapsed();
            Ok(None)
        }
        () = cancel.cancelled() => Err(super::Stop::Cancelled),
    }
}

/// Waits until `at`, saying on stderr how long is left (each second on a
/// terminal, every 10 s otherwise).
pub async fn wait_until(at: SystemTime, terminal: bool) {
    let mut first = true;
    while let Ok(left) = at.duration_since(SystemTime::now()) {
        let seconds = left.as_secs_f64().ceil() as u64;
        if terminal || first || seconds % 10 == 0 {
            first = false;
            let line = format!("starting at {} (in {seconds} s)", crate::units::rfc3339(at));
            if terminal {
                eprint!("\r\x1b[2K{line}");
            } else {
                eprintln!("{line}");
            }
        }
        // To the next whole second of the countdown (or the start itself).
        tokio::time::sleep(left - Duration::from_secs(seconds.saturating_sub(1)).min(left)).await;
    }
    if terminal {
        eprint!("\r\x1b[2K");
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`.
pub fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    let text = text.trim();
    let (date, rest) = text.split_once(['T', 't', ' '])?;
    let mut ymd = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (year, month, day) = (ymd.next()??, ymd.next()??, ymd.next()??);
    let zone_at = rest.find(['Z', 'z', '+', '-'])?;
    let (clock, zone) = rest.split_at(zone_at);
    let (hms, fraction) = clock.split_once('.').unwrap_or((clock, ""));
    let mut parts = hms.splitn(3, ':').map(|p| p.parse::<i64>().ok());
    let (hour, minute, second) = (parts.next()??, parts.next()??, parts.next()??);
    let valid = (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && hour < 24
        && minute < 60
        && second < 61
        && fraction.chars().all(|c| c.is_ascii_digit());
    if !valid {
        return None;
    }
    let offset_s = match zone {
        "Z" | "z" => 0,
        zone => {
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            let (h, m) = zone[1..].split_once(':')?;
            sign * (h.parse::<i64>().ok()? * 3600 + m.parse::<i64>().ok()? * 60)
        }
    };
    let nanos = format!("{fraction:0<9}")[..9].parse::<u64>().ok()?;
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset_s;
    let seconds = u64::try_from(seconds).ok()?;
    Some(UNIX_EPOCH + Duration::from_secs(seconds) + Duration::from_nanos(nanos))
}

/// Howard Hinnant's days-from-civil.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year.rem_euclid(400);
    let doy = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times_parse_to_the_instant_they_name() {
        let at = |s| parse_rfc3339(s).unwrap().duration_since(UNIX_EPOCH).unwrap();
        assert_eq!(at("1970-01-01T00:00:00Z"), Duration::ZERO);
        assert_eq!(at("2026-12-01T18:30:00Z").as_secs(), 1_796_149_800);
        assert_eq!(at("2026-12-01T19:30:00+01:00"), at("2026-12-01T18:30:00Z"), "offsets");
        assert_eq!(at("2024-02-29T12:00:00.250Z").subsec_millis(), 250, "fractions, leap day");
        assert_eq!(
            crate::units::rfc3339(parse_rfc3339("2026-12-01T18:30:00.125Z").unwrap()),
            "2026-12-01T18:30:00.125Z"
        );
        for bad in ["2026-13-01T00:00:00Z", "2026-12-01", "18:30:00Z", "2026-12-01T18:30:00", "tomorrow"] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }

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
        assert_eq!(StartArgs::default().host(), Ok(crate::engine::timeline::hostname()));
    }
}
