//! A sweep run from the app: its points one after another, each a run of
//! its own (its lanes, its report in the history), then the sweep drawn.
//! As everywhere in the app, `update` decides and the event loop acts: a
//! point's end starts the next one.

use super::app::{App, Effect, Pane};
use crate::finished::Finished;
use crate::sweep::report::{PointReport, SweepReport};
use crate::sweep::{Sweep, said};

/// A sweep under way: its plan, how many points began, and those finished
/// (each with its index in the grid).
pub struct SweepRun {
    pub sweep: Sweep,
    pub started: usize,
    pub finished: Vec<(usize, PointReport)>,
}

impl SweepRun {
    /// The point running (or last run): its index in the grid.
    fn current(&self) -> usize {
        self.sweep.order[self.started.saturating_sub(1)]
    }

    /// `point 2 of 6 (size=1MiB concurrency=8)`
    pub fn point_said(&self) -> String {
        let point = &self.sweep.points[self.current()].0;
        format!("point {} of {} ({})", self.started, self.sweep.points.len(), said(point))
    }

    /// The sweep so far: the points finished, in grid order.
    pub fn so_far(&self, cancelled: bool) -> SweepReport {
        self.sweep.report(self.finished.clone(), self.started, cancelled)
    }
}

impl App {
    /// A sweep to draw (opened from a file, or just run): the results pane
    /// shows it until `s` turns to the run selected.
    pub fn show_sweep(&mut self, sweep: Option<SweepReport>) {
        if let Some(sweep) = sweep {
            if self.sweep_run.is_none() && self.history.this_session().is_empty() {
                self.status = Some(format!("opened the {}", sweep.heading()));
            }
            self.sweep = Some(sweep);
            self.showing_sweep = true;
        }
    }

    /// A status line of the run going, with the point it is when a sweep runs.
    pub(super) fn with_point(&self, text: &str) -> String {
        match &self.sweep_run {
            Some(run) => format!("{} · {text}", run.point_said()),
            None => text.to_string(),
        }
    }

    /// `s`: between the sweep's picture and the result table.
    pub(super) fn toggle_sweep(&mut self) {
        if self.sweep.is_some() || self.sweep_run.is_some() {
            self.showing_sweep = !self.showing_sweep;
            self.results_scroll = 0;
        } else {
            self.status = Some("no sweep to show: set the form's Sweep field (advanced) and press r".into());
        }
    }

    /// The sweep's first point begins.
    pub(super) fn start_sweep(&mut self, sweep: Sweep) -> Vec<Effect> {
        let run = SweepRun { sweep, started: 0, finished: Vec::new() };
        self.sweep = Some(run.so_far(false));
        self.sweep_run = Some(run);
        self.showing_sweep = true;
        let mut effects = vec![Effect::SaveForm(Box::new(self.form.options.clone()))];
        effects.extend(self.next_point());
        effects
    }

    /// The next point's run, or the sweep's end when none is left.
    fn next_point(&mut self) -> Vec<Effect> {
        let Some(run) = &mut self.sweep_run else { return Vec::new() };
        let Some(&index) = run.sweep.order.get(run.started) else {
            self.end_sweep(false, None);
            return Vec::new();
        };
        run.started += 1;
        let planned = run.sweep.points[index].1.clone();
        let said = run.point_said();
        self.begin(&planned);
        self.running = true;
        self.pane = Pane::Run;
        self.run_started_s = self.now_s;
        self.status = Some(format!("{said}: connecting"));
        vec![Effect::StartRun(Box::new(planned))]
    }

    /// A point's run ended: kept (unless a cancel cut it short), and the
    /// next one begins; a cancel ends the sweep, keeping the points finished.
    pub(super) fn point_finished(&mut self, report: Finished, cancelled: bool) -> Vec<Effect> {
        let Some(run) = &mut self.sweep_run else { return Vec::new() };
        if cancelled || self.quit_after_run {
            self.end_sweep(true, None);
            return Vec::new();
        }
        let index = run.current();
        let point = &run.sweep.points[index].0;
        run.finished.push((index, PointReport::new(point, run.started, report)));
        self.sweep = Some(run.so_far(false));
        self.next_point()
    }

    /// A point could not start: the sweep stops, keeping the points finished.
    pub(super) fn point_failed(&mut self, why: &str) {
        let said = self.sweep_run.as_ref().map(SweepRun::point_said).unwrap_or_default();
        self.end_sweep(false, Some(format!("{said} could not start: {why}")));
    }

    fn end_sweep(&mut self, cancelled: bool, failed: Option<String>) {
        let Some(run) = self.sweep_run.take() else { return };
        let report = run.so_far(cancelled);
        let finished = format!("{} of {} points", report.points.len(), report.sweep.planned);
        let last = said(&run.sweep.points[run.current()].0);
        // The cut point's cleanup, as a cancelled run's status says it.
        let cleanup = self.status.as_deref().filter(|s| s.starts_with("cancelled: deleted"));
        let cleanup = cleanup.map(|s| format!("{s}; ")).unwrap_or_default();
        self.status = Some(match (cancelled, failed) {
            (_, Some(failed)) => format!("{failed}; the sweep stops here, keeping {finished}"),
            (true, None) => format!("{cleanup}sweep cancelled: {finished} finished (the point cut short is left out)"),
            (false, None) => format!("sweep done: {finished}; s shows the table of the point run last ({last})"),
        });
        self.show_sweep(Some(report));
    }
}

impl App {
    /// The Target changed: a sweep of the other target's options is not
    /// this one's; it is cleared (and said so) rather than left to make the
    /// form invalid from a field folded away.
    pub(super) fn sweep_for_new_target(&mut self) {
        let refused = self.form.checked.as_ref().err().is_some_and(|e| e.field == "sweep" || e.field == "sweep_budget");
        if refused {
            let was = std::mem::take(&mut self.form.options.sweep);
            self.form.options.sweep_budget.clear();
            self.form.recheck();
            self.status =
                Some(format!("Sweep cleared: '{was}' sweeps options {} does not have", self.form.options.target));
        }
    }
}

impl App {
    /// The sweep point a run was (`size=1MiB concurrency=4`), when it is
    /// one of the sweep shown: the history and its table name it.
    pub fn point_of(&self, report: &Finished) -> Option<String> {
        let sweep = self.sweep.as_ref()?;
        let point = sweep.points.iter().find(|p| p.report.run_id() == report.run_id())?;
        let values = sweep.sweep.options.iter().filter_map(|o| Some((o.clone(), point.point.get(o)?.clone())));
        Some(said(&values.collect()))
    }
}
