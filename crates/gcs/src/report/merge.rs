//! GCS reports merged: a fleet's rows over every host's rounds and samples,
//! with each host's own figures kept beside them (`hosts`), so that a merged
//! report merges again (merge of merges equals merge of all).

use super::{Cleanup, RunOutcome, RunReport};
use crate::stats::{self, Accounting, ObjectSample, Operation, RoundSample, Tally, TransportSummary, Verdict};
use engine::compare::{NO_ROUND_IN_FLEET_WINDOW, compare_rates_in};
use engine::fleet::{FleetRound, Row, fleet_outcome, fleet_run_id};
use engine::report::{Host, REPORT_VERSION};
use units::MIB;

/// One host of a merged report, as its own report had it (its rounds and
/// samples are the merged report's, by host).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct HostPart {
    pub host: String,
    pub run_id: String,
    pub started_at: String,
    pub outcome: RunOutcome,
    pub outcome_detail: String,
    pub stopped_because: Option<String>,
    pub environment: Host,
    pub auth_refreshes: u64,
    pub read_seed: Option<u64>,
    pub transports: Vec<TransportSummary>,
    pub verdicts: Vec<Verdict>,
    pub cleanup: Cleanup,
    /// Which of its objects its samples held, when not every one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_kept: Option<String>,
}

impl FleetRound for RoundSample {
    fn span(&self) -> &engine::timeline::Span {
        &self.span
    }

    fn amount(&self) -> f64 {
        self.bytes as f64 / MIB as f64
    }
}

/// A host's part with its rounds and samples.
pub struct HostRun {
    pub part: HostPart,
    pub rounds: Vec<RoundSample>,
    pub cut_off_rounds: Vec<RoundSample>,
    pub samples: Vec<ObjectSample>,
}

impl RunReport {
    /// The hosts in it: itself, or those it merged.
    pub fn host_runs(&self) -> Vec<HostRun> {
        if self.hosts.is_empty() {
            let part = HostPart {
                host: self.environment.host.clone(),
                run_id: self.run_id.clone(),
                started_at: self.started_at.clone(),
                outcome: self.outcome,
                outcome_detail: self.outcome_detail.clone(),
                stopped_because: self.stopped_because.clone(),
                environment: self.environment.clone(),
                auth_refreshes: self.auth_refreshes,
                read_seed: self.read_seed,
                transports: self.transports.clone(),
                verdicts: self.verdicts.clone(),
                cleanup: self.cleanup.clone(),
                samples_kept: self.samples_kept.clone(),
            };
            let (rounds, cut_off_rounds, samples) =
                (self.rounds.clone(), self.cut_off_rounds.clone(), self.samples.clone());
            return vec![HostRun { part, rounds, cut_off_rounds, samples }];
        }
        let mut runs: std::collections::HashMap<&str, HostRun> = self
            .hosts
            .iter()
            .map(|part| {
                let run =
                    HostRun { part: part.clone(), rounds: Vec::new(), cut_off_rounds: Vec::new(), samples: Vec::new() };
                (part.host.as_str(), run)
            })
            .collect();
        for round in &self.rounds {
            if let Some(run) = runs.get_mut(round.span.host.as_str()) {
                run.rounds.push(round.clone());
            }
        }
        for round in &self.cut_off_rounds {
            if let Some(run) = runs.get_mut(round.span.host.as_str()) {
                run.cut_off_rounds.push(round.clone());
            }
        }
        for sample in &self.samples {
            if let Some(run) = runs.get_mut(sample.host.as_str()) {
                run.samples.push(sample.clone());
            }
        }
        self.hosts.iter().filter_map(|part| runs.remove(part.host.as_str())).collect()
    }
}

/// The merge of hosts whose configurations match (the caller checks), in
/// host order, whatever order they came in.
pub fn merge(mut runs: Vec<HostRun>, first: &RunReport) -> RunReport {
    runs.sort_by(|a, b| a.part.host.cmp(&b.part.host));
    let config = first.config.clone();
    let rows: Vec<Row> = Operation::of(config.workload)
        .iter()
        .flat_map(|&operation| {
            config.transports.iter().map(move |&transport| Row {
                transport,
                part: operation as u8,
                operation: operation.name(),
            })
        })
        .collect();
    let hosts: Vec<(&str, &[RoundSample])> = runs.iter().map(|r| (r.part.host.as_str(), r.rounds.as_slice())).collect();
    let (fleet, pairs) = engine::fleet::fleet(&hosts, &rows);
    let rounds: Vec<RoundSample> = runs.iter().flat_map(|r| r.rounds.iter().cloned()).collect();
    let cut_off: Vec<RoundSample> = runs.iter().flat_map(|r| r.cut_off_rounds.iter().cloned()).collect();
    let samples: Vec<ObjectSample> = runs.iter().flat_map(|r| r.samples.iter().cloned()).collect();
    let transports: Vec<TransportSummary> = rows
        .iter()
        .zip(&fleet.rows)
        .map(|(row, fleet_row)| {
            let operation = Operation::of_part(row.part);
            let parts: Vec<&TransportSummary> = runs
                .iter()
                .flat_map(|r| &r.part.transports)
                .filter(|t| t.transport == row.transport && t.operation == operation)
                .collect();
            fleet_summary(&parts, &rounds, &cut_off, fleet_row.rate)
        })
        .collect();
    let mut verdicts = fleet_verdicts(&config, &transports, fleet.window.is_some(), &pairs);
    let cpus = runs.iter().map(|r| r.part.environment.cpus).min().unwrap_or(1);
    super::add_cautions(&config, &transports, (engine::cost_caution::Hosts::Fleet, cpus), &mut verdicts);
    let runs_kept: Vec<String> = runs.iter().filter_map(|r| r.part.samples_kept.clone()).collect();
    let parts: Vec<HostPart> = runs.into_iter().map(|r| r.part).collect();
    let outcome = fleet_outcome(parts.iter().map(|p| p.outcome));
    let tallies = rounds.iter().chain(&cut_off).filter_map(|r| r.items.as_ref());
    let (failed, finished) = tallies.fold((0, 0), |(f, n), t| (f + t.failed, n + t.finished));
    let open_loop = super::open_loop::open_loop_summaries(&config, &rounds, &cut_off);
    let mut ranges = super::ranges::ranges_summaries(&config, &rounds, &cut_off);
    if fleet.window.is_none() {
        // Hosts that never ran at once have no fleet rate, of ranges either.
        ranges.iter_mut().for_each(|r| (r.ranges_per_s, r.mib_per_s) = (None, None));
    }
    let appends = super::appends::appends_summaries(&config, &rounds, &cut_off);
    let samples_kept = kept_said(&runs_kept, samples.len());
    RunReport {
        tool: first.tool.clone(),
        report_version: REPORT_VERSION,
        environment: Host { host: format!("fleet of {}", parts.len()), ..parts[0].environment.clone() },
        run_id: fleet_run_id(parts.iter().map(|p| p.run_id.as_str())),
        started_at: parts.iter().map(|p| p.started_at.clone()).min().unwrap_or_default(),
        outcome,
        outcome_detail: outcome_detail(&parts, failed as usize, (failed + finished) as usize, config.workload.noun()),
        stopped_because: None,
        target: first.target.clone(),
        workload: config.workload,
        auth_refreshes: parts.iter().map(|p| p.auth_refreshes).sum(),
        read_seed: None,
        transports,
        comparison: verdicts.first().map(|v| v.comparison.clone()),
        verdicts,
        cleanup: Cleanup {
            deleted: parts.iter().map(|p| p.cleanup.deleted).sum(),
            left: parts.iter().flat_map(|p| p.cleanup.left.iter().cloned()).collect(),
            kept: parts.iter().flat_map(|p| p.cleanup.kept.iter().cloned()).collect(),
        },
        config,
        rounds,
        cut_off_rounds: cut_off,
        samples,
        samples_kept,
        hosts: parts,
        fleet: Some(fleet),
        open_loop,
        ranges,
        appends,
    }
}

/// The fleet's verdicts, one per operation, from the pairs of rounds in its
/// common window (none without one, or without two transports).
fn fleet_verdicts(
    config: &crate::config::BenchConfig,
    transports: &[TransportSummary],
    has_window: bool,
    pairs: &[engine::fleet::FleetPair],
) -> Vec<Verdict> {
    match (has_window, config.transports.as_slice()) {
        (true, [a, b]) => Operation::of(config.workload)
            .iter()
            .filter_map(|&operation| {
                let rate = |kind| {
                    transports.iter().find(|t| t.transport == kind && t.operation == operation)?.throughput_mib_s
                };
                let of_part: Vec<_> = pairs.iter().filter(|p| p.part == operation as u8).collect();
                let comparison =
                    compare_rates_in([(*a, rate(*a)), (*b, rate(*b))], &of_part, NO_ROUND_IN_FLEET_WINDOW)?;
                let rows: Vec<&TransportSummary> = transports.iter().filter(|t| t.operation == operation).collect();
                Some(Verdict::new(operation, comparison, &rows))
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A fleet row: the hosts' rounds and samples summarized together, the
/// percentiles from their histograms added, the throughput the fleet's.
fn fleet_summary(
    parts: &[&TransportSummary],
    rounds: &[RoundSample],
    cut_off: &[RoundSample],
    rate: Option<f64>,
) -> TransportSummary {
    let first = parts[0];
    let mut protocols: Vec<&str> = parts.iter().map(|p| p.protocol.as_str()).collect();
    protocols.dedup();
    let mut peers: Vec<String> = parts.iter().flat_map(|p| p.peers.iter().cloned()).collect();
    peers.sort();
    peers.dedup();
    // Percentiles from the hosts' tallies, their histograms added: each
    // host's whole one, or (a host's report written before them) the records'.
    let items = parts.iter().map(|p| p.items.as_ref()).collect::<Option<Vec<_>>>().map(|tallies| {
        tallies.into_iter().fold(Tally::default(), |mut sum, tally| {
            sum.absorb(tally);
            sum
        })
    });
    let connections = parts.iter().map(|p| p.connections).sum();
    let accounting = Accounting { protocol: protocols.join(", "), connections, peers, items };
    let mut summary =
        stats::summarize(first.transport, first.operation, first.bytes_per_run, rounds, cut_off, accounting);
    // Objects per second in the window: the fleet's MiB/s in objects.
    summary.objects_per_s = match (summary.objects_per_s, summary.throughput_mib_s, rate) {
        (Some(objects), Some(mib), Some(rate)) if mib > 0.0 => Some(objects / mib * rate),
        _ => None,
    };
    summary.throughput_mib_s = rate;
    // A host whose wire went unmeasured leaves the sum unknown; one with no
    // complete round added nothing to it.
    if parts.iter().any(|p| p.runs > 0 && p.wire_ratio.is_none()) {
        summary.wire_ratio = None;
    }
    summary
}

fn outcome_detail(parts: &[HostPart], failed: usize, items: usize, noun: &str) -> String {
    let ended: Vec<String> = parts
        .iter()
        .filter(|p| p.outcome != RunOutcome::Completed)
        .map(|p| format!("{}: {}", p.host, p.outcome_detail))
        .collect();
    let failures = if failed > 0 { format!("; {failed} of {items} {noun}s failed") } else { String::new() };
    if ended.is_empty() {
        format!("merged {} hosts, every one completed{failures}", parts.len())
    } else {
        format!("merged {} hosts{failures}; {}", parts.len(), ended.join("; "))
    }
}

/// Which objects a merged report's samples hold, when a host kept only some.
fn kept_said(hosts: &[String], kept: usize) -> Option<String> {
    (!hosts.is_empty()).then(|| format!("{kept} objects, as each host kept them: {}", hosts.join("; ")))
}
