//! `--sweep OPTION=V1,V2,...`: the same question asked at each point of a
//! grid of option values, each point a full paired comparison of its own
//! (its rounds, verdict and 95% interval). Any option of the target's form
//! can be swept, by its flag's name; the points run in a shuffled order so
//! that drift over time does not read as a trend, and `--sweep-budget`
//! shares a time budget out over them.

pub mod chart;
pub mod fleet;
pub mod opened;
pub mod report;

use crate::engine::plan::ConfigError;
use crate::targets::{Environment, Field, FormOptions, Kind, Planned, fields_of};
use report::{PointReport, SweepReport, SweepSaid};
use std::time::Duration;

/// The most points a sweep may have: beyond it the grid is a typo more
/// often than a plan (a hundred full comparisons take hours).
pub const MOST_POINTS: usize = 100;

/// The form's fields that are not a run's options: which target, and the sweep itself.
/// Nor are where the run goes and how it signs in (points that went to
/// different places, or as different users, compare places, not options),
/// nor the unit figures are shown in, nor what changes the question
/// itself: the workload, or etcd's mode (each has options of its own, so a
/// point of one is refused by the other, and they ask other questions) and
/// the transports (a point of one has no pair).
const NOT_SWEPT: [&str; 22] = [
    "workload",
    "mode",
    "transports",
    "target",
    "sweep",
    "sweep_budget",
    "bucket",
    "endpoint",
    "grpc_endpoint",
    "endpoints",
    "prefix",
    "read_prefix",
    "emulator",
    "auth",
    "credentials",
    "ca_cert",
    "cacert",
    "cert",
    "key",
    "user",
    "password",
    "rate_unit",
];

/// One swept option and its values, as typed.
pub struct Axis {
    /// The option as its flag spells it: `size`, `chunk-size`.
    pub option: String,
    pub values: Vec<String>,
    field: &'static Field,
}

/// A point of the grid: a value for each axis, in the axes' order.
pub type Point = Vec<(String, String)>;

/// A planned sweep: its axes, its points (in grid order) each planned as
/// the target plans a run, and the order they run in.
pub struct Sweep {
    pub axes: Vec<Axis>,
    pub points: Vec<(Point, Planned)>,
    /// Indexes into `points`, in the order they run.
    pub order: Vec<usize>,
    /// Each point's share of `--sweep-budget`.
    pub share: Option<Duration>,
}

/// `OPTION=V1,V2,...` as an axis of `target`'s form, or the sentence that
/// says what is wrong with it.
fn parse_axis(text: &str, target: &str) -> Result<Axis, String> {
    let wrong = |why: String| format!("--sweep '{text}': {why}");
    let Some((option, values)) = text.split_once('=') else {
        return Err(wrong("write OPTION=V1,V2,..., like size=1MiB,16MiB".into()));
    };
    let option = option.trim().trim_start_matches("--").to_string();
    let key = option.replace('-', "_");
    let fields = fields_of(target);
    let sweepable = |f: &&Field| !NOT_SWEPT.contains(&f.key);
    let Some(field) = fields.iter().filter(sweepable).find(|f| f.key == key) else {
        let known: Vec<String> = fields.iter().filter(sweepable).map(|f| f.key.replace('_', "-")).collect();
        let why = match fields.iter().any(|f| f.key == key) && key != "target" {
            true => format!(
                "'{option}' is not swept: it changes what is compared or where the run goes (run each value apart)"
            ),
            false => format!("this run has no option '{option}'"),
        };
        return Err(wrong(format!("{why}; sweep one of {}", known.join(", "))));
    };
    let values: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
    if values.iter().any(String::is_empty) {
        return Err(wrong("a value is empty: separate the values with commas, like size=1MiB,16MiB".into()));
    }
    if let Some(twice) = values.iter().enumerate().find_map(|(i, v)| values[..i].contains(v).then_some(v)) {
        return Err(wrong(format!("'{twice}' is given twice: give each value once")));
    }
    Ok(Axis { option, values, field })
}

/// Every combination of the axes' values, the first axis outermost.
fn grid(axes: &[Axis]) -> Vec<Point> {
    axes.iter().fold(vec![Vec::new()], |points, axis| {
        points
            .iter()
            .flat_map(|point| {
                axis.values.iter().map(move |value| {
                    let mut next = point.clone();
                    next.push((axis.option.clone(), value.clone()));
                    next
                })
            })
            .collect()
    })
}

/// The value `form` gives `field` when it is not the default: a swept
/// option given as a flag too would be silently overridden at every point.
fn set_apart(form: &FormOptions, field: &Field) -> Option<String> {
    let default = FormOptions { target: form.target.clone(), ..FormOptions::default() };
    // As a flag says it: a toggle true or false.
    let flag = |f: &FormOptions| match field.kind {
        Kind::Toggle => (f.value(field) == "on").to_string(),
        _ => f.value(field),
    };
    let given = flag(form);
    (given != flag(&default)).then_some(given)
}

/// `form` with each of the point's options set to its value.
fn at(form: &FormOptions, axes: &[Axis], point: &Point) -> Result<FormOptions, String> {
    let mut options = form.clone();
    for (axis, (_, value)) in axes.iter().zip(point) {
        match axis.field.kind {
            Kind::Toggle => {
                let on = crate::units::parse_bool(value)
                    .map_err(|_| format!("--sweep {}: '{value}' is not true or false", axis.option))?;
                if let Some(toggle) = options.toggle(axis.field.key) {
                    *toggle = on;
                }
            }
            _ => {
                if let Some(text) = options.text(axis.field.key) {
                    *text = value.clone();
                }
            }
        }
    }
    Ok(options)
}

/// A point said briefly: `size=1MiB concurrency=4`.
pub fn said(point: &Point) -> String {
    point.iter().map(|(option, value)| format!("{option}={value}")).collect::<Vec<_>>().join(" ")
}

/// The order the points run in: a random permutation (Fisher-Yates).
fn shuffled(points: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points).collect();
    for i in (1..points).rev() {
        let j = (crate::units::random_u64() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

impl Sweep {
    /// The sweep `--sweep` and `--sweep-budget` ask for over `form`, every
    /// point planned (so that a bad value is said before anything runs); a
    /// refusal names the field it is about (the app marks it).
    pub fn plan(
        texts: &[String],
        budget: Option<&str>,
        form: &FormOptions,
        env: &Environment,
    ) -> Result<Sweep, ConfigError> {
        let sweep = |message: String| ConfigError { field: "sweep", message };
        let budget_error = |message: String| ConfigError { field: "sweep_budget", message };
        if texts.is_empty() {
            let add = "--sweep-budget shares a budget out over a sweep's points: add --sweep OPTION=V1,V2,...";
            return Err(budget_error(add.into()));
        }
        let axes = texts.iter().map(|t| parse_axis(t, &form.target)).collect::<Result<Vec<_>, _>>().map_err(sweep)?;
        if let Some(twice) =
            axes.iter().enumerate().find_map(|(i, a)| axes[..i].iter().any(|b| b.field.key == a.field.key).then_some(a))
        {
            return Err(sweep(format!("--sweep {} is given twice: list all its values in one --sweep", twice.option)));
        }
        let grid = grid(&axes);
        if grid.len() > MOST_POINTS {
            let many = format!("the sweep has {} points, more than {MOST_POINTS}: sweep fewer values", grid.len());
            return Err(sweep(many));
        }
        let share = budget.map(|b| share_of(b, grid.len(), form, &axes)).transpose().map_err(budget_error)?;
        let mut points = Vec::with_capacity(grid.len());
        for point in grid {
            let mut options = at(form, &axes, &point).map_err(sweep)?;
            if let Some(share) = share {
                options.schedule.duration = format!("{}ms", share.as_millis());
            }
            let planned = crate::targets::plan(&options, env).map_err(|e| sweep(point_error(&point, &e)))?;
            points.push((point, planned));
        }
        let order = shuffled(points.len());
        Ok(Sweep { axes, points, order, share })
    }
}

/// The app form's Sweep and Sweep budget fields planned as `--sweep` and
/// `--sweep-budget` are (an option a `;` apart), or none when both are
/// empty; a refusal names the field it is about.
pub fn of_form(form: &FormOptions, env: &Environment) -> Result<Option<Sweep>, ConfigError> {
    let texts: Vec<String> = form.sweep.split(';').map(str::trim).filter(|t| !t.is_empty()).map(String::from).collect();
    let budget = Some(form.sweep_budget.trim()).filter(|b| !b.is_empty());
    if texts.is_empty() && budget.is_none() {
        return Ok(None);
    }
    Sweep::plan(&texts, budget, form, env).map(Some)
}

impl Sweep {
    /// The sweep's report: the points that finished (each with its index
    /// in `points`), put in grid order, and of the run order the `started`
    /// points that began (after a cancel or a failure the rest never ran).
    pub fn report(&self, finished: Vec<(usize, PointReport)>, started: usize, cancelled: bool) -> SweepReport {
        let mut finished = finished;
        finished.sort_by_key(|(index, _)| *index);
        SweepReport {
            report_version: crate::engine::report::REPORT_VERSION,
            sweep: SweepSaid {
                options: self.axes.iter().map(|a| a.option.clone()).collect(),
                planned: self.points.len(),
                share_s: self.share.map(|s| s.as_secs_f64()),
                ran_in_order: self.order[..started].iter().map(|&i| said(&self.points[i].0)).collect(),
                cancelled,
            },
            points: finished.into_iter().map(|(_, report)| report).collect(),
        }
    }
}

impl Sweep {
    /// Refuses a swept option that a flag sets too (`--rate 300 --sweep
    /// rate=100,200`): the sweep would silently override it at every point.
    /// The app's form is not asked: there the field beside the sweep shows
    /// the value the sweep replaces.
    pub fn refuse_flags_swept(&self, flags: &FormOptions) -> Result<(), String> {
        match self.axes.iter().find_map(|a| set_apart(flags, a.field).map(|v| (a, v))) {
            Some((axis, value)) => Err(format!(
                "--sweep {0}: --{0} {value} is given too: drop it, the sweep sets {0} at each point",
                axis.option
            )),
            None => Ok(()),
        }
    }
}

/// A point's plan refused: which point, and the target's own sentence.
fn point_error(point: &Point, error: &ConfigError) -> String {
    format!("--sweep point {}: {error}", said(point))
}

/// Each point's part of `--sweep-budget`: the budget over the points.
fn share_of(budget: &str, points: usize, form: &FormOptions, axes: &[Axis]) -> Result<Duration, String> {
    let budget = crate::units::parse_duration(budget).map_err(|e| format!("--sweep-budget: {e}"))?;
    if !form.schedule.duration.trim().is_empty() || axes.iter().any(|a| a.field.key == "duration") {
        return Err("--sweep-budget sets each point's --duration: give one or the other".into());
    }
    let share = budget / points as u32;
    if share < Duration::from_secs(1) {
        return Err(format!("--sweep-budget gives each of {points} points under a second: give at least {points}s"));
    }
    Ok(share)
}

#[cfg(test)]
mod tests;
