//! A report of calls in words: the table with the verdict above its
//! footer, the verdict a line each, and CSV (one row per round, each naming
//! its run and what it measured).

use super::report::{CallCleanup, CallSettings, CallsReport};
use super::said;
use crate::plan::TransportKind;
use crate::report::{RunOutcome, aligned, csv_field};

impl<S: CallSettings, C: CallCleanup> CallsReport<S, C> {
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

    /// The table's header, shared by the text table and the app.
    pub fn table_headers(&self) -> [&'static str; 10] {
        said::table_headers(self.config.rate_header())
    }

    /// The verdict, or why there is none: in open loop on latency at the
    /// offered rate (which sets the throughput); with the caution when the
    /// transports' sampled answers differed.
    pub fn summary_line(&self) -> String {
        if self.never_started() {
            return format!("nothing measured: {}", self.stopped_because.as_deref().unwrap_or("the run did not start"));
        }
        let verdict = match &self.open_loop {
            Some(open) => open.verdict(),
            None => self.throughput_verdict(),
        };
        match &self.caution {
            Some(caution) => format!("{verdict} · {caution}"),
            None => verdict,
        }
    }

    fn throughput_verdict(&self) -> String {
        match &self.comparison {
            Some(verdict) => verdict.sentence.clone(),
            None if let Some(apart) = self.fleet.as_ref().and_then(|f| f.apart.as_ref()) => {
                format!("no fleet verdict: {apart}")
            }
            None => format!("{}: one transport, no comparison", self.config.alone_said()),
        }
    }

    /// The verdict a line each: in open loop on latency, then on throughput.
    pub fn verdict_lines(&self) -> Vec<String> {
        if self.never_started() {
            return vec![self.summary_line()];
        }
        let throughput = self.throughput_verdict();
        let mut lines = match &self.open_loop {
            Some(open) => vec![open.verdict(), format!("{}{throughput}", open.throughput_said())],
            None => vec![throughput],
        };
        lines.extend(self.caution.as_ref().map(|caution| format!("  {caution}")));
        lines
    }

    /// What the latencies mean, bytes and CPU per item, notes, outcome, cleanup.
    pub fn footer_lines(&self) -> Vec<String> {
        if self.never_started() {
            // No latencies, bytes or CPU to speak of: only what was left.
            return vec![self.cleanup.said()];
        }
        let c = &self.config;
        let mut lines = vec![c.latency_said()];
        if let Some(fleet) = &self.fleet {
            let names: Vec<String> = self.transports.iter().map(|t| format!("fleet {}", t.transport.name())).collect();
            lines.extend(fleet.lines(c.unit(), &names));
        }
        // A fleet's server CPU is not summed (see its note), not unread.
        let unread = if self.hosts.len() > 1 { "not merged" } else { "not read" };
        lines.extend(self.transports.iter().map(|t| said::per_call_line(t, c.item(), c.server_cpu(), unread)));
        lines.extend(self.transports.iter().filter_map(|t| said::errors_line(t, c.request_said())));
        lines.extend(self.transports.iter().filter_map(said::messages_line));
        if let [a, b] = self.transports.as_slice() {
            lines.extend(said::ratios_line(a, b, c.item(), c.server_cpu()));
        }
        lines.extend(self.open_loop.iter().flat_map(|o| o.sentences()));
        lines.extend(crate::folded::said(self.rounds.iter().map(|r| r.rounds_held)));
        lines.extend(self.notes.iter().chain(&self.stopped_because).cloned());
        if self.outcome != RunOutcome::Completed {
            lines.push(format!("outcome: {}", serde_json::to_value(self.outcome).unwrap().as_str().unwrap_or("")));
        }
        lines.push(self.cleanup.said());
        lines
    }

    pub fn to_table(&self) -> String {
        if self.never_started() {
            // No table of dashes and no verdict: what ran, why it stopped, the cleanup.
            let lines =
                [vec![self.config.heading(), String::new()], self.verdict_lines(), self.footer_lines()].concat();
            return lines.iter().map(|l| format!("{l}\n")).collect();
        }
        let mut rows = vec![self.table_headers().map(String::from).to_vec()];
        rows.extend(self.table_lines().into_iter().map(|(_, cells)| cells));
        let mut out = format!("{}\n\n{}\n", self.config.heading(), aligned(&rows));
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

    /// One row per round, each naming its run and what it measured, so that
    /// a CSV alone says what was measured.
    pub fn to_csv(&self) -> String {
        let (columns, values) = self.config.csv_columns();
        let mut out = format!("{},run_id,{columns}\n", said::ROUND_CSV_HEADER);
        for r in &self.rounds {
            let mut fields = said::round_csv_fields(r);
            fields.push(self.run_id.clone());
            fields.extend(values.iter().cloned());
            let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }
}
