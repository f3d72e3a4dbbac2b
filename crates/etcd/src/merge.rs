//! etcd reports merged: a fleet's rows over every host's rounds, each host's
//! own figures kept beside them (`hosts`), so that a merged report merges
//! again.

use super::options::Mode;
use super::report::{EtcdReport, KeysCleanup};
use super::rounds::EtcdRound;
use engine::calls::host_part::{FleetRun, HostPart, fleet_run, host_runs};
use engine::calls::merge::{HostCalls, MergedCalls, merge_calls};
use units::RateUnit;

/// One host of a merged report, as its own report had it.
pub type EtcdHostPart = HostPart<KeysCleanup>;

impl EtcdReport {
    /// The hosts in it, with their rounds: itself, or those it merged.
    pub fn host_runs(&self) -> Vec<(EtcdHostPart, Vec<EtcdRound>)> {
        host_runs(|| engine::host_part!(self), &self.hosts, &self.rounds)
    }
}

/// A mode's rounds as a fleet row names them.
pub fn operation(mode: Mode) -> &'static str {
    match mode {
        Mode::Put => "put",
        Mode::Range => "range",
        Mode::Watch => "watch",
    }
}

/// The merge of hosts whose configurations match (the caller checks).
pub fn merge(mut runs: Vec<(EtcdHostPart, Vec<EtcdRound>)>, first: &EtcdReport) -> EtcdReport {
    runs.sort_by(|a, b| a.0.host.cmp(&b.0.host));
    let config = first.config.clone();
    let operation = operation(config.mode);
    let unit = if operation == "watch" { RateUnit::Events } else { RateUnit::Ops };
    let hosts: Vec<HostCalls> =
        runs.iter().map(|(p, r)| HostCalls { host: &p.host, transports: &p.transports, rounds: r }).collect();
    let MergedCalls { fleet, transports, comparison, rounds } =
        merge_calls(&hosts, &config.transports, operation, unit);
    let open_loop =
        super::report::open_loop_summary(config.mode, config.open_loop.as_ref(), &config.transports, &rounds);
    let parts: Vec<EtcdHostPart> = runs.into_iter().map(|(p, _)| p).collect();
    let FleetRun { environment, run_id, started_at, outcome, notes: hosts_notes } = fleet_run(&parts);
    let mut notes: Vec<String> = Vec::new();
    if parts.len() > 1 {
        notes.push(
            "etcd CPU per op: not merged, each host read the CPU of the whole cluster (every host's requests)".into(),
        );
    }
    notes.extend(hosts_notes);
    EtcdReport {
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
        cleanup: KeysCleanup {
            prefix: parts.iter().map(|p| p.cleanup.prefix.as_str()).collect::<Vec<_>>().join(" "),
            deleted: parts.iter().map(|p| p.cleanup.deleted).sum(),
            kept: parts.iter().any(|p| p.cleanup.kept),
            error: parts.iter().find_map(|p| p.cleanup.error.as_ref().map(|e| format!("{}: {e}", p.host))),
        },
        notes,
        rounds,
        hosts: parts,
        fleet: Some(fleet),
        open_loop,
    }
}
