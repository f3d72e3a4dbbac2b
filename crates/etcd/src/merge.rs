//! etcd reports merged: a fleet's rows over every host's rounds, each host's
//! own figures kept beside them (`hosts`), so that a merged report merges
//! again.

use super::options::Mode;
use super::report::{EtcdReport, KeysCleanup, Verdict};
use super::rounds::{EtcdRound, EtcdSummary};
use engine::calls::merge::{HostCalls, MergedCalls, merge_calls};
use engine::fleet::{fleet_outcome, fleet_run_id};
use engine::report::{Host, RunOutcome};
use units::RateUnit;

/// One host of a merged report, as its own report had it (its rounds are
/// the merged report's, by host).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EtcdHostPart {
    pub host: String,
    pub run_id: String,
    pub started_at: String,
    pub outcome: RunOutcome,
    pub stopped_because: Option<String>,
    pub environment: Host,
    pub transports: Vec<EtcdSummary>,
    pub comparison: Option<Verdict>,
    pub cleanup: KeysCleanup,
    pub notes: Vec<String>,
}

impl EtcdReport {
    /// The hosts in it, with their rounds: itself, or those it merged.
    pub fn host_runs(&self) -> Vec<(EtcdHostPart, Vec<EtcdRound>)> {
        if self.hosts.is_empty() {
            let part = EtcdHostPart {
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
    let mut notes: Vec<String> = Vec::new();
    if parts.len() > 1 {
        notes.push(
            "etcd CPU per op: not merged, each host read the CPU of the whole cluster (every host's requests)".into(),
        );
    }
    notes.extend(parts.iter().flat_map(|p| p.notes.iter().map(move |n| format!("{}: {n}", p.host))));
    EtcdReport {
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
