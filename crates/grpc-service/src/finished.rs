//! A `grpc run` report as every front end reads a finished run (`FinishedRun`).

use crate::report::{GrpcReport, PRIORITY};
use engine::calls::said;
use engine::finished::{FinishedRun, Leftovers, RatioFigure, RowCost, RowRate, Table, histograms_fit};
use engine::plan::TransportKind;
use engine::threshold::{Figure, Metric};
use units::RateUnit;

impl FinishedRun for GrpcReport {
    fn target(&self) -> &'static str {
        "grpc"
    }

    fn kind_said(&self) -> &'static str {
        "a gRPC service"
    }

    fn work_said(&self) -> String {
        format!("{} calls", self.config.method)
    }

    /// `etcdserverpb.KV/Put x3 10 clients x 1000`.
    fn key_options(&self) -> String {
        let c = &self.config;
        let clients = engine::report::plural(c.clients as usize, "client");
        format!("{} x{} {clients} x {}", c.method, c.iterations, c.requests)
    }

    engine::report_envelope!();

    fn succeeded(&self) -> bool {
        GrpcReport::succeeded(self)
    }

    fn summary_line(&self) -> String {
        GrpcReport::summary_line(self)
    }

    fn verdict_lines(&self) -> Vec<String> {
        GrpcReport::verdict_lines(self)
    }

    fn footer_lines(&self) -> Vec<String> {
        GrpcReport::footer_lines(self)
    }

    fn table(&self) -> Table {
        // A run that never started has no row to show, not a row of dashes.
        let lines = if self.never_started() { Vec::new() } else { self.table_lines() };
        let (kinds, rows) = lines.into_iter().unzip();
        Table { headers: said::table_headers("Calls/s").to_vec(), rows, kinds, priority: &PRIORITY }
    }

    fn to_json(&self) -> String {
        GrpcReport::to_json(self)
    }

    fn to_table(&self) -> String {
        GrpcReport::to_table(self)
    }

    fn to_csv(&self) -> String {
        GrpcReport::to_csv(self)
    }

    fn figures(&self, metric: Metric, transport: Option<TransportKind>) -> Vec<Figure> {
        said::figures(&self.transports, metric, transport)
    }

    /// `etcdserverpb.KV/Put 127.0.0.1:2379`.
    fn short_target(&self) -> String {
        let endpoint = &self.config.grpc_endpoint;
        format!("{} {}", self.config.method, endpoint.split("://").last().unwrap_or(endpoint))
    }

    fn place(&self) -> String {
        format!("{} at {} and {}", self.config.method, self.config.grpc_endpoint, self.config.http_endpoint)
    }

    fn row_rates(&self) -> Vec<RowRate> {
        self.transports.iter().map(|t| (t.transport, format!("{} call", t.transport.name()), t.ops_per_s)).collect()
    }

    fn unit(&self) -> RateUnit {
        RateUnit::Calls
    }

    fn ratios(&self) -> Vec<RatioFigure> {
        said::ratios(self.comparison.as_ref().map(|v| &v.comparison))
    }

    fn costs(&self) -> Vec<RowCost> {
        said::costs(&self.transports, "call")
    }

    fn round_rates(&self) -> Vec<engine::finished::RoundRate> {
        said::round_rates(&self.rounds, "call", self.hosts.len() > 1)
    }

    fn latency_histograms(&self) -> Vec<(String, hdrhistogram::Histogram<u64>)> {
        said::latency_histograms(&self.transports, "call")
    }

    fn open_loop(&self) -> Vec<engine::open_loop::OpenLoopSummary> {
        self.open_loop.iter().cloned().collect()
    }

    /// What the cleanup method failed to delete is named by the method; what
    /// it deleted is not counted (its answer need not say), and only a
    /// method not called on purpose (`--cleanup=false`) keeps anything.
    fn leftovers(&self) -> Leftovers {
        let c = &self.cleanup;
        let left = c.error.iter().map(|_| format!("what {} would have deleted", c.method)).collect();
        Leftovers { deleted: 0, left, kept: usize::from(!c.method.is_empty() && !c.called) }
    }

    fn config_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.config).unwrap_or_default()
    }

    fn histograms_add_up(&self) -> Result<(), String> {
        let texts = self.transports.iter().filter_map(|t| t.latency_histogram.as_deref());
        let rounds = self.rounds.iter().map(|round| &round.latency);
        histograms_fit(texts, rounds, engine::open_loop::latency_histogram().high())
    }

    fn has_round_times(&self) -> bool {
        self.rounds.iter().all(|round| round.span.wall_micros().is_some())
    }
}
