//! A sweep's points run one after another, headless: each under a line
//! that names it, with its progress on stderr, its report kept. A Ctrl-C
//! cancels the point running (which cleans up what it made) and ends the
//! sweep: the report holds the points that finished before it.

use super::{Cancelling, Running, cancel_on_interrupt, open_output, output_folder_exists, usage_error, write_report};
use crate::cli::ReportArgs;
use crate::finished::Finished;
use crate::progress;
use crate::signals;
use crate::sweep::fleet::Aligned;
use crate::sweep::report::PointReport;
use crate::sweep::{Sweep, said};
use crate::targets::{Begin, Environment, FormOptions, Remains, Start};
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, OnceLock};
use tokio_util::sync::CancellationToken;

/// Plans every point (a bad one is said before anything runs), runs them
/// in the sweep's order and writes the report of those that finished.
pub async fn run(form: &FormOptions, report_args: &ReportArgs, env: &Environment) -> ExitCode {
    let (sweep, aligned) = match checked(form, report_args, env) {
        Ok(checked) => checked,
        Err(error) => return usage_error(error),
    };
    let host = match report_args.start.host() {
        Ok(host) => host,
        Err(error) => return usage_error(error),
    };
    let cancel = CancellationToken::new();
    let interrupted = Arc::new(OnceLock::new());
    let running: Running = Arc::new(Mutex::new(None));
    let cancelling =
        Cancelling { what: "cancelling the sweep", kept: "; the points finished are reported", of: "point" };
    let listener =
        cancel_on_interrupt(signals::interrupts(), cancel.clone(), running.clone(), interrupted.clone(), cancelling);
    tokio::spawn(listener);
    let Ran { points, started, failed } = run_points(&sweep, aligned.as_ref(), &host, (&cancel, &running)).await;
    // A target that never answered is the user's to fix, as for one run:
    // one sentence, no report. After a point finished, the report keeps it.
    let failed = match failed {
        Some(error) if points.is_empty() => return usage_error(error),
        Some(error) => {
            engine::say_on_stderr!("error: {error}; the sweep stops here, keeping the points finished");
            true
        }
        None => false,
    };
    let report = sweep.report(points, started, cancel.is_cancelled());
    let text = crate::engine::start::marked(report.render(report_args.format), report_args.start.log_markers);
    let mut output = match open_output(&report_args.output) {
        Ok(output) => output,
        Err(message) => return usage_error(message),
    };
    if let Some(path) = &report_args.chart
        && let Err(error) = super::chart::write(path, &report.heading(), &crate::sweep::chart::sweep_svg(&report))
    {
        engine::say_on_stderr!("error: {error}");
    }
    let all_well = !failed && report.points.iter().all(|p| p.report.succeeded());
    write_report(&mut output, &text, interrupted.get(), u8::from(!all_well))
}

/// The sweep `--sweep` asks for (lined up with a fleet's when
/// `--start-at` or `--start-in` is given), and the flags it cannot go with said.
fn checked(
    form: &FormOptions,
    report_args: &ReportArgs,
    env: &Environment,
) -> Result<(Sweep, Option<Aligned>), String> {
    if !report_args.fail_if.is_empty() {
        return Err("--fail-if checks one run, not a sweep's points: run the point in question on its own".into());
    }
    if !report_args.samples.is_empty() {
        return Err("--samples streams one run's records, and a sweep's points would each overwrite the file: run the point in question on its own".into());
    }
    output_folder_exists(&report_args.output)?;
    super::chart::check(&report_args.chart)?;
    let start = report_args.start.when(std::time::SystemTime::now())?;
    let sweep =
        Sweep::plan(&report_args.sweep, report_args.sweep_budget.as_deref(), form, env).map_err(|e| e.message)?;
    sweep.refuse_flags_swept(form)?;
    if report_args.chart.is_some() && sweep.axes.len() > 2 {
        return Err(format!(
            "--chart draws a sweep of one or two options and this one has {}: sweep fewer, or leave --chart out",
            sweep.axes.len()
        ));
    }
    match start {
        Some(start) => sweep.aligned_to(start).map(|(sweep, aligned)| (sweep, Some(aligned))),
        None => Ok((sweep, None)),
    }
}

/// What the points' runs came to: the reports of those that finished
/// (each with its index in the grid), how many began, and why one could
/// not start.
struct Ran {
    points: Vec<(usize, PointReport)>,
    started: usize,
    failed: Option<String>,
}

/// Each point in the sweep's order until the last, a cancel or a point
/// that cannot start.
async fn run_points(
    sweep: &Sweep,
    aligned: Option<&Aligned>,
    host: &str,
    (cancel, running): (&CancellationToken, &Running),
) -> Ran {
    let terminal = std::io::stderr().is_terminal();
    let mut finished = Vec::new();
    let mut notes_said: Vec<String> = Vec::new();
    let mut started = 0;
    for (ran, &index) in sweep.order.iter().enumerate() {
        let (point, planned) = &sweep.points[index];
        if cancel.is_cancelled() {
            break;
        }
        engine::say_on_stderr!("point {} of {}: {}", ran + 1, sweep.points.len(), said(point));
        started += 1;
        // A note every point shares (the built-in emulator) is said once.
        for note in planned.notes() {
            if !notes_said.contains(note) {
                engine::say_on_stderr!("note: {note}");
                notes_said.push(note.clone());
            }
        }
        let (events, receiver) = tokio::sync::mpsc::channel(1024);
        let printer = tokio::spawn(progress::print(receiver, terminal, planned.round_words()));
        // A fleet's hosts begin each point's rounds at the same instant.
        let start_at = aligned.map(|a| a.point_start(ran));
        let begin = Begin { start_at, samples: None };
        let start = Start { events, cancel: cancel.child_token(), host: Some(host.to_string()), begin };
        let connected = |remains: Remains| {
            *running.lock().expect("not poisoned") = Some(remains);
            Ok(())
        };
        let result = planned.clone().run(start, Box::new(connected)).await.map(Finished::new);
        let _ = printer.await;
        match result {
            // A point the cancel cut short is left out: its rounds are not the point's.
            Ok(_) if cancel.is_cancelled() => break,
            Ok(report) => finished.push((index, PointReport::new(point, ran + 1, report))),
            Err(error) => {
                let failed = Some(format!("point {}: {error}", said(point)));
                return Ran { points: finished, started, failed };
            }
        }
    }
    Ran { points: finished, started, failed: None }
}
