//! A run's verdict in words: in open loop first on latency at the offered
//! rate (which sets the throughput), then on throughput; w1r3 has one per
//! operation.

use super::RunReport;
use super::shown::Shown;
use crate::stats::Verdict;

impl RunReport {
    /// The verdict in one sentence (w1r3: its two, one after the other),
    /// each caution after its verdict (their indent is the table's).
    pub fn summary_line(&self) -> String {
        let lines = self.verdict_lines();
        lines.iter().map(|line| line.trim_start()).collect::<Vec<_>>().join(" · ")
    }

    /// The verdict, a line each: in open loop first on latency at the
    /// offered rate (which sets the throughput), then on throughput.
    pub fn verdict_lines(&self) -> Vec<String> {
        let throughput = self.throughput_verdicts();
        if self.open_loop.is_empty() {
            return throughput;
        }
        // w1r3's two open-loop summaries share one schedule: the first says it.
        let set = self.open_loop[0].throughput_said();
        let said = throughput.into_iter().map(|line| match line.starts_with(' ') {
            true => line,
            false => format!("{set}{line}"),
        });
        self.open_loop.iter().map(|o| o.verdict()).chain(said).collect()
    }

    /// The verdict of each operation, a line each: w1r3 has two (uploads,
    /// then reads), the other workloads one.
    /// Each is followed by its caution when the transports met unlike trouble.
    fn throughput_verdicts(&self) -> Vec<String> {
        let caution = |v: &Verdict| v.caveat.as_ref().map(|c| format!("  {c}"));
        if self.verdicts.len() > 1 {
            let shown = Shown::of(self);
            return self
                .verdicts
                .iter()
                .flat_map(|v| {
                    let said = shown.verdict(&v.comparison, &self.rows_of(v.operation));
                    let sentence = format!("{}s: {said}", v.operation.name());
                    std::iter::once(sentence).chain(caution(v))
                })
                .collect();
        }
        std::iter::once(self.single_verdict()).chain(self.verdicts.first().and_then(caution)).collect()
    }

    fn single_verdict(&self) -> String {
        if let (None, Some(apart)) = (&self.comparison, self.fleet.as_ref().and_then(|f| f.apart.as_ref())) {
            return format!("no fleet verdict: {apart}");
        }
        match (&self.comparison, self.transports.len()) {
            (Some(comparison), _) => Shown::of(self).verdict(comparison, &self.transports.iter().collect::<Vec<_>>()),
            (None, 1) => match self.transports[0].throughput_mib_s {
                Some(_) => {
                    format!("{}: {}", self.transports[0].transport.name(), Shown::of(self).rate(&self.transports[0]))
                }
                None => format!(
                    "{}: no completed {}s",
                    self.transports[0].transport.name(),
                    self.transports[0].operation.name()
                ),
            },
            (None, _) => "no comparison: no transport ran".into(),
        }
    }
}
