//! Every run of the session, and the comparison of two of them.

use crate::engine::plan::TransportKind;
use crate::finished::Finished;

#[derive(Default)]
pub struct History {
    /// Runs of earlier sessions first (read from disk), then this session's.
    pub runs: Vec<Finished>,
    /// How many of `runs` came from earlier sessions.
    pub earlier: usize,
    pub selected: usize,
    /// The run marked with Space: the base the selected run is compared to.
    pub marked: Option<usize>,
}

impl History {
    /// Starts from the runs kept by earlier sessions.
    pub fn with_earlier(runs: Vec<Finished>) -> Self {
        let earlier = runs.len();
        Self { selected: earlier.saturating_sub(1), runs, earlier, marked: None }
    }

    /// Runs of this session only.
    pub fn this_session(&self) -> &[Finished] {
        &self.runs[self.earlier..]
    }

    pub fn push(&mut self, report: Finished) {
        self.runs.push(report);
        self.selected = self.runs.len() - 1;
    }

    pub fn move_by(&mut self, step: isize) {
        if !self.runs.is_empty() {
            let last = self.runs.len() as isize - 1;
            self.selected = (self.selected as isize + step).clamp(0, last) as usize;
        }
    }

    pub fn toggle_mark(&mut self) {
        self.marked = if self.marked == Some(self.selected) { None } else { Some(self.selected) };
    }

    pub fn selected_run(&self) -> Option<&Finished> {
        self.runs.get(self.selected)
    }

    /// (base, other) when two different runs are chosen.
    pub fn pair(&self) -> Option<(&Finished, &Finished)> {
        let base = self.marked?;
        (base != self.selected).then(|| (&self.runs[base], &self.runs[self.selected]))
    }
}

/// A rate as the run's report shows it: `12.40 MiB/s`, `4500 ops/s`, `812.3 objects/s`.
pub fn format_rate(report: &Finished, rate: f64) -> String {
    if report.judged_on_items() {
        format!("{} objects/s", crate::units::significant(rate, 4))
    } else {
        report.unit().format(rate)
    }
}

/// A transport's rate as the history shows it: the one the report judged on.
pub fn shown_rate(report: &Finished, kind: TransportKind) -> String {
    let rate = report.judged_rates().into_iter().find(|(k, ..)| *k == kind).and_then(|(.., rate)| rate);
    rate.map_or_else(|| "-".into(), |rate| format_rate(report, rate))
}

/// Per row both runs have (a transport, or a transport's uploads or reads):
/// its transport, name, base rate, other rate and change in percent, in the
/// rate each report judged on; none between runs of different units (MiB/s
/// against ops/s, or objects/s), and none for rows one run does not have
/// (an upload against a download).
pub fn differences(base: &Finished, other: &Finished) -> Vec<(TransportKind, String, f64, f64, f64)> {
    let unit = |r: &Finished| (r.unit().is_throughput(), r.judged_on_items());
    if unit(base) != unit(other) {
        return Vec::new();
    }
    let theirs = other.judged_rates();
    base.judged_rates()
        .into_iter()
        .filter_map(|(kind, name, a)| {
            let b = theirs.iter().find(|(_, n, _)| *n == name)?.2;
            let (a, b) = (a?, b?);
            Some((kind, name, a, b, (b / a - 1.0) * 100.0))
        })
        .collect()
}
