//! A GCS report as every front end reads a finished run (`FinishedRun`).

use super::{RunReport, Shown, TABLE_HEADERS, table_lines};
use crate::config::Workload;
use engine::finished::{FinishedRun, Leftovers, RatioFigure, RowCost, RowRate, Table, histograms_fit};
use engine::plan::TransportKind;
use engine::threshold::{Figure, Metric};
use units::{RateUnit, format_size, format_size_exact};

/// The table's columns in the order a reader needs them when space is short.
const PRIORITY: [usize; 12] = [0, 10, 4, 7, 9, 1, 11, 5, 8, 3, 6, 2];

impl FinishedRun for RunReport {
    fn target(&self) -> &'static str {
        "gcs"
    }

    fn kind_said(&self) -> &'static str {
        "a GCS"
    }

    fn label_host(&mut self, label: String) {
        self.label_rounds_and_host(label);
    }

    fn merged_with(&self, reports: &[&dyn FinishedRun]) -> Box<dyn FinishedRun> {
        let own = reports.iter().filter_map(|r| r.as_any().downcast_ref::<RunReport>());
        Box::new(super::merge::merge(own.flat_map(|r| r.host_runs()).collect(), self))
    }

    fn work_said(&self) -> String {
        match self.config.workload {
            Workload::W1r3 => "GCS w1r3 (uploads, then reads)".to_string(),
            workload => format!("GCS {}", workload.noun()),
        }
    }

    /// `upload 64MiB x3 c1 chunk 16 MiB crc32c`.
    fn key_options(&self) -> String {
        let c = &self.config;
        let chunk =
            if c.chunk_size == 0 { "one request".to_string() } else { format!("chunk {}", format_size(c.chunk_size)) };
        let checksum = match (c.json_checksum, c.grpc_checksum) {
            (true, true) => "crc32c",
            (false, false) => "no checksum",
            (true, false) => "crc32c (not gRPC)",
            (false, true) => "crc32c (gRPC only)",
        };
        let (workload, size) = (c.workload.name(), format_size_exact(c.object_size));
        let rounds = engine::folded::rounds_run(&self.rounds);
        format!("{workload} {size} x{rounds} c{} {chunk} {checksum}", c.concurrency)
    }

    engine::report_envelope!();

    fn succeeded(&self) -> bool {
        RunReport::succeeded(self)
    }

    fn summary_line(&self) -> String {
        RunReport::summary_line(self)
    }

    fn verdict_lines(&self) -> Vec<String> {
        RunReport::verdict_lines(self)
    }

    fn footer_lines(&self) -> Vec<String> {
        RunReport::footer_lines(self)
    }

    fn table(&self) -> Table {
        let (kinds, rows) = table_lines(self).into_iter().unzip();
        Table { headers: TABLE_HEADERS.to_vec(), rows, kinds, priority: &PRIORITY }
    }

    fn to_json(&self) -> String {
        RunReport::to_json(self)
    }

    fn to_table(&self) -> String {
        RunReport::to_table(self)
    }

    fn to_csv(&self) -> String {
        RunReport::to_csv(self)
    }

    fn figures(&self, metric: Metric, transport: Option<TransportKind>) -> Vec<Figure> {
        RunReport::figures(self, metric, transport)
    }

    fn short_target(&self) -> String {
        self.target.short()
    }

    /// The kind, the bucket, the fault, and the endpoints unless they were
    /// a built-in emulator's (each run had its own, on its own port).
    fn place(&self) -> String {
        let t = &self.target;
        let endpoints = (t.kind != "emulator").then_some((&t.json_endpoint, &t.grpc_endpoint));
        format!("gcs {} {:?} {:?} {:?}", t.kind, t.bucket, t.emulator_fault, endpoints)
    }

    fn ran_on_own_server(&self) -> bool {
        self.target.kind == "emulator"
    }

    fn row_rates(&self) -> Vec<RowRate> {
        self.transports.iter().map(|t| (t.transport, transport_and_operation(t), t.throughput_mib_s)).collect()
    }

    /// Objects/s when the report judged small objects by their count.
    fn judged_rates(&self) -> Vec<RowRate> {
        match self.judged_on_items() {
            true => {
                self.transports.iter().map(|t| (t.transport, transport_and_operation(t), t.objects_per_s)).collect()
            }
            false => self.row_rates(),
        }
    }

    fn judged_on_items(&self) -> bool {
        Shown::of(self).small
    }

    fn unit(&self) -> RateUnit {
        self.config.rate_unit
    }

    fn ratios(&self) -> Vec<RatioFigure> {
        RunReport::ratios(self)
    }

    fn costs(&self) -> Vec<RowCost> {
        RunReport::costs(self)
    }

    fn round_rates(&self) -> Vec<engine::finished::RoundRate> {
        RunReport::round_rates(self)
    }

    fn latency_histograms(&self) -> Vec<(String, hdrhistogram::Histogram<u64>)> {
        RunReport::latency_histograms(self)
    }

    fn open_loop(&self) -> Vec<engine::open_loop::OpenLoopSummary> {
        self.open_loop.clone()
    }

    fn leftovers(&self) -> Leftovers {
        let c = &self.cleanup;
        Leftovers { deleted: c.deleted, left: c.left.clone(), kept: c.kept.len() }
    }

    fn config_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.config).unwrap_or_default()
    }

    fn histograms_add_up(&self) -> Result<(), String> {
        let texts = self.transports.iter().filter_map(|t| t.latency_histogram.as_deref());
        histograms_fit(texts, std::iter::empty(), crate::stats::latency_histogram(&[]).high())
    }

    fn has_round_times(&self) -> bool {
        self.rounds.iter().all(|round| round.span.wall_micros().is_some())
    }
}

/// `grpc upload`: the transport and the operation, so that rows compare by
/// what they did.
fn transport_and_operation(t: &crate::stats::TransportSummary) -> String {
    format!("{} {}", t.transport.name(), t.operation.name())
}
