//! `merge` and `compare`: reports as files, read back and put together.

use super::inputs::{self, Loaded};
use crate::cli::Format;
use crate::finished::Finished;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// Reports written by `run --format json` (or `etcd run`, `grpc run`,
    /// or earlier merges): files, directories of *.json files, or - for stdin.
    #[arg(required = true, value_name = "FILE|DIR|-")]
    pub reports: Vec<PathBuf>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Write the merged report to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct CompareArgs {
    /// The base run's report (`run --format json`, or a merge).
    #[arg(value_name = "BASE.json")]
    pub base: PathBuf,
    /// The report compared with it.
    #[arg(value_name = "OTHER.json")]
    pub other: PathBuf,
}

/// What a command prints: its text, and warnings for stderr.
pub struct Said {
    pub text: String,
    pub warnings: Vec<String>,
}

/// The merge of every report given, rendered; or why they cannot merge.
pub fn merge(args: &MergeArgs) -> Result<Said, String> {
    let loaded = inputs::load(&args.reports)?;
    if loaded.iter().any(|l| l.point.is_some()) {
        let (sweep, warnings) = super::sweeps::merge_sweeps(&loaded)?;
        return Ok(Said { text: sweep.render(args.format), warnings });
    }
    let mut merged = merge_loaded(&loaded)?;
    let mut warnings = inputs::warnings(&loaded);
    if let Some(fleet) = merged.fleet_mut() {
        // The report keeps what was warned of: its table, JSON and --open say it too.
        fleet.caveats = warnings.clone();
        warnings.extend(fleet.apart.clone());
    }
    Ok(Said { text: merged.render(args.format), warnings })
}

/// One report of all the hosts the loaded reports hold.
pub fn merge_loaded(loaded: &[Loaded]) -> Result<Finished, String> {
    inputs::check(loaded)?;
    let reports: Vec<&Finished> = loaded.iter().map(|l| &l.report).collect();
    Ok(Finished::merge(&reports))
}

/// The change per row from one saved run to another.
pub fn compare(args: &CompareArgs) -> Result<Said, String> {
    compare_loaded(&load_one(&args.base)?, &load_one(&args.other)?)
}

/// The one report a file holds.
fn load_one(path: &std::path::Path) -> Result<Loaded, String> {
    let mut loaded = inputs::load(std::slice::from_ref(&path.to_path_buf()))?;
    match loaded.len() {
        1 => Ok(loaded.remove(0)),
        points if loaded[0].point.is_some() => Err(format!(
            "{} is a sweep of {points} points, and compare compares two runs: open the sweeps side by side in the app (gcs-speed-tui --open FILE), or rerun the point in question on its own",
            path.display()
        )),
        _ => Err(format!("{} holds several reports: give one report per file (or merge them first)", path.display())),
    }
}

pub fn compare_loaded(base: &Loaded, other: &Loaded) -> Result<Said, String> {
    let rows = crate::tui::history::differences(&base.report, &other.report);
    if rows.is_empty() && base.report.work_said() == other.report.work_said() {
        return Err(format!(
            "{} and {} have no row in common to compare (a merge whose hosts never ran at once has no fleet row): compare the hosts' own reports",
            base.name, other.name
        ));
    }
    if rows.is_empty() {
        return Err(format!(
            "{} and {} measured different things ({} vs {}): compare runs of the same target and workload",
            base.name,
            other.name,
            base.report.work_said(),
            other.report.work_said()
        ));
    }
    let mut warnings = Vec::new();
    if !base.report.same_place(&other.report) {
        warnings.push(format!(
            "{} went to {} and {} to {}: the difference is the targets' as much as the options'",
            base.name,
            base.report.short_target(),
            other.name,
            other.report.short_target()
        ));
    }
    let unit = base.report.unit();
    let mut text = format!("{} -> {}\n", describe(base), describe(other));
    let mut table = vec![vec!["Row".to_string(), "Base".into(), "Other".into(), "Change".into()]];
    for (_, name, a, b, percent) in rows {
        table.push(vec![name, unit.format(a), unit.format(b), format!("{percent:+.1}%")]);
    }
    text += &crate::engine::report::aligned(&table);
    let options = inputs::differing_options(base, other);
    text += &match options.as_slice() {
        [] => "same options\n".to_string(),
        differ => format!("options that differ: {}\n", differ.join(", ")),
    };
    text += "each rate is the run's own (a fleet's: the sum of its hosts' in their common window); no interval spans two runs\n";
    Ok(Said { text, warnings })
}

fn describe(loaded: &Loaded) -> String {
    let hosts = loaded.report.fleet_size().map(|n| format!(", fleet of {n}")).unwrap_or_default();
    format!("{} ({} {}{hosts})", loaded.name, loaded.report.run_id(), loaded.report.started_at())
}
