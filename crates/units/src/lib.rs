//! Parsing and printing of the quantities people type and read: byte sizes,
//! durations, throughput. One place, so the CLI, the form and the reports agree.

use std::time::Duration;

pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * KIB;
pub const GIB: u64 = 1024 * MIB;

/// Parses `64MiB`, `1.5GiB`, `100MB`, `512K`, `4096B`; `0` alone is allowed
/// (it means "none" for chunk sizes), any other number needs its unit.
/// Binary units (KiB/MiB/GiB, and the bare K/M/G shorthand) are powers of 1024,
/// decimal units (KB/MB/GB) powers of 1000, as GCS and gsutil spell them.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let unit = unit.trim();
    let invalid = || format!("'{text}' is not a size: use a number with B, KiB, MiB, GiB, KB, MB or GB, like 64MiB");
    if number.is_empty() {
        return Err(invalid());
    }
    if unit.is_empty() && number.parse::<f64>().is_ok_and(|n| n != 0.0) {
        return Err(format!("'{text}' has no unit: write {number}B for bytes, or {number}MiB"));
    }
    let multiplier: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => KIB,
        "m" | "mib" => MIB,
        "g" | "gib" => GIB,
        "t" | "tib" => 1024 * GIB,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => return Err(invalid()),
    };
    let value: f64 = number.parse().map_err(|_| invalid())?;
    let bytes = value * multiplier as f64;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(format!("'{text}' is too large a size"));
    }
    if bytes.fract() != 0.0 {
        return Err(format!("'{text}' is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// Parses `10m`, `30s`, `500ms`, `1h`, `1m30s`, `2.5s`, exactly (integer
/// nanoseconds, no floating point on the way).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let invalid = || format!("'{text}' is not a duration: use a number with ms, s, m or h, like 30s or 10m");
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total_nanos: u128 = 0;
    while !rest.is_empty() {
        let split = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).ok_or_else(invalid)?;
        let (number, after) = rest.split_at(split);
        let unit_len = after.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(after.len());
        let (unit, next) = after.split_at(unit_len);
        let nanos_per_unit: u128 = match unit {
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(invalid()),
        };
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        if (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') || fraction.len() > 18 {
            return Err(invalid());
        }
        let whole: u128 = if whole.is_empty() { 0 } else { whole.parse().map_err(|_| invalid())? };
        let fraction_nanos = if fraction.is_empty() {
            0
        } else {
            let digits: u128 = fraction.parse().map_err(|_| invalid())?;
            digits * nanos_per_unit / 10u128.pow(fraction.len() as u32)
        };
        total_nanos = whole
            .checked_mul(nanos_per_unit)
            .and_then(|n| n.checked_add(fraction_nanos))
            .and_then(|n| n.checked_add(total_nanos))
            .ok_or_else(invalid)?;
        rest = next;
    }
    let nanos = u64::try_from(total_nanos).map_err(|_| format!("'{text}' is too long a duration"))?;
    Ok(Duration::from_nanos(nanos))
}

/// Parses a link rate such as `200Mbit`, `1Gbit`, `100MiB` (per second) into
/// bytes/s. A unit is required (a bare `200` is ambiguous: bits? bytes?) and
/// the rate must be above zero (leave the flag out for an unlimited link).
pub fn parse_rate(text: &str) -> Result<u64, String> {
    let invalid = || format!("'{text}' is not a rate: use a number with a unit, like 200Mbit, 1Gbit or 100MiB");
    let lower = text.trim().to_ascii_lowercase();
    let lower = lower.trim_end_matches("/s").trim_end_matches("ps");
    if !lower.ends_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(invalid());
    }
    let mut rate = None;
    for (suffix, bits) in [("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3)] {
        if let Some(number) = lower.strip_suffix(suffix) {
            let value: f64 = number.trim().parse().map_err(|_| invalid())?;
            rate = Some((value * bits / 8.0) as u64);
            break;
        }
    }
    let rate = match rate {
        Some(rate) => rate,
        None => parse_size(lower).map_err(|_| invalid())?,
    };
    if rate == 0 {
        return Err(format!("'{text}' is no rate at all: leave the flag out for an unlimited link"));
    }
    Ok(rate)
}

/// Go-style booleans, as `strconv.ParseBool` accepts them (`--cleanup=false`).
pub fn parse_bool(text: &str) -> Result<bool, String> {
    match text {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        _ => Err(format!("'{text}' is not a boolean: use true or false")),
    }
}

/// `64 MiB`, `1.50 GiB`, `512 B`: binary units, three significant figures.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] = [("TiB", 1024 * GIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)];
    for (name, unit) in UNITS {
        if bytes >= unit {
            let value = bytes as f64 / unit as f64;
            return if bytes % unit == 0 {
                format!("{} {name}", bytes / unit)
            } else {
                format!("{} {name}", significant(value, 3))
            };
        }
    }
    format!("{bytes} B")
}

/// Short form for the config echo: `64MiB`, `1536KiB`, `100B` (exact, parseable back).
pub fn format_size_exact(bytes: u64) -> String {
    for (name, unit) in [("GiB", GIB), ("MiB", MIB), ("KiB", KIB)] {
        if bytes >= unit && bytes % unit == 0 {
            return format!("{}{name}", bytes / unit);
        }
    }
    format!("{bytes}B")
}

/// Seconds with three significant digits: `8.51 s`, `0.123 s`, `12.3 s`.
pub fn format_seconds(seconds: f64) -> String {
    format!("{} s", significant_rounded(seconds, 3))
}

/// A latency for people, 3 significant digits in the unit that fits:
/// `838 µs`, `3.99 ms`, `2.09 s`. The unit is chosen after rounding, so
/// 999.96 ms reads `1.00 s`, as the next value up does, not `1000 ms`.
pub fn format_latency(seconds: f64) -> String {
    let fits = |value: f64| significant(value, 3).parse::<f64>().is_ok_and(|rounded| rounded < 1000.0);
    match seconds {
        s if s < 1e-3 && fits(s * 1e6) => format!("{} µs", significant_rounded(s * 1e6, 3)),
        s if s < 1.0 && fits(s * 1e3) => format!("{} ms", significant_rounded(s * 1e3, 3)),
        s => format_seconds(s),
    }
}

/// A duration in the spelling `parse_duration` reads back (`10m`, `30s`, `500ms`).
pub fn format_duration(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis % 3_600_000 == 0 && millis > 0 {
        format!("{}h", millis / 3_600_000)
    } else if millis % 60_000 == 0 && millis > 0 {
        format!("{}m", millis / 60_000)
    } else if millis % 1000 == 0 {
        format!("{}s", millis / 1000)
    } else {
        format!("{millis}ms")
    }
}

/// A span for people, in its two largest units: `10s`, `3m 20s`, `2h 5m`,
/// `3d 4h`, `6.9 years` (not 218336548s).
pub fn format_span(duration: Duration) -> String {
    const YEAR: u64 = 365 * 86_400;
    let secs = duration.as_secs();
    let pair = |big: u64, big_unit: &str, small: u64, small_unit: &str| match small {
        0 => format!("{big}{big_unit}"),
        _ => format!("{big}{big_unit} {small}{small_unit}"),
    };
    match secs {
        s if s >= YEAR => format!("{:.1} years", s as f64 / YEAR as f64),
        s if s >= 86_400 => pair(s / 86_400, "d", s % 86_400 / 3600, "h"),
        s if s >= 3600 => pair(s / 3600, "h", s % 3600 / 60, "m"),
        s if s >= 60 => pair(s / 60, "m", s % 60, "s"),
        s => format!("{s}s"),
    }
}

/// Throughput in MiB/s with two decimals, as the original tool printed it.
pub fn format_mib_s(mib_per_second: f64) -> String {
    RateUnit::MiB.format(mib_per_second)
}

/// The unit throughput is shown in: binary bytes (as the original tool),
/// decimal bytes (as cloud consoles), or bits (as NICs and links are sold).
/// Figures are kept in MiB/s and converted only for people.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub enum RateUnit {
    #[default]
    #[serde(rename = "MiB/s")]
    MiB,
    #[serde(rename = "MB/s")]
    MB,
    #[serde(rename = "Gbit/s")]
    Gbit,
    /// Operations per second (etcd): not a throughput unit a user picks.
    #[serde(rename = "ops/s")]
    Ops,
    /// Watch events delivered per second (etcd).
    #[serde(rename = "events/s")]
    Events,
    /// Calls answered per second (any gRPC service).
    #[serde(rename = "calls/s")]
    Calls,
}

impl RateUnit {
    pub const NAMES: [&'static str; 3] = ["MiB/s", "MB/s", "Gbit/s"];

    pub fn parse(text: &str) -> Result<RateUnit, String> {
        match text.trim().to_ascii_lowercase().trim_end_matches("/s") {
            "mib" => Ok(RateUnit::MiB),
            "mb" => Ok(RateUnit::MB),
            "gbit" => Ok(RateUnit::Gbit),
            _ => Err(format!("'{text}' is not one of MiB/s, MB/s, Gbit/s")),
        }
    }

    /// MiB/s, MB/s or Gbit/s (kept in MiB/s), not a count of requests.
    pub fn is_throughput(self) -> bool {
        !matches!(self, RateUnit::Ops | RateUnit::Events | RateUnit::Calls)
    }

    pub fn name(self) -> &'static str {
        match self {
            RateUnit::Ops => "ops/s",
            RateUnit::Events => "events/s",
            RateUnit::Calls => "calls/s",
            unit => Self::NAMES[unit as usize],
        }
    }

    /// A MiB/s figure in this unit.
    pub fn value(self, mib_per_second: f64) -> f64 {
        match self {
            RateUnit::MiB => mib_per_second,
            RateUnit::MB => mib_per_second * MIB as f64 / 1e6,
            RateUnit::Gbit => mib_per_second * MIB as f64 * 8.0 / 1e9,
            RateUnit::Ops | RateUnit::Events | RateUnit::Calls => mib_per_second,
        }
    }

    /// `7.56 MiB/s`, `7.93 MB/s`, `0.0634 Gbit/s`.
    pub fn format(self, mib_per_second: f64) -> String {
        format!("{} {}", self.number(mib_per_second), self.name())
    }

    /// The figure without its unit, for `8.13 vs 7.56 MiB/s`.
    pub fn number(self, mib_per_second: f64) -> String {
        let value = self.value(mib_per_second);
        match self {
            RateUnit::Gbit => significant(value, 3),
            // Whole numbers once three digits say them; below that, three
            // significant ones, so that 0.8 calls/s is not said as 1.
            RateUnit::Ops | RateUnit::Events | RateUnit::Calls if value.abs() < 100.0 && value != 0.0 => {
                significant(value, 3)
            }
            RateUnit::Ops | RateUnit::Events | RateUnit::Calls => format!("{value:.0}"),
            // Below 0.1, two decimals would round a measured figure to 0.0x or 0.00.
            _ if value.abs() < 0.1 && value != 0.0 => significant(value, 3),
            _ => format!("{value:.2}"),
        }
    }
}

pub fn mib_per_second(bytes: u64, seconds: f64) -> f64 {
    if seconds <= 0.0 {
        return 0.0;
    }
    bytes as f64 / MIB as f64 / seconds
}

/// Rounds to `digits` significant figures and prints without a needless exponent.
pub fn significant(value: f64, digits: i32) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (digits - 1 - magnitude).max(0) as usize;
    format!("{value:.decimals$}")
}

/// `significant`, counting the digits of the rounded value: rounding can
/// carry into the next power of ten, and 0.99996 then reads `1.00`, not
/// `1.000`. (Chart labels keep `significant`: their decimals match.)
fn significant_rounded(value: f64, digits: i32) -> String {
    let first = significant(value, digits);
    match first.parse::<f64>() {
        Ok(rounded) if rounded.abs() > value.abs() => significant(rounded, digits),
        _ => first,
    }
}

/// `values` with `digits` significant digits, or more (up to six) until no
/// two read the same: labels of bins that must be told apart.
pub fn distinct_significant(values: &[f64], mut digits: i32) -> Vec<String> {
    loop {
        let labels: Vec<String> = values.iter().map(|v| significant(*v, digits)).collect();
        let mut unique = labels.clone();
        unique.dedup();
        if unique.len() == labels.len() || digits >= 6 {
            return labels;
        }
        digits += 1;
    }
}

/// `2026-11-30T05:56:40.123Z`, without a date library.
pub fn rfc3339(time: std::time::SystemTime) -> String {
    rfc3339_with(time, 3)
}

/// `2026-11-30T05:56:40.123456Z`: round times, which fleets line up.
pub fn rfc3339_micros(time: std::time::SystemTime) -> String {
    rfc3339_with(time, 6)
}

fn rfc3339_with(time: std::time::SystemTime, decimals: usize) -> String {
    let since = time.duration_since(std::time::SystemTime::UNIX_EPOCH).unwrap_or_default();
    let days = since.as_secs() / 86_400;
    let second_of_day = since.as_secs() % 86_400;
    let (year, month, day) = civil_from_days(days as i64);
    let fraction = format!("{:09}", since.subsec_nanos());
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{}Z",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60,
        &fraction[..decimals]
    )
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// SplitMix64 (Steele, Lea and Flood): a seed in, a well-mixed 64-bit
/// value out, the same for the same seed. Seeds one apart give unrelated
/// values, so `splitmix64(seed + i)` is a reproducible stream.
pub fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A random 64-bit value from the standard library's seeded hasher.
pub fn random_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher
        .write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
    hasher.finish()
}

#[cfg(test)]
mod tests;
