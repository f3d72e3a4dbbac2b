//! Snapshots of the app's views (ratatui TestBackend + insta), fed synthetic
//! run events with fixed numbers: the form valid and invalid, a run in
//! progress, results, a history comparison, help, and a too-small window.

use gcs_speed_tui::engine::events::{ItemDone, Phase, RoundDone, RunEvent};
use gcs_speed_tui::finished::Finished;
use gcs_speed_tui::gcs::stats::ObjectSample;
use gcs_speed_tui::gcs::transport::Phases;
use gcs_speed_tui::tui::app::{App, Message};
use gcs_speed_tui::{config::Environment, config::TransportKind, targets::FormOptions};
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

mod views;
use views::fixtures::{MIB, app, replay, report};
use views::{SIZES, press, screen, three_sizes};

#[test]
fn form_valid() {
    insta::assert_snapshot!(three_sizes(&app()));
}

#[test]
fn form_invalid_shows_the_cli_sentence_and_refuses_to_run() {
    let mut app = app();
    for _ in 0..4 {
        press(&mut app, KeyCode::Down); // to Object size, below Target, Bucket, Transports and Workload
    }
    press(&mut app, KeyCode::Enter);
    app.update(Message::Terminal(Event::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL))));
    for c in "12XB".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    press(&mut app, KeyCode::Enter);
    let effects = app.update(Message::Terminal(Event::Key(KeyEvent::new(KeyCode::Char('r'), KeyModifiers::NONE))));
    assert!(effects.is_empty(), "no run while the form is invalid");
    insta::assert_snapshot!(three_sizes(&app));
}

/// Starts a run in the app and feeds it fixed events: warmup done, http-json
/// round 1 finished, grpc halfway through its first round.
fn running_app() -> App {
    let mut app = app();
    press(&mut app, KeyCode::Char('r'));
    assert!(app.running);
    app.update(Message::Tick(12.5));
    let events = [
        RunEvent::Started {
            run_id: "20261130-060000-abcd".into(),
            target: "target: the built-in emulator on loopback (http://127.0.0.1:9000 and 127.0.0.1:9001)".into(),
            rounds_per_transport: Some(3),
        },
        RunEvent::Phase(Phase::Measuring),
        RunEvent::RoundStarted { transport: TransportKind::Json, round: Some(0), at_s: 0.0 },
        RunEvent::Progress {
            transport: TransportKind::Json,
            round: Some(0),
            done: 16 * MIB,
            total: 64 * MIB,
            at_s: 2.0,
        },
        RunEvent::Progress {
            transport: TransportKind::Json,
            round: Some(0),
            done: 40 * MIB,
            total: 64 * MIB,
            at_s: 5.0,
        },
        RunEvent::Progress {
            transport: TransportKind::Json,
            round: Some(0),
            done: 64 * MIB,
            total: 64 * MIB,
            at_s: 8.0,
        },
        RunEvent::ItemDone(ItemDone::from(&ObjectSample {
            host: String::new(),
            transport: TransportKind::Json,
            operation: gcs_speed_tui::gcs::stats::Operation::Upload,
            round: 0,
            worker: 0,
            object: "o".into(),
            bytes: 64 * MIB,
            start_s: 0.0,
            elapsed_s: 8.0,
            ok: true,
            error: None,
            phases: Phases::default(),
            retries: 0,
            resumes: 0,
            resent_bytes: 0,
            first_byte_s: None,
            unchecked: false,
            intended_s: None,
            ranges: None,
            flushes: None,
            read_back: None,
            error_kind: None,
            retried_after: Default::default(),
        })),
        RunEvent::RoundDone(RoundDone {
            transport: TransportKind::Json,
            round: 0,
            done: 64 * MIB,
            elapsed_s: 8.0,
            ok: true,
        }),
        RunEvent::RoundStarted { transport: TransportKind::Grpc, round: Some(0), at_s: 8.0 },
        RunEvent::Progress {
            transport: TransportKind::Grpc,
            round: Some(0),
            done: 20 * MIB,
            total: 64 * MIB,
            at_s: 10.0,
        },
        RunEvent::Progress {
            transport: TransportKind::Grpc,
            round: Some(0),
            done: 32 * MIB,
            total: 64 * MIB,
            at_s: 12.0,
        },
    ];
    for event in events {
        app.update(Message::Run(event));
    }
    app
}

#[test]
fn a_run_in_progress() {
    insta::assert_snapshot!(three_sizes(&running_app()));
}

/// Feeds the app the events a real run sends on its way to `report`: each
/// round started, its bytes, its objects done, the round done; then the end.

#[test]
fn results_after_a_run() {
    let mut app = app();
    replay(&mut app, report("20261130-060000-abcd", [8.039, 8.513, 8.829], [7.9, 7.85, 7.86]));
    assert!(!app.running);
    let text = three_sizes(&app);
    assert!(screen(&app, 120, 40).contains("3/3 objects"), "the live panes agree with the table");
    for (width, height) in SIZES {
        let screen = screen(&app, width, height);
        for whole in ["Throughput", "8.13 MiB/s", "no significant difference", "cleanup: deleted 6, left 0"] {
            assert!(screen.contains(whole), "{width}x{height} shows {whole}:\n{screen}");
        }
    }
    insta::assert_snapshot!(text);
}

#[test]
fn history_compares_two_runs() {
    let mut app = app();
    for (id, json, grpc) in [
        // Rounds vary as real ones do; each run's total is its steady one's
        // (24, 21, 12 and 23.1 s), so the rates stay 8.00, 9.14, 16.00 and 8.31 MiB/s.
        ("20261130-060000-aaaa", [7.9, 8.0, 8.1], [7.1, 7.0, 6.9]),
        ("20261130-061000-bbbb", [3.9, 4.0, 4.1], [7.6, 7.7, 7.8]),
    ] {
        app.update(Message::RunFinished(Ok(Finished::from(report(id, json, grpc)))));
    }
    press(&mut app, KeyCode::Char('h'));
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Down);
    let (base, other) = app.history.pair().unwrap();
    assert_eq!((base.run_id(), other.run_id()), ("20261130-060000-aaaa", "20261130-061000-bbbb"));
    insta::assert_snapshot!(three_sizes(&app));
}

#[test]
fn help_overlay() {
    let mut app = app();
    press(&mut app, KeyCode::Char('?'));
    insta::assert_snapshot!(three_sizes(&app));
    press(&mut app, KeyCode::Char('x'));
    assert!(!app.help, "any key closes help");
}

#[test]
fn too_small_window() {
    let text = screen(&app(), 60, 12);
    assert!(text.contains("The window is 60x12; gcs-speed-tui needs at least 100x30."));
    insta::assert_snapshot!(text);
}

#[test]
fn export_writes_the_same_json_or_csv_as_run_to_the_path_typed() {
    let mut app = app();
    let finished = report("20261130-060000-abcd", [1.0, 1.0, 1.0], [2.0, 2.0, 2.0]);
    let (json, csv) = (finished.to_json() + "\n", finished.to_csv());
    app.update(Message::RunFinished(Ok(Finished::from(finished))));
    press(&mut app, KeyCode::Char('e'));
    assert!(screen(&app, 120, 40).contains(
        "export to (.json or .csv; type to replace, Enter saves, Esc cancels): gcs-speed-tui-20261130-060000-abcd.json"
    ));
    let effects = app.update(Message::Terminal(Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))));
    let export = |path: &str, contents: &str| gcs_speed_tui::tui::app::Effect::Export {
        path: path.into(),
        contents: contents.into(),
    };
    assert_eq!(effects, [export("gcs-speed-tui-20261130-060000-abcd.json", &json)]);

    press(&mut app, KeyCode::Char('e'));
    for c in "out/run.csv".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    let effects = app.update(Message::Terminal(Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE))));
    assert_eq!(effects, [export("out/run.csv", &csv)]);

    press(&mut app, KeyCode::Char('e'));
    press(&mut app, KeyCode::Esc);
    assert!(app.export_prompt.is_none() && app.status.as_deref() == Some("export cancelled"));
}

#[test]
fn quitting_during_a_run_asks_and_ctrl_c_cancels_first() {
    let mut app = running_app();
    press(&mut app, KeyCode::Char('q'));
    assert!(app.confirm_quit && !app.quit);
    press(&mut app, KeyCode::Char('n'));
    assert!(!app.quit);
    let effects = app.update(Message::Terminal(Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL))));
    assert_eq!(effects, [gcs_speed_tui::tui::app::Effect::CancelRun]);
    assert!(!app.quit, "waits for the cleanup");
    app.update(Message::RunFinished(Ok(Finished::from(report("x", [1.0; 3], [1.0; 3])))));
    assert!(app.quit);
}

/// Finished runs are kept as the same JSON as export, read back whole in a
/// later session's history, and only the newest `HISTORY_LIMIT` are kept.
#[test]
fn runs_are_kept_across_sessions_bounded() {
    use gcs_speed_tui::tui::persist::{HISTORY_LIMIT, load_runs_from, save_run_in};
    let dir = tempfile::tempdir().unwrap();
    let first = report("20261130-060000-aaaa", [8.0, 8.0, 8.0], [7.0, 7.0, 7.0]);
    let first = Finished::from(first);
    save_run_in(dir.path(), &first).unwrap();
    let text = std::fs::read_to_string(dir.path().join("20261130-060000-aaaa.json")).unwrap();
    assert_eq!(text, first.to_json() + "\n", "the same JSON as export");
    let loaded = load_runs_from(dir.path());
    let mut expected = first.clone();
    // Notes are said at the start of a run, not kept in reports.
    expected.downcast_mut::<gcs_speed_tui::gcs::report::RunReport>().unwrap().config.notes.clear();
    assert_eq!(loaded, [expected], "read back whole");
    for i in 1..=HISTORY_LIMIT {
        let kept = Finished::from(report(&format!("20261130-06{:04}-bbbb", i), [1.0; 3], [1.0; 3]));
        save_run_in(dir.path(), &kept).unwrap();
    }
    let loaded = load_runs_from(dir.path());
    assert_eq!(loaded.len(), HISTORY_LIMIT);
    assert_ne!(loaded[0].run_id(), first.run_id(), "the oldest went first");

    let mut app = App::with_history(
        FormOptions::default(),
        Environment::default(),
        false,
        gcs_speed_tui::tui::history::History::with_earlier(vec![first]),
    );
    press(&mut app, KeyCode::Char('h'));
    let text = screen(&app, 120, 40);
    assert!(text.contains("#1 11-30 06:00:00 · emulator"), "earlier runs are listed with their day: {text}");
    app.update(Message::RunFinished(Ok(Finished::from(report("20261201-060000-cccc", [1.0; 3], [1.0; 3])))));
    assert_eq!(app.history.this_session().len(), 1);
}

/// A sweep starts several runs in one second, and their ids name only the
/// second: a later session's history keeps them in the order they started.
#[test]
fn runs_of_one_second_keep_their_order_across_sessions() {
    use gcs_speed_tui::tui::persist::{load_runs_from, save_run_in};
    let dir = tempfile::tempdir().unwrap();
    // The id that sorts last started first.
    for (id, at) in
        [("20261130-060000-ffff", "2026-11-30T06:00:00.100Z"), ("20261130-060000-0000", "2026-11-30T06:00:00.900Z")]
    {
        let mut run = report(id, [1.0; 3], [1.0; 3]);
        run.started_at = at.into();
        save_run_in(dir.path(), &Finished::from(run)).unwrap();
    }
    let ids: Vec<String> = load_runs_from(dir.path()).iter().map(|r| r.run_id().to_string()).collect();
    assert_eq!(ids, ["20261130-060000-ffff", "20261130-060000-0000"]);
}
