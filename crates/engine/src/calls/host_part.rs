//! A host of a merged report of calls, as its own report had it, and what
//! a fleet's report says of its hosts together: one shape for every
//! request-level target (`C` is the target's cleanup).

use super::rounds::{CallRound, CallSummary};
use super::said::Verdict;
use crate::fleet::{fleet_outcome, fleet_run_id};
use crate::report::{Host, RunOutcome};

/// One host of a merged report (its rounds are the merged report's that name it).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct HostPart<C> {
    pub host: String,
    pub run_id: String,
    pub started_at: String,
    pub outcome: RunOutcome,
    pub stopped_because: Option<String>,
    pub environment: Host,
    pub transports: Vec<CallSummary>,
    pub comparison: Option<Verdict>,
    pub cleanup: C,
    pub notes: Vec<String>,
}

/// A report's hosts with their rounds: `this` alone (a host's own report),
/// or each merged host with the rounds that name it.
pub fn host_runs<C: Clone>(
    this: impl FnOnce() -> HostPart<C>,
    merged: &[HostPart<C>],
    rounds: &[CallRound],
) -> Vec<(HostPart<C>, Vec<CallRound>)> {
    if merged.is_empty() {
        return vec![(this(), rounds.to_vec())];
    }
    let of = |host: &str| rounds.iter().filter(|r| r.span.host == host).cloned().collect();
    merged.iter().map(|part| (part.clone(), of(&part.host))).collect()
}

/// What a fleet's report says of its hosts together.
pub struct FleetRun {
    /// The first host's, named `fleet of N`.
    pub environment: Host,
    pub run_id: String,
    /// The earliest host's start.
    pub started_at: String,
    pub outcome: RunOutcome,
    /// Every host's notes, each after its host's name.
    pub notes: Vec<String>,
}

/// `parts` (at least one) as one fleet.
pub fn fleet_run<C>(parts: &[HostPart<C>]) -> FleetRun {
    FleetRun {
        environment: Host { host: format!("fleet of {}", parts.len()), ..parts[0].environment.clone() },
        run_id: fleet_run_id(parts.iter().map(|p| p.run_id.as_str())),
        started_at: parts.iter().map(|p| p.started_at.clone()).min().unwrap_or_default(),
        outcome: fleet_outcome(parts.iter().map(|p| p.outcome)),
        notes: parts.iter().flat_map(|p| p.notes.iter().map(move |n| format!("{}: {n}", p.host))).collect(),
    }
}

/// A report of calls as its own host's part: the fields of reports that
/// keep them under these names (etcd's and grpc's), written once for both.
#[macro_export]
macro_rules! host_part {
    ($report:expr) => {
        $crate::calls::host_part::HostPart {
            host: $report.environment.host.clone(),
            run_id: $report.run_id.clone(),
            started_at: $report.started_at.clone(),
            outcome: $report.outcome,
            stopped_because: $report.stopped_because.clone(),
            environment: $report.environment.clone(),
            transports: $report.transports.clone(),
            comparison: $report.comparison.clone(),
            cleanup: $report.cleanup.clone(),
            notes: $report.notes.clone(),
        }
    };
}
