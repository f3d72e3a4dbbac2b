//! `grpc run` reports merged: the fleet's rows over every host's rounds,
//! each host's own figures kept beside them (`hosts`), so that a merged
//! report merges again.

use crate::report::{CleanupCall, GrpcReport};
use engine::calls::merge::{HostCalls, MergedCalls, merge_calls};
use engine::calls::rounds::{CallRound, CallSummary};
use engine::calls::said::Verdict;
use engine::fleet::{fleet_outcome, fleet_run_id};
use engine::report::{Host, RunOutcome};
use units::RateUnit;

/// One host of a merged report, as its own report had it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GrpcHostPart {
    pub host: String,
    pub run_id: String,
    pub started_at: String,
    pub outcome: RunOutcome,
    pub stopped_because: Option<String>,
    pub environment: Host,
    pub transports: Vec<CallSummary>,
    pub comparison: Option<Verdict>,
    pub cleanup: CleanupCall,
    pub notes: Vec<String>,
}

impl GrpcReport {
    /// The hosts in it, with their rounds: itself, or those it merged.
    pub fn host_runs(&self) -> Vec<(GrpcHostPart, Vec<CallRound>)> {
        if self.hosts.is_empty() {
            let part = GrpcHostPart {
                host: self.environment.host.clone(),
                run_id: self.run_id.clone(),
                started_at: self.started_at.clone(),
                outcome: self.outcome,
                stopped_because: self.stopped_because.clone(),
                environment: self.environment.clone(),
                transports: self.transports.clone(),
                comparison: self.comparison.clone(),
                cleanup: self.cleanup.clone(),
                notes: self.notes.clone(),
            };
            return vec![(part, self.rounds.clone())];
        }
        let of = |host: &str| self.rounds.iter().filter(|r| r.span.host == host).cloned().collect();
        self.hosts.iter().map(|part| (part.clone(), of(&part.host))).collect()
    }
}

/// The merge of hosts whose configurations match (the caller checks).
pub fn merge(mut runs: Vec<(GrpcHostPart, Vec<CallRound>)>, first: &GrpcReport) -> GrpcReport {
    runs.sort_by(|a, b| a.0.host.cmp(&b.0.host));
    let config = first.config.clone();
    let hosts: Vec<HostCalls> =
        runs.iter().map(|(p, r)| HostCalls { host: &p.host, transports: &p.transports, rounds: r }).collect();
    let MergedCalls { fleet, transports, comparison, rounds } =
        merge_calls(&hosts, &config.transports, "call", RateUnit::Calls);
    let open_loop =
        engine::calls::said::open_loop_summary("call", config.open_loop.as_ref(), &config.transports, &rounds);
    let parts: Vec<GrpcHostPart> = runs.into_iter().map(|(p, _)| p).collect();
    let notes = parts.iter().flat_map(|p| p.notes.iter().map(move |n| format!("{}: {n}", p.host))).collect();
    let cleanup_error = parts.iter().find_map(|p| p.cleanup.error.as_ref().map(|e| format!("{}: {e}", p.host)));
    GrpcReport {
        tool: first.tool.clone(),
        environment: Host { host: format!("fleet of {}", parts.len()), ..parts[0].environment.clone() },
        target: first.target.clone(),
        run_id: fleet_run_id(parts.iter().map(|p| p.run_id.as_str())),
        started_at: parts.iter().map(|p| p.started_at.clone()).min().unwrap_or_default(),
        outcome: fleet_outcome(parts.iter().map(|p| p.outcome)),
        stopped_because: None,
        config,
        transports,
        comparison,
        cleanup: CleanupCall {
            method: first.cleanup.method.clone(),
            called: parts.iter().all(|p| p.cleanup.called),
            error: cleanup_error,
        },
        notes,
        rounds,
        hosts: parts,
        fleet: Some(fleet),
        open_loop,
    }
}
