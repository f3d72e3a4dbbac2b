//! A finished run, and its three renderings: the original tool's table, JSON
//! (stable field names) and CSV (one row per object).

use crate::config::{BenchConfig, Workload};
use crate::stats::compare;
use crate::stats::{ObjectSample, RoundSample, TransportSummary, Verdict};
use crate::target::TargetInfo;
use engine::compare::Comparison;
pub use engine::report::{Host, REPORT_VERSION, RunOutcome, Tool, aligned, csv_field, plural};

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Cleanup {
    pub deleted: usize,
    /// Objects that should have been deleted but could not be.
    pub left: Vec<String>,
    /// Objects kept on purpose (`--cleanup=false`).
    pub kept: Vec<String>,
}

/// Serialized as `run --format json` prints it, and read back (the app's
/// history across sessions) from the same text.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct RunReport {
    pub tool: Tool,
    /// The report's format (`engine::report::REPORT_VERSION`); 1 when absent.
    #[serde(default = "engine::report::first_report_version")]
    pub report_version: u32,
    pub environment: Host,
    pub run_id: String,
    pub started_at: String,
    pub outcome: RunOutcome,
    /// The outcome in one sentence, for people reading the JSON.
    pub outcome_detail: String,
    /// Why the timed rounds ended where they did (`--until-stable`, `--duration`).
    pub stopped_because: Option<String>,
    pub target: TargetInfo,
    pub config: BenchConfig,
    /// What the rounds did (`config.workload`, said at the top for readers).
    #[serde(default)]
    pub workload: Workload,
    /// Times a refused token (401, UNAUTHENTICATED) made the credentials
    /// fetch a new one; each refused request was tried once more (a retry).
    #[serde(default)]
    pub auth_refreshes: u64,
    /// Ranged reads: the seed their offsets were drawn from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_seed: Option<u64>,
    /// A row per transport and operation (w1r3: the uploads, then the reads).
    pub transports: Vec<TransportSummary>,
    /// The first operation's verdict (the only one but for w1r3).
    pub comparison: Option<Comparison>,
    /// Every operation's verdict: w1r3 has one for its uploads and one for its reads.
    #[serde(default)]
    pub verdicts: Vec<Verdict>,
    pub cleanup: Cleanup,
    pub rounds: Vec<RoundSample>,
    /// Rounds cut off (a cancel, the deadline) before any object finished:
    /// no round in any figure, but their items' failures and retries count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cut_off_rounds: Vec<RoundSample>,
    /// Objects as they were taken: every one in a short run; past
    /// `KEPT_SAMPLES` per transport and operation, the slowest and the
    /// failed (`samples_kept` says so). `--samples FILE` streams every one.
    pub samples: Vec<ObjectSample>,
    /// Which objects `samples` holds, when not every one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_kept: Option<String>,
    /// A merged report: each host's own figures (its rounds and samples
    /// are those above that name it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<merge::HostPart>,
    /// A merged report: the common window and each row's rate in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<engine::fleet::Fleet>,
    /// Open loop: each operation's latency at the offered rate, and the verdict on it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub open_loop: Vec<engine::open_loop::OpenLoopSummary>,
    /// Ranges workload: each transport's ranges, their latency and what carried them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ranges: Vec<ranges::RangesSummary>,
    /// Append workload: each transport's flushes and their latency.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub appends: Vec<appends::AppendsSummary>,
}

impl RunReport {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        run_id: String,
        started_at: String,
        target: TargetInfo,
        config: BenchConfig,
        transports: Vec<TransportSummary>,
        samples: Vec<ObjectSample>,
        rounds: Vec<RoundSample>,
        outcome: RunOutcome,
        cleanup: Cleanup,
    ) -> Self {
        let mut rounds = rounds;
        // Reports (and tests) made of samples alone: their rounds' tallies from them.
        crate::stats::tally_from_samples(&mut rounds, &samples);
        let mut report = Self {
            tool: Tool::this(),
            report_version: REPORT_VERSION,
            environment: Host::here(),
            run_id,
            started_at,
            outcome,
            outcome_detail: String::new(),
            stopped_because: None,
            target,
            workload: config.workload,
            read_seed: None,
            auth_refreshes: 0,
            config,
            transports,
            comparison: None,
            verdicts: Vec::new(),
            cleanup,
            rounds,
            cut_off_rounds: Vec::new(),
            samples,
            samples_kept: None,
            hosts: Vec::new(),
            fleet: None,
            open_loop: Vec::new(),
            ranges: Vec::new(),
            appends: Vec::new(),
        };
        report.derive();
        report
    }

    /// The figures made of the rounds: verdicts, open loop, ranges and
    /// appends, and the outcome as the items' failures make it.
    fn derive(&mut self) {
        let (config, rounds, cut_off) = (&self.config, &self.rounds, &self.cut_off_rounds);
        let mut verdicts = compare(&self.transports, rounds);
        let one_host = (engine::cost_caution::Hosts::One, self.environment.cpus);
        add_cautions(config, &self.transports, one_host, &mut verdicts);
        self.open_loop = open_loop::open_loop_summaries(config, rounds, cut_off);
        self.ranges = ranges::ranges_summaries(config, rounds, cut_off);
        self.appends = appends::appends_summaries(config, rounds, cut_off);
        let (failed, items) = self.items();
        if self.outcome == RunOutcome::Completed && failed > 0 {
            self.outcome = RunOutcome::CompletedWithErrors;
        }
        let noun = self.config.workload.noun();
        self.outcome_detail = outcome_sentence(self.outcome, failed, items, noun, self.config.timeout);
        self.comparison = verdicts.first().map(|v| v.comparison.clone());
        self.verdicts = verdicts;
    }

    /// Rounds cut off before any object finished, whose items still count.
    pub fn with_cut_off(mut self, cut_off: Vec<RoundSample>, samples_kept: Option<String>) -> Self {
        self.cut_off_rounds = cut_off;
        self.samples_kept = samples_kept;
        self.derive();
        self
    }

    /// Items failed, and items in all, over every round's tally.
    pub fn items(&self) -> (usize, usize) {
        let tallies = self.rounds.iter().chain(&self.cut_off_rounds).filter_map(|r| r.items.as_ref());
        let (failed, finished) = tallies.fold((0, 0), |(f, n), t| (f + t.failed, n + t.finished));
        (failed as usize, (failed + finished) as usize)
    }

    /// Names the host that ran it (`--host-label`), on the report, its
    /// rounds and its samples.
    pub fn host_label(mut self, label: String) -> Self {
        self.label_rounds_and_host(label);
        self
    }

    fn label_rounds_and_host(&mut self, label: String) {
        let rounds = self.rounds.iter_mut().chain(&mut self.cut_off_rounds);
        engine::timeline::label(rounds.map(|r| &mut r.span), &label);
        for sample in &mut self.samples {
            sample.host.clone_from(&label);
        }
        self.environment.host = label;
    }

    pub fn stopped_because(mut self, why: Option<String>) -> Self {
        if self.outcome == RunOutcome::SetupFailed
            && let Some(why) = &why
        {
            // The reason is the outcome: said in the one sentence JSON readers see.
            self.outcome_detail = format!("not started: {why}");
        }
        self.stopped_because = why;
        self
    }

    pub fn auth_refreshes(mut self, refreshes: u64) -> Self {
        self.auth_refreshes = refreshes;
        self
    }

    /// The seed of the ranged reads' offsets, so that a run can be repeated.
    pub fn read_seed(mut self, seed: Option<u64>) -> Self {
        self.read_seed = seed;
        self
    }

    /// Set-up failed before any round began: nothing was measured.
    pub fn never_started(&self) -> bool {
        self.outcome == RunOutcome::SetupFailed && self.rounds.is_empty() && self.samples.is_empty()
    }

    /// Every upload succeeded, the schedule ran to its end and nothing was left behind.
    pub fn succeeded(&self) -> bool {
        self.outcome == RunOutcome::Completed && self.items().0 == 0 && self.cleanup.left.is_empty()
    }

    pub fn failed_uploads(&self) -> usize {
        self.items().0
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports serialize")
    }

    pub fn to_table(&self) -> String {
        if self.never_started() {
            // Nothing was measured: no table of dashes, just why, and the cleanup.
            let lines = std::iter::once(self.outcome_detail.clone()).chain(self.cleanup_lines());
            return lines.map(|l| format!("{l}\n")).collect();
        }
        let mut rows = vec![TABLE_HEADERS.map(String::from).to_vec()];
        rows.extend(table_rows(self));
        let mut out = aligned(&rows);
        out.push('\n');
        // The saved table stands alone: where it was measured, and any fault
        // (the app's header says it for the app).
        let target = self.target.describe();
        let lines = self.verdict_lines().into_iter().chain([target]).chain(self.footer_lines());
        for line in lines.chain(self.histogram_lines()) {
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// Protocols, outcome and cleanup, said after the table.
    pub fn footer_lines(&self) -> Vec<String> {
        let workload = self.config.workload;
        let footnote = match workload {
            Workload::Upload => TABLE_FOOTNOTE.to_string(),
            Workload::Download => TABLE_FOOTNOTE.replace("per upload", "per download"),
            Workload::Ranges => TABLE_FOOTNOTE.replace("per upload", "per reader's ranges, all wanted at once"),
            Workload::Append => TABLE_FOOTNOTE.replace("per upload", "per object written in appends"),
            Workload::W1r3 => TABLE_FOOTNOTE.replace("per upload", "per upload or read"),
        };
        let mut lines = vec![match self.config.open_loop {
            Some(_) => format!("{footnote}, from each one's intended start (open loop)"),
            None => footnote,
        }];
        if let Some(fleet) = &self.fleet {
            let names: Vec<String> =
                self.transports.iter().map(|t| format!("fleet {}", row_name(t, workload))).collect();
            lines.extend(fleet.lines(self.config.rate_unit, &names));
        }
        if workload.reads() {
            lines.push(self.reads_line());
        }
        lines.extend(self.ranges.iter().map(ranges::RangesSummary::line));
        lines.extend(self.appends.iter().map(appends::AppendsSummary::line));
        let fleet = if self.fleet.is_some() { "fleet " } else { "" };
        for t in &self.transports {
            lines.extend(transport_lines(&format!("{fleet}{}", row_name(t, workload)), t, Shown::of(self)));
        }
        if let Some(why) = self.stopped_because.as_ref().filter(|_| self.outcome != RunOutcome::SetupFailed) {
            // (A setup failure's reason is its outcome sentence, below.)
            lines.push(why.clone());
        }
        lines.extend(self.open_loop.iter().flat_map(|o| o.sentences()));
        lines.extend(engine::folded::said(self.rounds.iter().map(|r| r.rounds_held)));
        if self.auth_refreshes > 0 {
            lines.push(format!(
                "credentials: a refused token was replaced {} (each refused request tried once more, counted as a retry)",
                plural(self.auth_refreshes as usize, "time")
            ));
        }
        if self.outcome != RunOutcome::Completed {
            lines.push(self.outcome_detail.clone());
        }
        lines.extend(self.cleanup_lines());
        lines
    }

    /// What cleanup deleted, kept on purpose, or left behind.
    fn cleanup_lines(&self) -> Vec<String> {
        let mut lines = vec![if self.cleanup.kept.is_empty() {
            format!("cleanup: deleted {}, left {}", self.cleanup.deleted, self.cleanup.left.len())
        } else {
            // The objects' names start PREFIX/RUN-ID/ (RUN-ID/ with no prefix).
            let under = match self.config.prefix.as_str() {
                "" => self.run_id.clone(),
                prefix => format!("{prefix}/{}", self.run_id),
            };
            format!("cleanup off: kept {} under {under}/", plural(self.cleanup.kept.len(), "object"))
        }];
        lines.extend(self.cleanup.left.iter().map(|name| format!("left behind: {name}")));
        lines
    }
}

/// What the table's two kinds of time mean.
pub const TABLE_FOOTNOTE: &str =
    "Min-Max: time per complete round · p50-p99: per upload, retries and back-off included";

/// The outcome in one sentence; `noun` is the workload's item ("upload").
fn outcome_sentence(
    outcome: RunOutcome,
    failed: usize,
    items: usize,
    noun: &str,
    timeout: std::time::Duration,
) -> String {
    let failures = if failed > 0 { format!("; {failed} of {items} {noun}s failed") } else { String::new() };
    match outcome {
        RunOutcome::Completed => format!("completed: all {} finished", plural(items, noun)),
        RunOutcome::CompletedWithErrors => format!(
            "completed with errors: {failed} of {items} {noun}s failed; the figures cover the {noun}s and rounds that finished"
        ),
        RunOutcome::Cancelled => {
            format!("cancelled: the figures cover the rounds that finished before the cancel{failures}")
        }
        RunOutcome::FailedFast => format!("stopped at the first failed {noun} (--fail-fast){failures}"),
        RunOutcome::SetupFailed => "not started: nothing was measured".into(),
        RunOutcome::TimedOut => format!(
            "hit --timeout {}: the figures cover the rounds that finished{failures}",
            units::format_duration(timeout)
        ),
    }
}

/// The cautions a report adds beside its verdicts: only gRPC's appends
/// read back; a client's cost with little CPU to spare (its concurrency
/// can use `config.concurrency` cores, at most the hosts' `cpus`).
fn add_cautions(
    config: &BenchConfig,
    transports: &[TransportSummary],
    (hosts, cpus): (engine::cost_caution::Hosts, usize),
    verdicts: &mut [Verdict],
) {
    appends::mark_read_back(config, verdicts);
    let lanes = (config.concurrency as usize).min(cpus);
    client_cost::mark_client_cost(Shown::for_config(config), transports, (hosts, lanes), verdicts);
}

pub mod appends;
mod client_cost;
mod csv;
mod figures;
mod finished;
mod histogram;
pub mod merge;
mod open_loop;
mod pictures;
pub mod ranges;
mod reads_line;
mod shown;
mod table;
mod verdict;

pub use shown::SMALL_OBJECT_BYTES;
pub use shown::Shown;
use table::transport_lines;
pub use table::{TABLE_HEADERS, row_name, table_lines, table_rows};

#[cfg(test)]
mod tests;
