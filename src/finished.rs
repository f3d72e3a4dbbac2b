//! A finished run of any target, as the CLI and the app print, keep and
//! compare it: what the front ends add to `FinishedRun` (which `Finished`
//! derefs to), none of it particular to a target.

use crate::engine::finished::RatioFigure;
pub use crate::targets::Finished;

/// How an open-loop run's ratio is named: HTTP/JSON's p99 over gRPC's.
pub const OPEN_LOOP_RATIO: &str = "http-json/grpc p99 latency of";

impl Finished {
    /// Where it ran, briefly, and how many hosts a merged one had.
    pub fn place_said(&self) -> String {
        match self.fleet_size() {
            Some(n) => format!("fleet of {n} · {}", self.short_target()),
            None => self.short_target(),
        }
    }

    /// A merged report's number of hosts.
    pub fn fleet_size(&self) -> Option<usize> {
        Some(self.merged_hosts()).filter(|&hosts| hosts > 0)
    }

    /// Both went to the same place (a comparison of options, not of targets).
    pub fn same_place(&self, other: &Finished) -> bool {
        self.target() == other.target() && self.place() == other.place()
    }

    /// What `threshold` asks of this report (see `engine::threshold`):
    /// `ratio` is the run's one ratio per operation, as its verdict quotes it.
    pub fn crossed(&self, threshold: &crate::engine::threshold::Threshold) -> Vec<String> {
        if threshold.metric == crate::engine::threshold::Metric::Ratio {
            let figures: Vec<_> = self.headline_ratios().into_iter().map(|r| (r.name, r.ratio)).collect();
            return threshold.crossed(&figures);
        }
        threshold.crossed(&self.figures(threshold.metric, threshold.transport))
    }

    /// The run's one ratio per operation, above 1.0x gRPC ahead, as its
    /// verdict quotes it (the geometric mean of its paired rounds): gRPC's
    /// rate over HTTP/JSON's; in open loop, where the offered rate sets both
    /// rates, HTTP/JSON's p99 latency from intended start over gRPC's. What
    /// a sweep's point, and `--fail-if ratio`, are judged on.
    pub fn headline_ratios(&self) -> Vec<RatioFigure> {
        let open = self.open_loop();
        if open.is_empty() {
            return self.ratios();
        }
        let figure = |summary: &crate::engine::open_loop::OpenLoopSummary| {
            let p99 = summary.ratios.iter().find(|r| r.percentile == "p99")?;
            Some(RatioFigure {
                name: format!("{OPEN_LOOP_RATIO} {}s", summary.work),
                ratio: p99.json_over_grpc,
                interval: p99.ci_low.zip(p99.ci_high),
                readable: p99.readable(),
            })
        };
        open.iter().filter_map(figure).collect()
    }

    /// As `--format` asks.
    pub fn render(&self, format: crate::cli::Format) -> String {
        match format {
            crate::cli::Format::Table => self.to_table(),
            crate::cli::Format::Json => self.to_json() + "\n",
            crate::cli::Format::Csv => self.to_csv(),
            crate::cli::Format::Html => crate::html::run_page(self),
        }
    }
}
