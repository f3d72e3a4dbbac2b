//! The report of a run of calls, one shape for every target whose work is
//! calls (etcd's puts, ranges and watches, any service's methods): the
//! envelope, each transport's figures, the verdict, the rounds and a merged
//! report's hosts. What differs, a target says through `CallSettings` (its
//! configuration as the report keeps it) and `CallCleanup` (what it did to
//! what the run made).

use super::host_part::{FleetRun, HostPart, fleet_run, host_runs};
use super::merge::{HostCalls, MergedCalls, merge_calls};
use super::rounds::{CallRound, CallSummary};
use super::said::{self, Verdict};
use super::sampled::SampledAnswers;
use crate::compare::compare_rates;
use crate::cost_caution::{ClientCost, Hosts, cost_caution};
use crate::open_loop::{OpenLoop, OpenLoopSummary};
use crate::plan::TransportKind;
use crate::report::{Host, REPORT_VERSION, RunOutcome, Tool};
use units::RateUnit;

/// How hard a run of calls pushed, as every such report keeps it (flat in
/// its settings' JSON, as each always was).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct CallLoad {
    pub clients: u32,
    pub requests: u32,
    pub conns: u32,
    pub tls: bool,
    pub transports: Vec<TransportKind>,
    pub iterations: u32,
    pub warmup: bool,
    pub client_threads: usize,
    /// `--rate`: what an open-loop run offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<OpenLoop>,
}

/// A target's configuration as its report keeps it, and the words its
/// report says of it.
pub trait CallSettings: Clone {
    /// As the registry and a report's `target` spell it: `etcd`, `grpc`.
    const TARGET: &'static str;
    /// "an etcd" (run), "a gRPC service" (run).
    const KIND: &'static str;
    /// What the environment's DirectPath is not applicable to.
    const SERVICE: &'static str;
    /// How hard the run pushed.
    fn load(&self) -> &CallLoad;
    fn transports(&self) -> &[TransportKind] {
        &self.load().transports
    }
    /// `--rate`: what an open-loop run offered.
    fn open_loop(&self) -> Option<&OpenLoop> {
        self.load().open_loop.as_ref()
    }
    fn unit(&self) -> RateUnit;
    /// A row's and a round's operation: `put`, `watch`, `call`.
    fn operation(&self) -> &'static str;
    /// What open loop paces (a watch run paces its puts).
    fn paced_work(&self) -> &'static str;
    /// A request, as the errors line counts them: `put`, `watch request`.
    fn request_said(&self) -> &'static str;
    /// One item of the rate, as the cost lines say it: `op`, `event`, `call`.
    fn item(&self) -> &'static str;
    /// The table's rate column: `Ops/s`.
    fn rate_header(&self) -> &'static str;
    /// The server's CPU, when the target reads it: `etcd CPU`.
    fn server_cpu(&self) -> Option<&'static str>;
    /// The line above the table: what ran, where.
    fn heading(&self) -> String;
    /// The footer's first line: what the latencies measure.
    fn latency_said(&self) -> String;
    fn work_said(&self) -> String;
    /// The options that tell runs apart, with the `rounds` each transport ran.
    fn key_options(&self, rounds: u32) -> String;
    fn short_target(&self) -> String;
    fn place(&self) -> String;
    /// Whose run had one transport: `etcd put`, a method's name.
    fn alone_said(&self) -> String;
    /// The CSV's last columns after `run_id`: their header and values.
    fn csv_columns(&self) -> (&'static str, Vec<String>);
    /// What a merge of `hosts` hosts must say of its figures.
    fn merge_notes(&self, hosts: usize) -> Vec<String> {
        let _ = hosts;
        Vec::new()
    }
}

/// What the run did to what it made: deleted keys, a cleanup call.
pub trait CallCleanup: Clone {
    fn error(&self) -> Option<&String>;
    /// The footer's last line.
    fn said(&self) -> String;
    fn leftovers(&self) -> crate::finished::Leftovers;
    /// The hosts' cleanups as one.
    fn merged(parts: &[HostPart<Self>]) -> Self;
}

/// How a run ended, from the runner.
pub struct Ran {
    pub run_id: String,
    pub started_at: String,
    pub outcome: RunOutcome,
    pub stopped_because: Option<String>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(bound(deserialize = "S: serde::Deserialize<'de>, C: serde::Deserialize<'de>"))]
pub struct CallsReport<S, C> {
    pub tool: Tool,
    /// The report's format (`crate::report::REPORT_VERSION`); 1 when absent.
    #[serde(default = "crate::report::first_report_version")]
    pub report_version: u32,
    pub environment: Host,
    /// The target's name (`CallSettings::TARGET`): how a report is told
    /// from the other targets'.
    pub target: String,
    pub run_id: String,
    pub started_at: String,
    pub outcome: RunOutcome,
    pub stopped_because: Option<String>,
    pub config: S,
    pub transports: Vec<CallSummary>,
    pub comparison: Option<Verdict>,
    pub cleanup: C,
    /// Failures, broken watches and the check's findings, said as they happened.
    pub notes: Vec<String>,
    pub rounds: Vec<CallRound>,
    /// A merged report: each host's own figures (its rounds are those above
    /// that name it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<HostPart<C>>,
    /// A merged report: the common window and each transport's rate in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<crate::fleet::Fleet>,
    /// Open loop: each transport's latency at the offered rate, and the verdict on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<OpenLoopSummary>,
    /// Calls sampled in the rounds whose answers were compared across the
    /// transports, added up over the rounds (`None`: none compared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<SampledAnswers>,
    /// What the verdict is cautioned with, cautions joined by "; ": when
    /// sampled calls differed, when one client's CPU cost may have decided
    /// it (`crate::cost_caution`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caution: Option<String>,
}

impl<S: CallSettings, C: CallCleanup> CallsReport<S, C> {
    pub fn new(ran: Ran, config: S, transports: Vec<CallSummary>, rounds: Vec<CallRound>, cleanup: C) -> Self {
        let comparison = match transports.as_slice() {
            [a, b] => compare_rates([(a.transport, a.ops_per_s), (b.transport, b.ops_per_s)], &rounds)
                .map(|c| Verdict::new(c, config.unit())),
            _ => None,
        };
        let open_loop = said::open_loop_summary(config.paced_work(), config.open_loop(), config.transports(), &rounds);
        let sampled = SampledAnswers::total(rounds.iter().filter_map(|r| r.sampled.as_ref()));
        let caution = cautions(sampled.as_ref(), (&transports, &rounds), &config, Hosts::One);
        CallsReport {
            tool: Tool::this(),
            report_version: REPORT_VERSION,
            environment: Host { directpath: format!("not applicable: {}", S::SERVICE), ..Host::here() },
            target: S::TARGET.into(),
            run_id: ran.run_id,
            started_at: ran.started_at,
            outcome: ran.outcome,
            stopped_because: ran.stopped_because,
            config,
            transports,
            comparison,
            cleanup,
            notes: Vec::new(),
            caution,
            sampled,
            rounds,
            hosts: Vec::new(),
            fleet: None,
            open_loop,
        }
    }

    pub fn with_notes(mut self, notes: Vec<String>) -> Self {
        self.notes = notes;
        self
    }

    /// Names the host that ran it (`--host-label`), on the report and its rounds.
    pub fn host_label(mut self, label: String) -> Self {
        self.label_rounds_and_host(label);
        self
    }

    pub(super) fn label_rounds_and_host(&mut self, label: String) {
        crate::timeline::label(self.rounds.iter_mut().map(|r| &mut r.span), &label);
        self.environment.host = label;
    }

    /// Every round complete (a watch: every event once and in order) and
    /// the cleanup done.
    pub fn succeeded(&self) -> bool {
        self.outcome == RunOutcome::Completed && self.cleanup.error().is_none()
    }

    /// The check before the rounds failed: nothing was measured.
    pub fn never_started(&self) -> bool {
        self.outcome == RunOutcome::SetupFailed && self.rounds.is_empty()
    }

    pub fn to_json(&self) -> String
    where
        Self: serde::Serialize,
    {
        serde_json::to_string_pretty(self).expect("reports serialize")
    }

    /// The hosts in it, with their rounds: itself, or those it merged.
    pub fn host_runs(&self) -> Vec<(HostPart<C>, Vec<CallRound>)> {
        host_runs(|| crate::host_part!(self), &self.hosts, &self.rounds)
    }

    /// One report of the hosts of `runs` (their configurations match: the
    /// caller checks), `first`'s configuration kept: a fleet's rows over
    /// every host's rounds, each host's own figures beside them, so that a
    /// merged report merges again.
    pub fn merge(mut runs: Vec<(HostPart<C>, Vec<CallRound>)>, first: &Self) -> Self {
        runs.sort_by(|a, b| a.0.host.cmp(&b.0.host));
        let config = first.config.clone();
        let hosts: Vec<HostCalls> =
            runs.iter().map(|(p, r)| HostCalls { host: &p.host, transports: &p.transports, rounds: r }).collect();
        let MergedCalls { fleet, transports, comparison, rounds } =
            merge_calls(&hosts, config.transports(), config.operation(), config.unit());
        let open_loop = said::open_loop_summary(config.paced_work(), config.open_loop(), config.transports(), &rounds);
        let sampled = SampledAnswers::total(rounds.iter().filter_map(|r| r.sampled.as_ref()));
        let caution = cautions(sampled.as_ref(), (&transports, &rounds), &config, Hosts::Fleet);
        let parts: Vec<HostPart<C>> = runs.into_iter().map(|(p, _)| p).collect();
        let FleetRun { environment, run_id, started_at, outcome, notes: hosts_notes } = fleet_run(&parts);
        let mut notes = config.merge_notes(parts.len());
        notes.extend(hosts_notes);
        CallsReport {
            tool: first.tool.clone(),
            report_version: REPORT_VERSION,
            environment,
            target: first.target.clone(),
            run_id,
            started_at,
            outcome,
            stopped_because: None,
            config,
            transports,
            comparison,
            cleanup: C::merged(&parts),
            notes,
            rounds,
            hosts: parts,
            fleet: Some(fleet),
            open_loop,
            caution,
            sampled,
        }
    }
}

/// The verdict's cautions, joined: sampled answers that differed, and a
/// client that took markedly more CPU a call with little CPU to spare (its
/// concurrency: its callers, `--clients`, at most its threads).
fn cautions<S: CallSettings>(
    sampled: Option<&SampledAnswers>,
    (transports, rounds): (&[CallSummary], &[CallRound]),
    config: &S,
    hosts: Hosts,
) -> Option<String> {
    let load = config.load();
    let lanes = (load.clients as usize).min(load.client_threads);
    // Cores a host's client kept busy: CPU over time of the complete rounds,
    // not CPU a call x the rate (a fleet's rate is all its hosts').
    let cores = |kind: TransportKind| {
        let complete = || rounds.iter().filter(move |r| r.transport == kind && r.ok);
        let time: f64 = complete().map(|r| r.elapsed_s).sum();
        (time > 0.0).then(|| complete().map(|r| r.cpu_s).sum::<f64>() / time)
    };
    let cost = |t: &CallSummary| {
        let us = t.client_cpu_us_per_op?;
        let said = units::format_latency(us / 1e6);
        let client_cores = cores(t.transport);
        let transport = t.transport.name();
        Some(ClientCost { transport, cpu: us, said, host_busy: t.host_cpu_busy, client_cores, lanes })
    };
    let client_cost = match transports {
        [a, b] => cost(a).zip(cost(b)).and_then(|(a, b)| cost_caution(&a, &b, config.item(), hosts)),
        _ => None,
    };
    let said: Vec<String> = sampled.and_then(SampledAnswers::caution).into_iter().chain(client_cost).collect();
    (!said.is_empty()).then(|| said.join("; "))
}
