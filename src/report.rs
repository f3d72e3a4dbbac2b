//! A finished run, and its three renderings: the original tool's table, JSON
//! (stable field names) and CSV (one row per object).

use crate::compare::{Comparison, compare};
use crate::config::BenchConfig;
use crate::stats::{ObjectSample, RoundSample, TransportSummary};
use crate::target::TargetInfo;
use crate::units::{format_mib_s, format_seconds, format_size};

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    Completed,
    Cancelled,
    TimedOut,
    FailedFast,
}

#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Cleanup {
    pub deleted: usize,
    /// Objects that should have been deleted but could not be.
    pub left: Vec<String>,
    /// Objects kept on purpose (`--cleanup=false`).
    pub kept: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Tool {
    pub name: &'static str,
    pub version: &'static str,
}

/// Where the run ran, for reading a report later.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Host {
    pub os: String,
    pub kernel: String,
    pub arch: &'static str,
    pub cpus: usize,
    pub directpath: &'static str,
}

impl Host {
    pub fn here() -> Self {
        Self {
            os: std::env::consts::OS.to_string(),
            kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim().to_string(),
            arch: std::env::consts::ARCH,
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            directpath: "not used: DirectPath needs xDS and ALTS, which tonic lacks; gRPC goes to the public endpoint",
        }
    }
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RunReport {
    pub tool: Tool,
    pub environment: Host,
    pub run_id: String,
    pub started_at: String,
    pub outcome: RunOutcome,
    pub target: TargetInfo,
    pub config: BenchConfig,
    pub transports: Vec<TransportSummary>,
    pub comparison: Option<Comparison>,
    pub cleanup: Cleanup,
    pub rounds: Vec<RoundSample>,
    pub samples: Vec<ObjectSample>,
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
        let comparison = compare(&transports, &rounds);
        Self {
            tool: Tool { name: env!("CARGO_PKG_NAME"), version: env!("CARGO_PKG_VERSION") },
            environment: Host::here(),
            run_id,
            started_at,
            outcome,
            target,
            config,
            transports,
            comparison,
            cleanup,
            rounds,
            samples,
        }
    }

    /// Every upload succeeded, the schedule ran to its end and nothing was left behind.
    pub fn succeeded(&self) -> bool {
        self.outcome == RunOutcome::Completed && self.samples.iter().all(|s| s.ok) && self.cleanup.left.is_empty()
    }

    pub fn failed_uploads(&self) -> usize {
        self.samples.iter().filter(|s| !s.ok).count()
    }

    /// The verdict in one sentence.
    pub fn summary_line(&self) -> String {
        match (&self.comparison, self.transports.len()) {
            (Some(comparison), _) => comparison.sentence(),
            (None, 1) => format!(
                "{}: {}",
                self.transports[0].transport.name(),
                format_mib_s(self.transports[0].throughput_mib_s)
            ),
            (None, _) => "no comparison: a transport finished no timed round".into(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports serialize")
    }

    pub fn to_csv(&self) -> String {
        let mut out = String::from("transport,round,worker,object,bytes,start_s,elapsed_s,ok,error\n");
        for s in &self.samples {
            out.push_str(&format!(
                "{},{},{},{},{},{:.6},{:.6},{},{}\n",
                s.transport.name(),
                s.round + 1,
                s.worker,
                csv_field(&s.object),
                s.bytes,
                s.start_s,
                s.elapsed_s,
                s.ok,
                csv_field(s.error.as_deref().unwrap_or(""))
            ));
        }
        out
    }

    pub fn to_table(&self) -> String {
        let mut rows = vec![TABLE_HEADERS.map(String::from).to_vec()];
        rows.extend(table_rows(self));
        let widths: Vec<usize> =
            (0..TABLE_HEADERS.len()).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
        let mut out = String::new();
        for row in &rows {
            let cells: Vec<String> = row
                .iter()
                .zip(&widths)
                .enumerate()
                .map(|(i, (cell, w))| if i == 0 { format!("{cell:<w$}") } else { format!("{cell:>w$}") })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        }
        out.push('\n');
        out.push_str(&self.summary_line());
        out.push('\n');
        for line in self.footer_lines() {
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// Protocols, outcome and cleanup, said after the table.
    pub fn footer_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for t in &self.transports {
            let connections =
                if t.connections == 1 { "1 connection".to_string() } else { format!("{} connections", t.connections) };
            lines.push(format!(
                "{}: {}, {connections}, wire {:.3}x payload, client CPU {:.2} s/GiB, per object {}",
                t.transport.name(),
                t.protocol,
                t.wire_ratio,
                t.cpu_s_per_gib,
                format_mib_s(t.per_object_mib_s)
            ));
            let recovery = if t.retries + t.resumes > 0 {
                format!(" · {} retries, {} resumes, {} re-sent", t.retries, t.resumes, format_size(t.resent_bytes))
            } else {
                String::new()
            };
            lines.push(format!(
                "  median phases: session {} · transfer {} · finalize {}{recovery}",
                format_seconds(t.session_median_s),
                format_seconds(t.transfer_median_s),
                format_seconds(t.finalize_median_s)
            ));
        }
        match self.outcome {
            RunOutcome::Completed => {}
            RunOutcome::Cancelled => {
                lines.push("the run was cancelled: the figures cover the rounds that finished".into())
            }
            RunOutcome::FailedFast => lines.push("stopped at the first failed upload (--fail-fast)".into()),
            RunOutcome::TimedOut => lines.push(format!(
                "the run hit --timeout {}: the figures cover the rounds that finished",
                crate::units::format_duration(self.config.timeout)
            )),
        }
        let failed = self.failed_uploads();
        if failed > 0 {
            lines.push(format!("{failed} upload(s) failed"));
        }
        if self.cleanup.kept.is_empty() {
            lines.push(format!("cleanup: deleted {}, left {}", self.cleanup.deleted, self.cleanup.left.len()));
        } else {
            lines.push(format!(
                "cleanup off: kept {} object(s) under {}/{}",
                self.cleanup.kept.len(),
                self.config.prefix,
                self.run_id
            ));
        }
        for name in &self.cleanup.left {
            lines.push(format!("left behind: {name}"));
        }
        lines
    }
}

pub const TABLE_HEADERS: [&str; 12] =
    ["Transport", "Runs", "Bytes/run", "Min", "Median", "Mean", "Max", "p50", "p90", "p99", "Throughput", "Errors"];

/// The table's cells, shared by the text table and the TUI.
pub fn table_rows(report: &RunReport) -> Vec<Vec<String>> {
    report
        .transports
        .iter()
        .map(|t| {
            let seconds = |s: f64| {
                if t.runs == 0 { "-".to_string() } else { format_seconds(s) }
            };
            let object_seconds = |s: f64| {
                if t.objects == 0 { "-".to_string() } else { format_seconds(s) }
            };
            vec![
                t.transport.name().to_string(),
                t.runs.to_string(),
                format_size(t.bytes_per_run),
                seconds(t.min_s),
                seconds(t.median_s),
                seconds(t.mean_s),
                seconds(t.max_s),
                object_seconds(t.p50_s),
                object_seconds(t.p90_s),
                object_seconds(t.p99_s),
                format_mib_s(t.throughput_mib_s),
                t.errors.to_string(),
            ]
        })
        .collect()
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) { format!("\"{}\"", text.replace('"', "\"\"")) } else { text.to_string() }
}

#[cfg(test)]
mod tests {
    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(super::csv_field("plain"), "plain");
        assert_eq!(super::csv_field("a,b \"c\""), "\"a,b \"\"c\"\"\"");
    }
}
