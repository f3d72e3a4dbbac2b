//! What every target's report shares: the tool and host it ran on, how the
//! run ended, rounds counted from 1, and text-table helpers.

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    /// The schedule ran to its end and every upload finished.
    Completed,
    /// The schedule ran to its end, but some uploads failed (exit 1).
    CompletedWithErrors,
    Cancelled,
    TimedOut,
    FailedFast,
    /// What the rounds needed could not be set up (say, no objects to read):
    /// nothing was measured; `stopped_because` says why.
    SetupFailed,
}

impl RunOutcome {
    /// How a run ended: why its rounds stopped (none: the schedule ran out),
    /// whether any of its work failed, and whether a fail-fast stop came
    /// from its set-up (nothing measured) rather than its rounds.
    pub fn ended(stop: Option<crate::Stop>, failures: bool, setup_failed: bool) -> RunOutcome {
        match stop {
            None if failures => RunOutcome::CompletedWithErrors,
            None => RunOutcome::Completed,
            Some(crate::Stop::Cancelled) => RunOutcome::Cancelled,
            Some(crate::Stop::TimedOut) => RunOutcome::TimedOut,
            Some(crate::Stop::FailFast) if setup_failed => RunOutcome::SetupFailed,
            Some(crate::Stop::FailFast) => RunOutcome::FailedFast,
        }
    }
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

/// The tool's name, as reports and user agents say it.
pub const TOOL_NAME: &str = "gcs-speed-tui";
/// `gcs-speed-tui/VERSION`: every crate of the workspace has its version.
pub const USER_AGENT: &str = concat!("gcs-speed-tui/", env!("CARGO_PKG_VERSION"));

impl Tool {
    /// This build of the tool (the workspace's crates share one version).
    pub fn this() -> Self {
        Tool { name: TOOL_NAME.into(), version: env!("CARGO_PKG_VERSION").into() }
    }
}

/// Where the run ran, for reading a report later.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Host {
    /// `--host-label`: the hostname unless given (a pod's name on Kubernetes).
    #[serde(default)]
    pub host: String,
    pub os: String,
    pub kernel: String,
    pub arch: String,
    pub cpus: usize,
    pub directpath: String,
}

impl Host {
    pub fn here() -> Self {
        Self {
            host: crate::timeline::this_host().to_string(),
            os: std::env::consts::OS.to_string(),
            kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim().to_string(),
            arch: std::env::consts::ARCH.into(),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            directpath: "not used: DirectPath needs xDS and ALTS, which tonic lacks; gRPC goes to the public endpoint"
                .into(),
        }
    }
}

/// `1 retry`, `2 retries`, `0 objects`.
pub fn plural(count: usize, noun: &str) -> String {
    // retry -> retries, but key -> keys: only a consonant before the y changes it.
    let consonant_y = noun.strip_suffix('y').filter(|stem| !stem.ends_with(['a', 'e', 'i', 'o', 'u']));
    // flush -> flushes, process -> processes.
    let sibilant = ["s", "x", "z", "sh", "ch"].iter().any(|end| noun.ends_with(end));
    match (count, consonant_y) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) => format!("{count} {stem}ies"),
        _ if sibilant => format!("{count} {noun}es"),
        _ => format!("{count} {noun}s"),
    }
}

/// Rows as text columns: the first left-aligned, the rest right-aligned.
pub fn aligned(rows: &[Vec<String>]) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> =
        (0..columns).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, w))| if i == 0 { format!("{cell:<w$}") } else { format!("{cell:>w$}") })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_string() }
}

/// Rounds are counted from 1 wherever people read them.
pub fn one_based<S: serde::Serializer>(round: &u32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u32(round + 1)
}

pub fn from_one_based<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let round = <u32 as serde::Deserialize>::deserialize(d)?;
    round.checked_sub(1).ok_or_else(|| serde::de::Error::custom("rounds count from 1"))
}

/// The JSON report's format, as `report_version` says it: raised when a
/// field is removed or changes meaning (a field added is not a new
/// format). Reports written before the field existed read as 1.
pub const REPORT_VERSION: u32 = 2;

/// What a report without `report_version` is: written before it existed.
pub fn first_report_version() -> u32 {
    1
}

/// Whether this build can read a report of `value`'s format: a newer one
/// is said in a sentence, not misread.
pub fn readable(value: &serde_json::Value) -> Result<(), String> {
    match value.get("report_version").and_then(serde_json::Value::as_u64) {
        Some(version) if version > u64::from(REPORT_VERSION) => Err(format!(
            "it was written by a newer gcs-speed-tui (report_version {version}; this one reads up to {REPORT_VERSION}): upgrade to read it"
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_read_right() {
        assert_eq!(plural(1, "retry"), "1 retry");
        assert_eq!(plural(2, "retry"), "2 retries");
        assert_eq!(plural(0, "connection"), "0 connections");
        assert_eq!(plural(3, "key"), "3 keys");
    }

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b \"c\""), "\"a,b \"\"c\"\"\"");
    }
}
