//! `grpc run` reports merged: the fleet's rows over every host's rounds,
//! each host's own figures kept beside them (`hosts`), so that a merged
//! report merges again.

use crate::report::{CleanupCall, GrpcReport};
use engine::calls::host_part::{FleetRun, HostPart, fleet_run, host_runs};
use engine::calls::merge::{HostCalls, MergedCalls, merge_calls};
use engine::calls::rounds::CallRound;
use units::RateUnit;

/// One host of a merged report, as its own report had it.
pub type GrpcHostPart = HostPart<CleanupCall>;

impl GrpcReport {
    /// The hosts in it, with their rounds: itself, or those it merged.
    pub fn host_runs(&self) -> Vec<(GrpcHostPart, Vec<CallRound>)> {
        host_runs(|| engine::host_part!(self), &self.hosts, &self.rounds)
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
    let sampled = crate::report::sampled_over(&rounds);
    let parts: Vec<GrpcHostPart> = runs.into_iter().map(|(p, _)| p).collect();
    let FleetRun { environment, run_id, started_at, outcome, notes } = fleet_run(&parts);
    let cleanup_error = parts.iter().find_map(|p| p.cleanup.error.as_ref().map(|e| format!("{}: {e}", p.host)));
    GrpcReport {
        tool: first.tool.clone(),
        environment,
        target: first.target.clone(),
        run_id,
        started_at,
        outcome,
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
        caution: sampled.as_ref().and_then(engine::calls::sampled::SampledAnswers::caution),
        sampled,
    }
}
