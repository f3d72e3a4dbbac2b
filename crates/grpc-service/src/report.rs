//! A finished `grpc run` and its renderings: a table with the verdict,
//! JSON, and CSV (one row per round).

use crate::config::ServiceConfig;
use crate::mapping::{Body, Mapping};
use engine::calls::rounds::{CallRound, CallSummary};
use engine::calls::said::{self, Verdict};
use engine::calls::sampled::SampledAnswers;
use engine::compare::compare_rates;
use engine::plan::TransportKind;
use engine::report::{Host, RunOutcome, Tool, aligned, csv_field, plural};
use units::RateUnit;

/// The table's columns in the order a reader needs them when space is short.
pub(crate) const PRIORITY: [usize; 10] = [0, 3, 4, 6, 8, 2, 9, 5, 7, 1];

/// What the cleanup method did.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CleanupCall {
    /// `pkg.Service/Method`; empty: none was given.
    pub method: String,
    pub called: bool,
    pub error: Option<String>,
}

impl CleanupCall {
    pub fn none() -> Self {
        CleanupCall { method: String::new(), called: false, error: None }
    }
}

/// The run as configured, for reading the report later.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GrpcSettings {
    /// `etcdserverpb.KV/Put`.
    pub method: String,
    /// Where the types came from: the .proto files or the descriptor set.
    pub schema: String,
    /// The request template, as given.
    pub data: String,
    pub grpc_endpoint: String,
    pub http_endpoint: String,
    /// `POST /v3/kv/put (body *)`, or `connect POST /pkg.Service/Method`.
    pub http_mapping: String,
    pub ignore_fields: Vec<String>,
    /// The headers' names (their values may be secrets).
    pub headers: Vec<String>,
    pub clients: u32,
    pub requests: u32,
    pub conns: u32,
    pub tls: bool,
    pub transports: Vec<TransportKind>,
    pub iterations: u32,
    pub warmup: bool,
    pub client_threads: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<engine::open_loop::OpenLoop>,
}

/// How a run ended, from the runner.
pub struct Ran {
    pub run_id: String,
    pub started_at: String,
    pub outcome: RunOutcome,
    pub stopped_because: Option<String>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GrpcReport {
    pub tool: Tool,
    pub environment: Host,
    /// Always `grpc`: how a report is told from the other targets'.
    pub target: String,
    pub run_id: String,
    pub started_at: String,
    pub outcome: RunOutcome,
    pub stopped_because: Option<String>,
    pub config: GrpcSettings,
    pub transports: Vec<CallSummary>,
    pub comparison: Option<Verdict>,
    pub cleanup: CleanupCall,
    /// Failures and the check's findings, said as they happened.
    pub notes: Vec<String>,
    pub rounds: Vec<CallRound>,
    /// A merged report: each host's own figures (not yet: `merge` refuses).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<crate::merge::GrpcHostPart>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fleet: Option<engine::fleet::Fleet>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<engine::open_loop::OpenLoopSummary>,
    /// Calls sampled in the rounds whose answers were compared across the
    /// transports, added up over the rounds (`None`: none compared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<SampledAnswers>,
    /// What the verdict is cautioned with when sampled calls differed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caution: Option<String>,
}

/// The sampled calls of every round, added up.
pub fn sampled_over(rounds: &[CallRound]) -> Option<SampledAnswers> {
    SampledAnswers::total(rounds.iter().filter_map(|r| r.sampled.as_ref()))
}

/// How the report says the mapping.
pub fn mapping_said(mapping: &Mapping) -> String {
    match mapping {
        Mapping::Connect { path } => format!("connect POST {path}"),
        Mapping::Rule { verb, path, body, .. } => {
            let body = match body {
                Body::None => String::new(),
                Body::All => " (body *)".into(),
                Body::Field(field) => format!(" (body {field})"),
            };
            format!("{verb} {}{body}", path.text())
        }
    }
}

impl GrpcReport {
    pub fn new(
        ran: Ran,
        config: &ServiceConfig,
        transports: Vec<CallSummary>,
        rounds: Vec<CallRound>,
        cleanup: CleanupCall,
    ) -> Self {
        let comparison = match transports.as_slice() {
            [a, b] => compare_rates([(a.transport, a.ops_per_s), (b.transport, b.ops_per_s)], &rounds)
                .map(|c| Verdict::new(c, RateUnit::Calls)),
            _ => None,
        };
        let reach = &config.reach;
        let schedule = &config.schedule;
        let settings = GrpcSettings {
            method: config.method_name(),
            schema: config.schema.clone(),
            data: config.data.clone(),
            grpc_endpoint: reach.grpc_endpoint.clone(),
            http_endpoint: reach.http_endpoint.clone(),
            http_mapping: config.mapping.as_ref().map_or("none: gRPC alone".into(), mapping_said),
            ignore_fields: config.ignore_fields.clone(),
            headers: reach.headers.iter().map(|(name, _)| name.clone()).collect(),
            clients: config.clients,
            requests: config.requests,
            conns: reach.conns,
            tls: reach.grpc_endpoint.starts_with("https://"),
            transports: schedule.transports.clone(),
            iterations: schedule.iterations,
            warmup: config.warmup,
            client_threads: config.client_threads,
            open_loop: schedule.open_loop,
        };
        GrpcReport {
            tool: Tool::this(),
            environment: Host { directpath: "not applicable: any gRPC service".into(), ..Host::here() },
            target: "grpc".into(),
            run_id: ran.run_id,
            started_at: ran.started_at,
            outcome: ran.outcome,
            stopped_because: ran.stopped_because,
            open_loop: said::open_loop_summary("call", schedule.open_loop.as_ref(), &schedule.transports, &rounds),
            config: settings,
            transports,
            comparison,
            cleanup,
            notes: Vec::new(),
            caution: sampled_over(&rounds).as_ref().and_then(SampledAnswers::caution),
            sampled: sampled_over(&rounds),
            rounds,
            hosts: Vec::new(),
            fleet: None,
        }
    }

    pub fn with_notes(mut self, notes: Vec<String>) -> Self {
        self.notes = notes;
        self
    }

    /// Names the host that ran it (`--host-label`), on the report and its rounds.
    pub fn host_label(mut self, label: String) -> Self {
        engine::timeline::label(self.rounds.iter_mut().map(|r| &mut r.span), &label);
        self.environment.host = label;
        self
    }

    /// Every round complete and the cleanup call (if any) answered.
    pub fn succeeded(&self) -> bool {
        self.outcome == RunOutcome::Completed && self.cleanup.error.is_none()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports serialize")
    }

    /// The line above the table: what ran, where.
    pub fn heading(&self) -> String {
        let c = &self.config;
        let http = match c.transports.contains(&TransportKind::Json) {
            true => format!(", HTTP/JSON {} at {}", c.http_mapping, c.http_endpoint),
            false => String::new(),
        };
        // Open loop, the pacer sends a round's calls and --max-in-flight,
        // not the clients, bounds how many are out at once.
        let load = match &c.open_loop {
            Some(open) => {
                // Reports before rounds were slices of time sent clients x requests.
                let calls = open.round_s.map_or(c.clients as u64 * c.requests as u64, |_| open.per_round());
                format!("{} a round at {}", plural(calls as usize, "call"), open.said())
            }
            None => {
                format!("{} x {} a round", plural(c.clients as usize, "client"), plural(c.requests as usize, "call"))
            }
        };
        format!(
            "{}: gRPC at {}{http}; {load}, client on {}",
            c.method,
            c.grpc_endpoint,
            plural(c.client_threads, "thread")
        )
    }

    /// Each row's transport and cells: a merged report's hosts' rows
    /// first, then its fleet rows.
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

    /// The check before the rounds failed: nothing was measured.
    pub fn never_started(&self) -> bool {
        self.outcome == RunOutcome::SetupFailed && self.rounds.is_empty()
    }

    /// The verdict, or why there is none.
    pub fn summary_line(&self) -> String {
        if self.never_started() {
            return format!("nothing measured: {}", self.stopped_because.as_deref().unwrap_or("the run did not start"));
        }
        let verdict = match &self.open_loop {
            Some(open) => open.verdict(),
            None => self.throughput_verdict(),
        };
        match self.caution() {
            Some(caution) => format!("{verdict} · {caution}"),
            None => verdict,
        }
    }

    /// The transports did different work, as the sampled calls found.
    fn caution(&self) -> Option<String> {
        self.caution.clone()
    }

    fn throughput_verdict(&self) -> String {
        match &self.comparison {
            Some(verdict) => verdict.sentence.clone(),
            None if let Some(apart) = self.fleet.as_ref().and_then(|f| f.apart.as_ref()) => {
                format!("no fleet verdict: {apart}")
            }
            None => format!("{}: one transport, no comparison", self.config.method),
        }
    }

    pub fn verdict_lines(&self) -> Vec<String> {
        if self.never_started() {
            return vec![self.summary_line()];
        }
        let throughput = self.throughput_verdict();
        let mut lines = match &self.open_loop {
            Some(open) => vec![open.verdict(), format!("{}{throughput}", open.throughput_said())],
            None => vec![throughput],
        };
        lines.extend(self.caution().map(|caution| format!("  {caution}")));
        lines
    }

    /// What the latencies mean, bytes and CPU per call, notes, outcome, cleanup.
    pub fn footer_lines(&self) -> Vec<String> {
        if self.never_started() {
            // No latencies, bytes or CPU to speak of: only what was left.
            return vec![self.cleanup_line()];
        }
        let mut lines = vec![match self.config.open_loop {
            Some(_) => "p50-p99.9: latency per call from its intended start, over the complete rounds".to_string(),
            None => "p50-p99.9: latency per call, over the complete rounds".to_string(),
        }];
        if let Some(fleet) = &self.fleet {
            let names: Vec<String> = self.transports.iter().map(|t| format!("fleet {}", t.transport.name())).collect();
            lines.extend(fleet.lines(RateUnit::Calls, &names));
        }
        lines.extend(self.transports.iter().map(|t| said::per_call_line(t, "call", None, "")));
        lines.extend(self.transports.iter().filter_map(|t| said::errors_line(t, "call")));
        if let [a, b] = self.transports.as_slice() {
            lines.extend(said::ratios_line(a, b, "call", None));
        }
        lines.extend(self.open_loop.iter().flat_map(|o| o.sentences()));
        lines.extend(self.notes.iter().chain(&self.stopped_because).cloned());
        if self.outcome != RunOutcome::Completed {
            lines.push(format!("outcome: {}", serde_json::to_value(self.outcome).unwrap().as_str().unwrap_or("")));
        }
        lines.push(self.cleanup_line());
        lines
    }

    fn cleanup_line(&self) -> String {
        let c = &self.cleanup;
        match (&c.error, c.called, c.method.is_empty()) {
            (_, _, true) => "cleanup: none asked (--cleanup-method): whatever the calls changed is kept".into(),
            (Some(error), _, _) => format!("cleanup: {} failed: {error}", c.method),
            (None, false, _) => format!("cleanup off: {} was not called", c.method),
            (None, true, _) => format!("cleanup: {} answered", c.method),
        }
    }

    pub fn to_table(&self) -> String {
        if self.never_started() {
            // No table of dashes and no verdict: what ran, why it stopped, the cleanup.
            let lines = [vec![self.heading(), String::new()], self.verdict_lines(), self.footer_lines()].concat();
            return lines.iter().map(|l| format!("{l}\n")).collect();
        }
        let mut rows = vec![said::table_headers("Calls/s").map(String::from).to_vec()];
        rows.extend(self.table_lines().into_iter().map(|(_, cells)| cells));
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

    /// One row per round, each naming its run, target and method.
    pub fn to_csv(&self) -> String {
        let mut out = format!("{},run_id,target,method\n", said::ROUND_CSV_HEADER);
        for r in &self.rounds {
            let mut fields = said::round_csv_fields(r);
            fields.extend([self.run_id.clone(), self.config.grpc_endpoint.clone(), self.config.method.clone()]);
            let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }
}
