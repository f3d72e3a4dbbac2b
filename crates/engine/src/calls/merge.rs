//! Reports of calls merged: the fleet's rows over every host's rounds (the
//! rate in the window where all were at work), each transport's latency
//! from every host's histogram, and the verdict over the fleet's paired
//! rounds. Each target keeps its hosts' own parts beside this.

use super::rounds::{CallRound, CallSummary, quantiles, summarize};
use super::said::Verdict;
use crate::compare::{NO_ROUND_IN_FLEET_WINDOW, compare_rates_in};
use crate::fleet::{Fleet, Row};
use crate::plan::TransportKind;

/// One host's figures and rounds.
pub struct HostCalls<'a> {
    pub host: &'a str,
    pub transports: &'a [CallSummary],
    pub rounds: &'a [CallRound],
}

/// What every merged report of calls holds.
pub struct MergedCalls {
    pub fleet: Fleet,
    pub transports: Vec<CallSummary>,
    pub comparison: Option<Verdict>,
    pub rounds: Vec<CallRound>,
}

/// `hosts` (in name order) merged, a row per transport doing `operation`,
/// rates in `unit`. A server CPU per call is kept for one host only: each
/// host read the whole server's CPU, every host's calls in it.
pub fn merge_calls(
    hosts: &[HostCalls],
    transports: &[TransportKind],
    operation: &'static str,
    unit: units::RateUnit,
) -> MergedCalls {
    let rows: Vec<Row> = transports.iter().map(|&transport| Row { transport, part: 0, operation }).collect();
    let spans: Vec<(&str, &[CallRound])> = hosts.iter().map(|h| (h.host, h.rounds)).collect();
    let (fleet, pairs) = crate::fleet::fleet(&spans, &rows);
    let rounds: Vec<CallRound> = hosts.iter().flat_map(|h| h.rounds.iter().cloned()).collect();
    let summaries: Vec<CallSummary> = rows
        .iter()
        .zip(&fleet.rows)
        .map(|(row, fleet_row)| {
            let parts: Vec<&CallSummary> =
                hosts.iter().flat_map(|h| h.transports).filter(|t| t.transport == row.transport).collect();
            let mut protocols: Vec<&str> = parts.iter().map(|p| p.protocol.as_str()).collect();
            protocols.dedup();
            let connections = parts.iter().map(|p| p.connections).sum();
            let mut summary = summarize(row.transport, protocols.join(", "), connections, &rounds);
            let histogram = crate::histogram::merged(parts.iter().filter_map(|p| p.latency_histogram.as_deref()))
                .ok()
                .flatten()
                .unwrap_or_else(crate::open_loop::latency_histogram);
            summary.latency = quantiles(&histogram);
            summary.latency_histogram = (!histogram.is_empty()).then(|| crate::histogram::encode(&histogram));
            summary.ops_per_s = fleet_row.rate;
            if hosts.len() > 1 {
                summary.server_cpu_us_per_op = None;
            }
            summary
        })
        .collect();
    let comparison = match (&fleet.window, summaries.as_slice()) {
        (Some(_), [a, b]) => {
            compare_rates_in([(a.transport, a.ops_per_s), (b.transport, b.ops_per_s)], &pairs, NO_ROUND_IN_FLEET_WINDOW)
                .map(|c| Verdict::new(c, unit))
        }
        _ => None,
    };
    MergedCalls { fleet, transports: summaries, comparison, rounds }
}
