//! A sweep in the app: run from the form's Sweep field, each point a run of
//! its own (its effect, its report in the history), then drawn: over one
//! option gRPC/JSON with its interval at each value, over two a heatmap.
//! The points' runs are fed reports whose rounds are chosen here, so each
//! ratio on screen is worked out from them: with the same bytes in every
//! round, gRPC/JSON is JSON's total time over gRPC's.

use gcs_speed_tui::config::{Environment, Options};
use gcs_speed_tui::finished::Finished;
use gcs_speed_tui::gcs::planned::GcsPlan;
use gcs_speed_tui::targets::FormOptions;
use gcs_speed_tui::tui::app::{App, Effect, Message};
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

mod views;
use views::fixtures::{MIB, feed, report_sized};
use views::{SIZES, screen};

/// Rounds of 1.9, 2.0 and 2.1 s against 1 s each: 6 s over 3 s, 2x.
const SLOW: [f64; 3] = [1.9, 2.0, 2.1];
const FAST: [f64; 3] = [1.0, 1.0, 1.0];

/// The sweep's pane at each size: what does not depend on the shuffled
/// order (the live lanes above it show whichever point ran last).
fn sweep_panes(app: &App) -> String {
    let pane = |screen: String| {
        let lines: Vec<&str> = screen.lines().skip_while(|l| !l.starts_with("┌ sweep of")).collect();
        let end = lines.iter().position(|l| l.starts_with('└')).map_or(lines.len(), |i| i + 1);
        lines[..end].join("\n")
    };
    SIZES.iter().map(|&(w, h)| format!("--- {w}x{h}\n{}", pane(screen(app, w, h)))).collect::<Vec<_>>().join("\n")
}

fn app_sweeping(sweep: &str) -> App {
    let gcs = Options { size: "64MiB".into(), ..Options::default() };
    let options = FormOptions { sweep: sweep.into(), ..FormOptions::with(gcs.clone(), gcs.schedule_args()) };
    App::new(options, Environment::default(), false)
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.update(Message::Terminal(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))))
}

/// The (size, concurrency) of the point an effect starts.
fn started(effects: &[Effect]) -> Option<(u64, u32)> {
    effects.iter().find_map(|effect| match effect {
        Effect::StartRun(planned) => {
            planned.as_any().downcast_ref::<GcsPlan>().map(|p| (p.config.object_size, p.config.concurrency))
        }
        _ => None,
    })
}

/// Runs every point the app starts to its end, gRPC twice as fast at
/// 4 MiB and half as fast at 1 MiB; returns the points in the order run.
fn run_all(app: &mut App) -> Vec<(u64, u32)> {
    let mut effects = key(app, KeyCode::Char('r'));
    let mut ran = Vec::new();
    while let Some((size, concurrency)) = started(&effects) {
        ran.push((size, concurrency));
        let (json, grpc) = if size == 4 * MIB { (SLOW, FAST) } else { (FAST, SLOW) };
        effects = feed(app, report_sized(&format!("point-{}", ran.len()), size, json, grpc));
    }
    ran
}

#[test]
fn a_sweep_of_one_option_runs_each_point_and_draws_its_ratio_and_interval() {
    let mut app = app_sweeping("size=1MiB,4MiB");
    let ran = run_all(&mut app);
    let mut sizes: Vec<u64> = ran.iter().map(|(size, _)| *size).collect();
    sizes.sort_unstable();
    assert_eq!(sizes, [MIB, 4 * MIB], "each point ran once");
    assert!(!app.running && app.sweep_run.is_none());
    assert_eq!(app.history.this_session().len(), 2, "each point is a run of the history");
    let last = if ran[1].0 == MIB { "1MiB" } else { "4MiB" };
    let done = format!("sweep done: 2 of 2 points; s shows the table of the point run last (size={last})");
    assert_eq!(app.status.as_deref(), Some(done.as_str()));
    for (width, height) in SIZES {
        let screen = screen(&app, width, height);
        assert!(screen.contains("sweep of size · 2 of 2 points"), "{width}x{height}:\n{screen}");
        // 1 MiB: 3 s over 6 s, JSON ahead; 4 MiB: 6 s over 3 s, gRPC ahead.
        for (value, ratio, mark) in [("1MiB", 0.5, "▼"), ("4MiB", 2.0, "▲")] {
            let marked = |l: &&str| ["x▼", "x▲", "x?"].iter().any(|mark| l.contains(mark));
            let row = screen.lines().filter(marked).find(|l| l.contains(value)).unwrap_or_else(|| panic!("{screen}"));
            let shown = format!("{}x{mark}", gcs_speed_tui::units::significant(ratio, 3));
            assert!(row.contains(&shown), "{value} shows {shown}: {row}");
            // Its interval, read back: around the ratio and all on its side of 1.0x.
            let interval = row.split(&shown).nth(1).unwrap().trim().trim_end_matches('│').trim();
            let (low, high) = interval.split_once(" to ").unwrap_or_else(|| panic!("an interval: {row}"));
            let number = |text: &str| text.trim().trim_end_matches('x').parse::<f64>().unwrap();
            let (low, high) = (number(low), number(high));
            assert!(low < ratio && ratio < high, "{low} < {ratio} < {high}");
            assert!(if ratio > 1.0 { low > 1.0 } else { high < 1.0 }, "the interval is on one side: {row}");
        }
        assert!(screen.contains("crosses 1.0x"), "the marks are explained:\n{screen}");
    }
    insta::assert_snapshot!(sweep_panes(&app));
    // s turns to the last point's table, and back.
    key(&mut app, KeyCode::Char('s'));
    assert!(screen(&app, 120, 40).contains("Transport Runs"), "{}", screen(&app, 120, 40));
    key(&mut app, KeyCode::Char('s'));
    assert!(screen(&app, 120, 40).contains("sweep of size"));
}

#[test]
fn a_sweep_of_two_options_is_a_heatmap_in_grid_order() {
    // Checksum, not concurrency, beside size: the fixture's rounds are of one object.
    let mut app = app_sweeping("size=1MiB,4MiB; checksum=crc32c,none");
    let ran = run_all(&mut app);
    assert_eq!(ran.len(), 4, "2 x 2 points: {ran:?}");
    for (width, height) in [(100, 30), (120, 40)] {
        let screen = screen(&app, width, height);
        assert!(screen.contains("sweep of size x checksum · 4 of 4 points"), "{screen}");
        // Columns are sizes (1 MiB, then 4 MiB), rows checksums.
        let header = screen.lines().find(|l| l.contains("checksum  1MiB")).unwrap_or_else(|| panic!("{screen}"));
        assert!(header.find("1MiB") < header.find("4MiB"), "{header}");
        for checksum in ["crc32c", "none"] {
            let row = screen.lines().find(|l| l.starts_with(&format!("│{checksum:<10}"))).unwrap();
            let (json_ahead, grpc_ahead) = (row.find("0.500x▼").unwrap(), row.find("2.00x▲").unwrap());
            assert!(json_ahead < grpc_ahead, "1 MiB's cell, then 4 MiB's: {row}");
        }
    }
    insta::assert_snapshot!(sweep_panes(&app));
}

/// `r`, and the first point's run to its end: that point's size, and
/// what the app asks for next.
fn first_point_run(app: &mut App) -> (u64, Vec<Effect>) {
    let first = key(app, KeyCode::Char('r'));
    let (size, _) = started(&first).unwrap();
    let report = report_sized("first", size, FAST, SLOW);
    (size, app.update(Message::RunFinished(Ok(Finished::from(report)))))
}

#[test]
fn a_cancel_ends_the_sweep_keeping_the_points_finished() {
    let mut app = app_sweeping("size=1MiB,2MiB,4MiB");
    let (_, second) = first_point_run(&mut app);
    let (size, _) = started(&second).expect("the second point starts");
    assert!(app.status.as_deref().unwrap().starts_with("point 2 of 3 ("), "{:?}", app.status);
    // The status keeps naming the point through the run's phases.
    app.update(Message::Run(gcs_speed_tui::engine::events::RunEvent::Phase(
        gcs_speed_tui::engine::events::Phase::Warmup,
    )));
    let status = app.status.clone().unwrap();
    assert!(status.starts_with("point 2 of 3 (") && status.ends_with(" · warming up (not timed)"), "{status}");
    assert_eq!(key(&mut app, KeyCode::Esc), [Effect::CancelRun]);
    assert!(app.status.as_deref().unwrap().ends_with("; the sweep ends, keeping the points finished"));
    let cut = report_sized("cut", size, FAST, SLOW);
    let after = app.update(Message::RunFinished(Ok(Finished::from(cut))));
    assert_eq!(started(&after), None, "no point starts after a cancel");
    let sweep = app.sweep.as_ref().unwrap();
    assert_eq!((sweep.points.len(), sweep.sweep.planned, sweep.sweep.cancelled), (1, 3, true));
    assert_eq!(sweep.sweep.ran_in_order.len(), 2, "the cut point began; the third did not");
    assert_eq!(
        app.status.as_deref(),
        Some("sweep cancelled: 1 of 3 points finished (the point cut short is left out)")
    );
    assert!(screen(&app, 100, 30).contains("sweep of size · 1 of 3 points, cancelled"), "{}", screen(&app, 100, 30));
}

#[test]
fn a_point_that_cannot_start_ends_the_sweep_and_says_which() {
    let mut app = app_sweeping("size=1MiB,4MiB");
    let (size, _) = first_point_run(&mut app);
    let other = if size == MIB { "4MiB" } else { "1MiB" };
    app.update(Message::RunFinished(Err("connection refused".into())));
    assert!(!app.running && app.sweep_run.is_none());
    assert_eq!(
        app.status.as_deref(),
        Some(
            format!(
                "point 2 of 2 (size={other}) could not start: connection refused; the sweep stops here, keeping 1 of 2 points"
            )
            .as_str()
        )
    );
}

#[test]
fn an_opened_sweep_is_drawn_and_its_points_are_runs_of_the_history() {
    use gcs_speed_tui::sweep::report::{PointReport, SweepReport, SweepSaid};
    let point = |size: &str, bytes: u64, json, grpc, ran| {
        let report = Finished::from(report_sized(&format!("p{ran}"), bytes, json, grpc));
        PointReport::of([("size".to_string(), size.to_string())].into(), ran, report)
    };
    let saved = SweepReport {
        report_version: gcs_speed_tui::engine::report::REPORT_VERSION,
        sweep: SweepSaid {
            options: vec!["size".into()],
            planned: 3,
            share_s: None,
            ran_in_order: vec!["size=4MiB".into(), "size=1MiB".into(), "size=2MiB".into()],
            cancelled: true,
        },
        points: vec![point("1MiB", MIB, FAST, SLOW, 2), point("4MiB", 4 * MIB, SLOW, FAST, 1)],
    };
    let text = saved.render(gcs_speed_tui::cli::Format::Json);
    let loaded = gcs_speed_tui::fleet::inputs::parse("sweep.json", &text).unwrap();
    let sweeps = gcs_speed_tui::sweep::opened::sweeps_in(&loaded);
    assert_eq!(sweeps.len(), 1);
    let sweep = &sweeps[0];
    assert_eq!((sweep.sweep.planned, sweep.sweep.cancelled, sweep.points.len()), (3, true, 2));
    let ran: Vec<usize> = sweep.points.iter().map(|p| p.ran).collect();
    assert_eq!(ran, [2, 1], "each point's place in the run order, read back");
    let mut app = app_sweeping("");
    app.show_sweep(sweeps.into_iter().next());
    let screen = screen(&app, 100, 30);
    assert!(screen.contains("sweep of size · 2 of 3 points, cancelled"), "{screen}");
    assert!(screen.contains("0.500x▼") && screen.contains("2.00x▲"), "{screen}");
    // `e` saves the whole sweep, every point, as `run --sweep` writes it: it opens again.
    key(&mut app, KeyCode::Char('e'));
    let effects = key(&mut app, KeyCode::Enter);
    let [Effect::Export { path, contents }] = effects.as_slice() else { panic!("{effects:?}") };
    assert!(path.starts_with("gcs-speed-tui-sweep-p"), "{path}");
    let again = gcs_speed_tui::sweep::opened::sweeps_in(&gcs_speed_tui::fleet::inputs::parse(path, contents).unwrap());
    assert_eq!(again.len(), 1);
    let points: Vec<&str> = again[0].points.iter().map(|p| p.point["size"].as_str()).collect();
    assert_eq!(points, ["1MiB", "4MiB"], "both points saved, in grid order");
}

#[test]
fn a_sweep_is_checked_with_the_form_and_its_refusal_names_the_field() {
    let mut options = FormOptions { sweep: "size=1MiB,huge".into(), ..FormOptions::default() };
    let error = gcs_speed_tui::tui::form::Form::new(options.clone(), Environment::default()).checked.unwrap_err();
    assert_eq!(error.field, "sweep");
    assert!(error.message.starts_with("--sweep point size=huge: "), "{}", error.message);
    options.sweep = "size=1MiB,4MiB; concurrency=1,2".into();
    let form = gcs_speed_tui::tui::form::Form::new(options.clone(), Environment::default());
    assert!(form.checked.is_ok(), "{:?}", form.checked);
    assert_eq!(form.sweep().unwrap().unwrap().points.len(), 4, "two options a ; apart make a grid of 2 x 2");
    options.sweep = String::new();
    options.sweep_budget = "1m".into();
    let error = gcs_speed_tui::tui::form::Form::new(options, Environment::default()).checked.unwrap_err();
    assert_eq!(error.field, "sweep_budget", "a budget without a sweep is refused under its own field");
}

#[test]
fn a_sweep_is_not_remembered_and_a_new_target_does_not_inherit_it() {
    let mut app = app_sweeping("size=1MiB,4MiB");
    let saved = serde_json::to_string(&app.form.options).unwrap();
    assert!(!saved.contains("size=1MiB,4MiB"), "a sweep never begins unseen in a later session: {saved}");
    // The first field, Target, to etcd: it has no Object size to sweep.
    key(&mut app, KeyCode::Right);
    assert_eq!(app.form.options.target, "etcd");
    assert!(app.form.checked.is_ok(), "{:?}", app.form.checked);
    assert_eq!(app.form.options.sweep, "");
    assert_eq!(app.status.as_deref(), Some("Sweep cleared: 'size=1MiB,4MiB' sweeps options etcd does not have"));
    // Where the run goes is not an option to sweep: points would compare places.
    let bucket = FormOptions { sweep: "bucket=a,b".into(), ..FormOptions::default() };
    let error = gcs_speed_tui::tui::form::Form::new(bucket, Environment::default()).checked.unwrap_err();
    let said = "--sweep 'bucket=a,b': 'bucket' is not swept: it changes what is compared or where the run goes";
    assert!(error.message.starts_with(said), "{}", error.message);
}

#[test]
fn a_sweep_of_three_options_is_listed_not_drawn_over_itself() {
    let mut app = app_sweeping("size=1MiB,4MiB; checksum=crc32c,none; warmup=true,false");
    assert_eq!(run_all(&mut app).len(), 8, "2 x 2 x 2 points");
    let screen = screen(&app, 120, 40);
    assert!(screen.contains("A picture draws one or two options"), "{screen}");
    let listed = screen.lines().filter(|l| l.contains("0.500x▼") || l.contains("2.00x▲")).count();
    assert_eq!(listed, 8, "every point in the list:\n{screen}");
}
