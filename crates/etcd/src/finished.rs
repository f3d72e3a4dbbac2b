//! An etcd report as every front end reads a finished run (`FinishedRun`).

use super::merge::operation;
use super::options::Mode;
use super::report::EtcdReport;
use engine::finished::{FinishedRun, Leftovers, RatioFigure, RowCost, RowRate, Table, histograms_fit};
use engine::plan::TransportKind;
use engine::threshold::{Figure, Metric};
use units::RateUnit;

/// The table's columns in the order a reader needs them when space is short.
const PRIORITY: [usize; 10] = [0, 3, 4, 6, 8, 2, 9, 5, 7, 1];

impl FinishedRun for EtcdReport {
    fn target(&self) -> &'static str {
        "etcd"
    }

    fn kind_said(&self) -> &'static str {
        "an etcd"
    }

    fn work_said(&self) -> String {
        format!("etcd {}", operation(self.config.mode))
    }

    /// `put x3 10 clients x 8000, 256 B values`.
    fn key_options(&self) -> String {
        let c = &self.config;
        let mode = operation(c.mode);
        let clients = engine::report::plural(c.clients as usize, "client");
        format!("{mode} x{} {clients} x {}, {} B values", c.iterations, c.requests, c.value_size)
    }

    engine::report_envelope!();

    fn succeeded(&self) -> bool {
        EtcdReport::succeeded(self)
    }

    fn summary_line(&self) -> String {
        EtcdReport::summary_line(self)
    }

    fn verdict_lines(&self) -> Vec<String> {
        EtcdReport::verdict_lines(self)
    }

    fn footer_lines(&self) -> Vec<String> {
        EtcdReport::footer_lines(self)
    }

    fn table(&self) -> Table {
        let (kinds, rows) = self.table_lines().into_iter().unzip();
        Table { headers: self.table_headers().to_vec(), rows, kinds, priority: &PRIORITY }
    }

    fn to_json(&self) -> String {
        EtcdReport::to_json(self)
    }

    fn to_table(&self) -> String {
        EtcdReport::to_table(self)
    }

    fn to_csv(&self) -> String {
        EtcdReport::to_csv(self)
    }

    fn figures(&self, metric: Metric, transport: Option<TransportKind>) -> Vec<Figure> {
        EtcdReport::figures(self, metric, transport)
    }

    /// `etcd 127.0.0.1:2379`: the endpoints without their schemes.
    fn short_target(&self) -> String {
        let hosts: Vec<&str> = self.config.endpoints.iter().map(|e| e.split("://").last().unwrap_or(e)).collect();
        format!("etcd {}", hosts.join(","))
    }

    fn place(&self) -> String {
        format!("etcd {:?}", self.config.endpoints)
    }

    fn row_rates(&self) -> Vec<RowRate> {
        let operation = operation(self.config.mode);
        self.transports
            .iter()
            .map(|t| (t.transport, format!("{} {operation}", t.transport.name()), t.ops_per_s))
            .collect()
    }

    fn unit(&self) -> RateUnit {
        match self.config.mode {
            Mode::Watch => RateUnit::Events,
            Mode::Put | Mode::Range => RateUnit::Ops,
        }
    }

    fn ratios(&self) -> Vec<RatioFigure> {
        EtcdReport::ratios(self)
    }

    fn costs(&self) -> Vec<RowCost> {
        EtcdReport::costs(self)
    }

    fn round_rates(&self) -> Vec<engine::finished::RoundRate> {
        EtcdReport::round_rates(self)
    }

    fn latency_histograms(&self) -> Vec<(String, hdrhistogram::Histogram<u64>)> {
        EtcdReport::latency_histograms(self)
    }

    fn open_loop(&self) -> Vec<engine::open_loop::OpenLoopSummary> {
        self.open_loop.iter().cloned().collect()
    }

    /// Keys left behind are named by the prefix that holds them.
    fn leftovers(&self) -> Leftovers {
        let c = &self.cleanup;
        let left = if c.error.is_some() { vec![format!("etcd keys under {}", c.prefix)] } else { Vec::new() };
        Leftovers { deleted: c.deleted as usize, left, kept: usize::from(c.kept) }
    }

    fn config_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.config).unwrap_or_default()
    }

    fn histograms_add_up(&self) -> Result<(), String> {
        let texts = self.transports.iter().filter_map(|t| t.latency_histogram.as_deref());
        let rounds = self.rounds.iter().map(|round| &round.latency);
        histograms_fit(texts, rounds, super::workload::latency_histogram().high())
    }

    fn has_round_times(&self) -> bool {
        self.rounds.iter().all(|round| round.span.wall_micros().is_some())
    }
}
