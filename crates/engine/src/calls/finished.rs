//! A report of calls as every front end reads a finished run
//! (`FinishedRun`): written once for every target whose work is calls.

use super::report::{CallCleanup, CallSettings, CallsReport};
use super::said;
use crate::finished::{FinishedRun, Leftovers, RatioFigure, RoundRate, RowCost, RowRate, Table, histograms_fit};
use crate::plan::TransportKind;
use crate::threshold::{Figure, Metric};
use units::RateUnit;

/// The table's columns in the order a reader needs them when space is short.
const PRIORITY: [usize; 10] = [0, 3, 4, 6, 8, 2, 9, 5, 7, 1];

impl<S, C> FinishedRun for CallsReport<S, C>
where
    S: CallSettings + serde::Serialize + std::fmt::Debug + Clone + PartialEq + Send + Sync + 'static,
    C: CallCleanup + serde::Serialize + std::fmt::Debug + Clone + PartialEq + Send + Sync + 'static,
{
    fn target(&self) -> &'static str {
        S::TARGET
    }

    fn kind_said(&self) -> &'static str {
        S::KIND
    }

    fn label_host(&mut self, label: String) {
        self.label_rounds_and_host(label);
    }

    fn merged_with(&self, reports: &[&dyn FinishedRun]) -> Box<dyn FinishedRun> {
        let own = reports.iter().filter_map(|r| r.as_any().downcast_ref::<Self>());
        Box::new(Self::merge(own.flat_map(|r| r.host_runs()).collect(), self))
    }

    fn work_said(&self) -> String {
        self.config.work_said()
    }

    fn key_options(&self) -> String {
        self.config.key_options(crate::folded::rounds_run(&self.rounds))
    }

    crate::report_envelope!();

    fn succeeded(&self) -> bool {
        CallsReport::succeeded(self)
    }

    fn summary_line(&self) -> String {
        CallsReport::summary_line(self)
    }

    fn verdict_lines(&self) -> Vec<String> {
        CallsReport::verdict_lines(self)
    }

    fn footer_lines(&self) -> Vec<String> {
        CallsReport::footer_lines(self)
    }

    fn table(&self) -> Table {
        // A run that never started has no row to show, not a row of dashes.
        let lines = if self.never_started() { Vec::new() } else { self.table_lines() };
        let (kinds, rows) = lines.into_iter().unzip();
        Table { headers: self.table_headers().to_vec(), rows, kinds, priority: &PRIORITY }
    }

    fn to_json(&self) -> String {
        CallsReport::to_json(self)
    }

    fn to_table(&self) -> String {
        CallsReport::to_table(self)
    }

    fn to_csv(&self) -> String {
        CallsReport::to_csv(self)
    }

    fn figures(&self, metric: Metric, transport: Option<TransportKind>) -> Vec<Figure> {
        said::figures(&self.transports, metric, transport)
    }

    fn short_target(&self) -> String {
        self.config.short_target()
    }

    fn place(&self) -> String {
        self.config.place()
    }

    fn row_rates(&self) -> Vec<RowRate> {
        let operation = self.config.operation();
        self.transports
            .iter()
            .map(|t| (t.transport, format!("{} {operation}", t.transport.name()), t.ops_per_s))
            .collect()
    }

    fn unit(&self) -> RateUnit {
        self.config.unit()
    }

    /// gRPC over HTTP/JSON, with the ratio's interval.
    fn ratios(&self) -> Vec<RatioFigure> {
        said::ratios(self.comparison.as_ref().map(|v| &v.comparison))
    }

    /// Each row's client CPU per item and connections.
    fn costs(&self) -> Vec<RowCost> {
        said::costs(&self.transports, self.config.operation())
    }

    /// Complete rounds' items per second.
    fn round_rates(&self) -> Vec<RoundRate> {
        said::round_rates(&self.rounds, self.config.operation(), self.hosts.len() > 1)
    }

    /// Each transport's latency histogram, µs (the rows without one left out).
    fn latency_histograms(&self) -> Vec<(String, hdrhistogram::Histogram<u64>)> {
        said::latency_histograms(&self.transports, self.config.operation())
    }

    fn open_loop(&self) -> Vec<crate::open_loop::OpenLoopSummary> {
        self.open_loop.iter().cloned().collect()
    }

    fn leftovers(&self) -> Leftovers {
        self.cleanup.leftovers()
    }

    fn config_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.config).unwrap_or_default()
    }

    fn histograms_add_up(&self) -> Result<(), String> {
        let texts = self.transports.iter().filter_map(|t| t.latency_histogram.as_deref());
        let rounds = self.rounds.iter().map(|round| &round.latency);
        histograms_fit(texts, rounds, crate::open_loop::HIGHEST_LATENCY_US)
    }

    fn has_round_times(&self) -> bool {
        self.rounds.iter().all(|round| round.span.wall_micros().is_some())
    }
}
