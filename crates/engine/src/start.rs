//! A synchronized start (`--start-at RFC3339`, `--start-in 30s`): hosts of
//! a fleet (pods of one Job) connect, then wait for the same instant and
//! begin the run (warmup, then the timed rounds) together, with a countdown
//! on stderr.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A start time already past by more than this is refused (pods that
/// started late would measure a different window than the others).
pub const LATE_BY_AT_MOST: Duration = Duration::from_secs(5);

/// The lines around a report with `--log-markers`.
pub const REPORT_BEGINS: &str = "----- BEGIN GCS-SPEED-TUI REPORT -----";
pub const REPORT_ENDS: &str = "----- END GCS-SPEED-TUI REPORT -----";

/// The report as written: between the markers when asked.
pub fn marked(text: String, markers: bool) -> String {
    if markers { format!("{REPORT_BEGINS}\n{}\n{REPORT_ENDS}\n", text.trim_end()) } else { text }
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
            let line = format!("starting at {} (in {seconds} s)", units::rfc3339(at));
            if terminal {
                eprint!("\r\x1b[2K{line}");
            } else {
                crate::say_on_stderr!("{line}");
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
        assert_eq!(units::rfc3339(parse_rfc3339("2026-12-01T18:30:00.125Z").unwrap()), "2026-12-01T18:30:00.125Z");
        for bad in ["2026-13-01T00:00:00Z", "2026-12-01", "18:30:00Z", "2026-12-01T18:30:00", "tomorrow"] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }
}
