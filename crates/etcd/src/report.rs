//! A finished etcd run and its renderings: a table with the verdict, JSON,
//! and CSV (one row per round).

use super::options::{EtcdConfig, Mode};
use super::rounds::{EtcdRound, EtcdSummary};
use engine::calls::said;
use engine::compare::compare_rates;
use engine::plan::TransportKind;
use engine::report::{Host, RunOutcome, Tool, aligned, plural};
use units::RateUnit;

pub use engine::calls::said::format_ms;

/// What the run did to the keys it wrote.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KeysCleanup {
    /// Exactly this prefix was deleted: the run's own.
    pub prefix: String,
    pub deleted: u64,
    /// `--cleanup=false`: the keys are still there.
    pub kept: bool,
    pub error: Option<String>,
}

/// The run as configured, for reading the report later.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EtcdSettings {
    pub endpoints: Vec<String>,
    pub mode: Mode,
    pub clients: u32,
    pub requests: u32,
    pub conns: u32,
    pub key_size: usize,
    pub value_size: usize,
    pub key_space: u32,
    pub sequential_keys: bool,
    pub user: Option<String>,
    pub tls: bool,
    pub transports: Vec<TransportKind>,
    pub iterations: u32,
    pub warmup: bool,
    pub client_threads: usize,
    /// `--rate`: what an open-loop run offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<engine::open_loop::OpenLoop>,
}

pub use engine::calls::said::Verdict;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EtcdReport {
    pub tool: Tool,
    pub environment: Host,
    pub target: String,
    pub run_id: String,
    pub started_at: String,
    pub outcome: RunOutcome,
    pub stopped_because: Option<String>,
    pub config: EtcdSettings,
    pub transports: Vec<EtcdSummary>,
    pub comparison: Option<Verdict>,
    pub cleanup: KeysCleanup,
    /// Errors and broken watches, said as they happened.
    pub notes: Vec<String>,
    pub rounds: Vec<EtcdRound>,
    /// A merged report: each host's own figures (its rounds are those above
    /// that name it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<super::merge::EtcdHostPart>,
    /// A merged report: the common window and each transport's rate in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<engine::fleet::Fleet>,
    /// Open loop: each transport's latency at the offered rate, and the verdict on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<engine::open_loop::OpenLoopSummary>,
}

impl EtcdReport {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        run_id: String,
        started_at: String,
        config: &EtcdConfig,
        transports: Vec<EtcdSummary>,
        rounds: Vec<EtcdRound>,
        outcome: RunOutcome,
        cleanup: KeysCleanup,
        stopped_because: Option<String>,
    ) -> Self {
        let unit = if config.mode == Mode::Watch { RateUnit::Events } else { RateUnit::Ops };
        let comparison = match transports.as_slice() {
            [a, b] => compare_rates([(a.transport, a.ops_per_s), (b.transport, b.ops_per_s)], &rounds)
                .map(|c| Verdict::new(c, unit)),
            _ => None,
        };
        let reach = &config.reach;
        Self {
            tool: Tool::this(),
            environment: Host { directpath: "not applicable: etcd".into(), ..Host::here() },
            target: "etcd".into(),
            run_id,
            started_at,
            outcome,
            stopped_because,
            config: EtcdSettings {
                endpoints: reach.endpoints.clone(),
                mode: config.mode,
                clients: config.clients,
                requests: config.requests,
                conns: reach.conns,
                key_size: config.key_size,
                value_size: config.value_size,
                key_space: config.key_space,
                sequential_keys: config.sequential_keys,
                user: reach.user.as_ref().map(|(name, _)| name.clone()),
                tls: reach.endpoints[0].starts_with("https://"),
                transports: config.schedule.transports.clone(),
                iterations: config.schedule.iterations,
                warmup: config.warmup,
                client_threads: config.client_threads,
                open_loop: config.schedule.open_loop,
            },
            transports,
            comparison,
            cleanup,
            notes: Vec::new(),
            open_loop: open_loop_summary(
                config.mode,
                config.schedule.open_loop.as_ref(),
                &config.schedule.transports,
                &rounds,
            ),
            rounds,
            hosts: Vec::new(),
            fleet: None,
        }
    }

    /// Names the host that ran it (`--host-label`), on the report and its rounds.
    pub fn host_label(mut self, label: String) -> Self {
        engine::timeline::label(self.rounds.iter_mut().map(|r| &mut r.span), &label);
        self.environment.host = label;
        self
    }

    pub fn with_notes(mut self, notes: Vec<String>) -> Self {
        self.notes = notes;
        self
    }

    /// Every round complete (watch: every event once and in order; the runner
    /// says `completed_with_errors` otherwise), and the keys deleted.
    pub fn succeeded(&self) -> bool {
        self.outcome == RunOutcome::Completed && self.cleanup.error.is_none()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports serialize")
    }

    /// The line above the table: what ran, where.
    pub fn heading(&self) -> String {
        let c = &self.config;
        // Open loop the pacer sends a round's arrivals over the clients'
        // connections (reports before rounds were slices of time: clients x requests).
        let load = match c.open_loop.filter(|open| open.round_s.is_some()) {
            Some(open) => format!(
                "{} a round at {} over {}",
                plural(open.per_round() as usize, "request"),
                open.said(),
                plural(c.clients as usize, "client")
            ),
            None => format!("{} x {} requests a round", plural(c.clients as usize, "client"), c.requests),
        };
        format!(
            "etcd {} at {}: {load}, {} B keys, {} B values, client on {}",
            mode_name(c.mode),
            c.endpoints.join(","),
            c.key_size,
            c.value_size,
            plural(c.client_threads, "thread")
        )
    }

    /// The table's header, shared by the text table and the app.
    pub fn table_headers(&self) -> [&'static str; 10] {
        said::table_headers(if self.config.mode == Mode::Watch { "Events/s" } else { "Ops/s" })
    }

    /// The table's cells, shared by the text table and the app: a merged
    /// report's hosts' rows first, then its fleet rows.
    pub fn table_rows(&self) -> Vec<Vec<String>> {
        self.table_lines().into_iter().map(|(_, cells)| cells).collect()
    }

    /// Each row's transport and cells.
    pub fn table_lines(&self) -> Vec<(TransportKind, Vec<String>)> {
        if self.hosts.is_empty() {
            return self
                .transports
                .iter()
                .map(|t| (t.transport, said::row_cells(t.transport.name().into(), t)))
                .collect();
        }
        let hosts = self.hosts.iter().flat_map(|h| {
            h.transports
                .iter()
                .map(move |t| (t.transport, said::row_cells(format!("{} {}", h.host, t.transport.name()), t)))
        });
        let fleet =
            self.transports.iter().map(|t| (t.transport, said::row_cells(format!("fleet {}", t.transport.name()), t)));
        hosts.chain(fleet).collect()
    }
}

impl EtcdReport {
    /// What the latencies mean, bytes and CPU per op, notes, outcome, cleanup.
    pub fn footer_lines(&self) -> Vec<String> {
        let watch = self.config.mode == Mode::Watch;
        let mut lines = vec![if watch && self.config.open_loop.is_some() {
            "p50-p99.9: per event, from its put's intended start to its arrival, over the complete rounds".to_string()
        } else if watch {
            "p50-p99.9: delivery per event from its put's answer, over the complete rounds (0 when the event came first)"
                .to_string()
        } else if self.config.open_loop.is_some() {
            "p50-p99.9: latency per request from its intended start, over the complete rounds".to_string()
        } else {
            "p50-p99.9: latency per request, over the complete rounds".to_string()
        }];
        if let Some(fleet) = &self.fleet {
            let names: Vec<String> = self.transports.iter().map(|t| format!("fleet {}", t.transport.name())).collect();
            let unit = if watch { RateUnit::Events } else { RateUnit::Ops };
            lines.extend(fleet.lines(unit, &names));
        }
        // A fleet's server CPU is not summed (see its note), not unread.
        let unread = if self.hosts.len() > 1 { "not merged" } else { "not read" };
        let unit = if watch { "event" } else { "op" };
        lines.extend(self.transports.iter().map(|t| said::per_call_line(t, unit, Some("etcd CPU"), unread)));
        lines.extend(self.transports.iter().filter_map(|t| said::errors_line(t, call_name(self.config.mode))));
        if let [a, b] = self.transports.as_slice() {
            lines.extend(said::ratios_line(a, b, unit, Some("etcd CPU")));
        }
        lines.extend(self.open_loop.iter().flat_map(|o| o.sentences()));
        lines.extend(self.notes.iter().chain(&self.stopped_because).cloned());
        if self.outcome != RunOutcome::Completed {
            lines.push(format!("outcome: {}", serde_json::to_value(self.outcome).unwrap().as_str().unwrap_or("")));
        }
        lines.push(match (&self.cleanup.error, self.cleanup.kept) {
            (Some(error), _) => format!("cleanup failed: {error}; the run's keys are under {}", self.cleanup.prefix),
            (None, true) => format!("cleanup off: the run's keys are kept under {}", self.cleanup.prefix),
            (None, false) => {
                format!(
                    "cleanup: deleted {} under {}",
                    plural(self.cleanup.deleted as usize, "key"),
                    self.cleanup.prefix
                )
            }
        });
        lines
    }

    pub fn to_table(&self) -> String {
        let mut rows = vec![self.table_headers().map(String::from).to_vec()];
        rows.extend(self.table_rows());
        let mut out = format!("{}\n\n{}\n", self.heading(), aligned(&rows));
        if self.comparison.is_some() || self.fleet.as_ref().is_some_and(|f| f.apart.is_some()) {
            out += &self.summary_line();
            out.push('\n');
        }
        for line in self.footer_lines() {
            out += &line;
            out.push('\n');
        }
        out
    }
}

pub(crate) fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Put => "put",
        Mode::Range => "range",
        Mode::Watch => "watch (puts over gRPC, watched over each transport)",
    }
}

/// A request of `mode`, as the errors line counts them.
fn call_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Put => "put",
        Mode::Range => "range",
        Mode::Watch => "watch request",
    }
}

/// An open-loop run's latency figures and verdict over its paced rounds.
pub fn open_loop_summary(
    mode: Mode,
    offered: Option<&engine::open_loop::OpenLoop>,
    transports: &[TransportKind],
    rounds: &[EtcdRound],
) -> Option<engine::open_loop::OpenLoopSummary> {
    let work = match mode {
        Mode::Range => "range",
        Mode::Put | Mode::Watch => "put",
    };
    said::open_loop_summary(work, offered, transports, rounds)
}
