//! A finished etcd run and its renderings: a table with the verdict, JSON,
//! and CSV (one row per round).

use super::options::{EtcdConfig, Mode};
use super::rounds::{EtcdRound, EtcdSummary};
use engine::compare::{Comparison, OpsRates, compare_rates};
use engine::error_kinds::format_kinds;
use engine::plan::TransportKind;
use engine::report::{Host, RunOutcome, Tool, aligned, plural};
use units::RateUnit;

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

/// The verdict as etcd's report keeps it: the engine's, its rates in
/// operations (or events) per second, with the sentence its table prints.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Verdict {
    #[serde(flatten)]
    pub comparison: Comparison<OpsRates>,
    pub sentence: String,
}

impl Verdict {
    pub fn new(comparison: Comparison<OpsRates>, unit: RateUnit) -> Self {
        Verdict { sentence: comparison.sentence(unit), comparison }
    }
}

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
        format!(
            "etcd {} at {}: {} x {} requests a round, {} B keys, {} B values, client on {}",
            mode_name(c.mode),
            c.endpoints.join(","),
            plural(c.clients as usize, "client"),
            c.requests,
            c.key_size,
            c.value_size,
            plural(c.client_threads, "thread")
        )
    }

    /// The table's header, shared by the text table and the app.
    pub fn table_headers(&self) -> [&'static str; 10] {
        let rate = if self.config.mode == Mode::Watch { "Events/s" } else { "Ops/s" };
        ["Transport", "Protocol", "Rounds", rate, "p50", "p90", "p99", "p99.9", "Conns", "Errors"]
    }

    /// The table's cells, shared by the text table and the app: a merged
    /// report's hosts' rows first, then its fleet rows.
    pub fn table_rows(&self) -> Vec<Vec<String>> {
        self.table_lines().into_iter().map(|(_, cells)| cells).collect()
    }

    /// Each row's transport and cells.
    pub fn table_lines(&self) -> Vec<(TransportKind, Vec<String>)> {
        if self.hosts.is_empty() {
            return self.transports.iter().map(|t| (t.transport, row_cells(t.transport.name().into(), t))).collect();
        }
        let hosts = self.hosts.iter().flat_map(|h| {
            h.transports.iter().map(move |t| (t.transport, row_cells(format!("{} {}", h.host, t.transport.name()), t)))
        });
        let fleet =
            self.transports.iter().map(|t| (t.transport, row_cells(format!("fleet {}", t.transport.name()), t)));
        hosts.chain(fleet).collect()
    }
}

fn row_cells(name: String, t: &EtcdSummary) -> Vec<String> {
    let ms = |v: Option<f64>| v.map(format_ms).unwrap_or_else(|| "-".into());
    vec![
        name,
        t.protocol.clone(),
        t.runs.to_string(),
        t.ops_per_s.map(|v| format!("{v:.0}")).unwrap_or_else(|| "-".into()),
        ms(t.latency.p50_ms),
        ms(t.latency.p90_ms),
        ms(t.latency.p99_ms),
        ms(t.latency.p999_ms),
        t.connections.to_string(),
        t.errors.to_string(),
    ]
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
        lines.extend(self.transports.iter().map(|t| per_op_line(t, watch, unread)));
        lines.extend(self.transports.iter().filter_map(|t| errors_line(t, self.config.mode)));
        if let [a, b] = self.transports.as_slice() {
            lines.extend(ratios_line(a, b, if watch { "event" } else { "op" }));
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

/// `0.731 ms`, `12.4 ms`: three significant digits down to a microsecond.
pub fn format_ms(ms: f64) -> String {
    match ms {
        ms if ms >= 100.0 => format!("{ms:.0} ms"),
        ms if ms >= 10.0 => format!("{ms:.1} ms"),
        ms if ms >= 1.0 => format!("{ms:.2} ms"),
        ms => format!("{ms:.3} ms"),
    }
}

pub(crate) fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Put => "put",
        Mode::Range => "range",
        Mode::Watch => "watch (puts over gRPC, watched over each transport)",
    }
}

/// `grpc: 196 B sent and 61 B received per op, client CPU 21 µs/op, etcd CPU 84 µs/op`.
fn per_op_line(t: &EtcdSummary, watch: bool, unread: &str) -> String {
    let unit = if watch { "event" } else { "op" };
    let (Some(sent), Some(received), Some(cpu)) = (t.wire_sent_per_op, t.wire_received_per_op, t.client_cpu_us_per_op)
    else {
        return format!("{}: no complete round: no wire or CPU figures", t.transport.name());
    };
    // Sizes and times in the unit that fits: 1 MiB values are not "1048712 B".
    let size = |bytes: f64| units::format_size(bytes.round() as u64);
    let time = |us: f64| units::format_latency(us / 1e6);
    let server = t.server_cpu_us_per_op.map_or(unread.into(), |s| format!("{}/{unit}", time(s)));
    format!(
        "{}: {} sent and {} received per {unit}, client CPU {}/{unit}, etcd CPU {server}",
        t.transport.name(),
        size(sent),
        size(received),
        time(cpu)
    )
}

/// `grpc: 4 puts failed: INVALID_ARGUMENT x4`, when any failed (etcd
/// requests are not retried: each failure is one request's).
fn errors_line(t: &EtcdSummary, mode: Mode) -> Option<String> {
    let what = match mode {
        Mode::Put => "put",
        Mode::Range => "range",
        Mode::Watch => "watch request",
    };
    (t.errors > 0).then(|| {
        let kinds = match format_kinds(&t.error_kinds) {
            kinds if kinds.is_empty() => String::new(),
            kinds => format!(": {kinds}"),
        };
        format!("{}: {} failed{kinds}", t.transport.name(), plural(t.errors as usize, what))
    })
}

/// How the first transport's costs compare with the second's, per op (or event).
fn ratios_line(a: &EtcdSummary, b: &EtcdSummary, unit: &str) -> Option<String> {
    let ratio =
        |x: Option<f64>, y: Option<f64>| x.zip(y).filter(|(_, y)| *y > 0.0).map(|(x, y)| format!("{:.2}x", x / y));
    let wire = |t: &EtcdSummary| t.wire_sent_per_op.zip(t.wire_received_per_op).map(|(s, r)| s + r);
    let parts: Vec<String> = [
        ("bytes on the wire", ratio(wire(a), wire(b))),
        ("client CPU", ratio(a.client_cpu_us_per_op, b.client_cpu_us_per_op)),
        ("etcd CPU", ratio(a.server_cpu_us_per_op, b.server_cpu_us_per_op)),
    ]
    .into_iter()
    .filter_map(|(what, r)| Some(format!("{what} {}", r?)))
    .collect();
    (!parts.is_empty())
        .then(|| format!("per {unit}, {} vs {}: {}", a.transport.name(), b.transport.name(), parts.join(", ")))
}

/// An open-loop run's latency figures and verdict over its paced rounds.
pub fn open_loop_summary(
    mode: Mode,
    offered: Option<&engine::open_loop::OpenLoop>,
    transports: &[TransportKind],
    rounds: &[EtcdRound],
) -> Option<engine::open_loop::OpenLoopSummary> {
    let paced: Vec<engine::open_loop::RoundLatency> = rounds
        .iter()
        .filter_map(|r| {
            Some(engine::open_loop::RoundLatency {
                host: &r.span.host,
                transport: r.transport,
                round: r.round,
                ok: r.ok,
                latency: &r.latency,
                paced: r.paced.as_ref()?,
            })
        })
        .collect();
    let work = match mode {
        Mode::Range => "range",
        Mode::Put | Mode::Watch => "put",
    };
    Some(engine::open_loop::summarize(work, offered?, transports, &paced))
}
