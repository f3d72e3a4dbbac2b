//! A finished run of any target, as the CLI and the app print, keep and
//! compare it: what the front ends add to `FinishedRun` (which `Finished`
//! derefs to), none of it particular to a target.

pub use crate::targets::Finished;

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

    /// What `threshold` asks of this report (see `engine::threshold`).
    pub fn crossed(&self, threshold: &crate::engine::threshold::Threshold) -> Vec<String> {
        threshold.crossed(&self.figures(threshold.metric, threshold.transport))
    }

    /// As `--format` asks.
    pub fn render(&self, format: crate::cli::Format) -> String {
        match format {
            crate::cli::Format::Table => self.to_table(),
            crate::cli::Format::Json => self.to_json() + "\n",
            crate::cli::Format::Csv => self.to_csv(),
        }
    }
}
