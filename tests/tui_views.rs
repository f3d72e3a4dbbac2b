//! Snapshots of the app's views (ratatui TestBackend + insta), fed synthetic
//! run events with fixed numbers: the form valid and invalid, a run in
//! progress, results, a history comparison, help, and a too-small window.

use gcs_speed_tui::config::{Environment, Options, TransportKind};
use gcs_speed_tui::engine::events::{ItemDone, Phase, RoundDone, RunEvent};
use gcs_speed_tui::gcs::report::{Cleanup, RunOutcome, RunReport};
use gcs_speed_tui::gcs::stats::{Accounting, ObjectSample, RoundSample, summarize};
use gcs_speed_tui::gcs::transport::Phases;
use gcs_speed_tui::tui::app::{App, Message};
use gcs_speed_tui::tui::finished::Finished;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

mod views;
use views::{SIZES, press, screen, target, three_sizes};

const MIB: u64 = 1 << 20;

fn app() -> App {
    App::new(Options { size: "64MiB".into(), ..Options::default() }, Environment::default(), false)
}

/// A finished run with fixed figures: 64 MiB rounds, http-json at 8.04/8.51/8.83 s.
fn report(run_id: &str, json_rounds: [f64; 3], grpc_rounds: [f64; 3]) -> RunReport {
    report_sized(run_id, 64 * MIB, json_rounds, grpc_rounds)
}

/// A finished run of one `size`-byte object per round, each round taking the seconds given.
fn report_sized(run_id: &str, size: u64, json_rounds: [f64; 3], grpc_rounds: [f64; 3]) -> RunReport {
    let config = Options { size: format!("{size}B"), ..Options::default() }.validate(&Environment::default()).unwrap();
    let mut rounds = Vec::new();
    let mut samples = Vec::new();
    for (kind, times) in [(TransportKind::Json, json_rounds), (TransportKind::Grpc, grpc_rounds)] {
        for (round, elapsed_s) in times.into_iter().enumerate() {
            let cpu_s = if kind == TransportKind::Json { 0.08 / 3.0 } else { 0.2 / 3.0 };
            let wire_bytes = size + 4096;
            rounds.push(RoundSample {
                transport: kind,
                operation: gcs_speed_tui::gcs::stats::Operation::Upload,
                round: round as u32,
                elapsed_s,
                bytes: size,
                ok: true,
                cpu_s,
                wire_bytes,
                retransmitted_bytes: 0,
                span: Default::default(),
            });
            samples.push(ObjectSample {
                host: String::new(),
                transport: kind,
                operation: gcs_speed_tui::gcs::stats::Operation::Upload,
                round: round as u32,
                worker: 0,
                object: format!("p/{run_id}/{}/{round:04}-0", kind.name()),
                bytes: size,
                start_s: round as f64 * 20.0,
                elapsed_s,
                ok: true,
                error: None,
                // 0.05 s each for session and finalize, less for rounds under half a second.
                phases: {
                    let edge_s = (elapsed_s / 10.0).min(0.05);
                    Phases { session_s: edge_s, transfer_s: elapsed_s - 2.0 * edge_s, finalize_s: edge_s }
                },
                retries: 0,
                resumes: 0,
                resent_bytes: 0,
                first_byte_s: None,
                unchecked: false,
                error_kind: None,
                retried_after: Default::default(),
            });
        }
    }
    let accounting = |kind| Accounting {
        protocol: if kind == TransportKind::Json { "HTTP/1.1".into() } else { "HTTP/2 (1 channel)".into() },
        connections: 1,
        ..Accounting::default()
    };
    let transports = [TransportKind::Json, TransportKind::Grpc]
        .map(|kind| {
            summarize(kind, gcs_speed_tui::gcs::stats::Operation::Upload, size, &rounds, &samples, accounting(kind))
        })
        .to_vec();
    RunReport::new(
        run_id.into(),
        "2026-11-30T06:00:00.000Z".into(),
        target(),
        config,
        transports,
        samples,
        rounds,
        RunOutcome::Completed,
        Cleanup { deleted: 6, left: vec![], kept: vec![] },
    )
}

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
            error_kind: None,
            retried_after: Default::default(),
        })),
        RunEvent::RoundDone(RoundDone::from(&RoundSample {
            transport: TransportKind::Json,
            operation: gcs_speed_tui::gcs::stats::Operation::Upload,
            round: 0,
            elapsed_s: 8.0,
            bytes: 64 * MIB,
            ok: true,
            cpu_s: 0.03,
            wire_bytes: 64 * MIB,
            retransmitted_bytes: 0,
            span: Default::default(),
        })),
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
fn replay(app: &mut App, report: RunReport) {
    press(app, KeyCode::Char('r'));
    let events = [
        RunEvent::Started {
            run_id: report.run_id.clone(),
            target: report.target.describe(),
            rounds_per_transport: Some(report.config.iterations),
        },
        RunEvent::Phase(Phase::Measuring),
    ];
    for event in events {
        app.update(Message::Run(event));
    }
    let mut at_s = 0.0;
    for round in &report.rounds {
        let transport = round.transport;
        app.update(Message::Run(RunEvent::RoundStarted { transport, round: Some(round.round), at_s }));
        at_s += round.elapsed_s;
        let (bytes, bytes_total) = (round.bytes, report.config.bytes_per_round());
        app.update(Message::Run(RunEvent::Progress {
            transport,
            round: Some(round.round),
            done: bytes,
            total: bytes_total,
            at_s,
        }));
        for sample in report.samples.iter().filter(|s| s.transport == transport && s.round == round.round) {
            app.update(Message::Run(RunEvent::ItemDone(sample.into())));
        }
        app.update(Message::Run(RunEvent::RoundDone(round.into())));
    }
    app.update(Message::Tick(at_s + 1.0));
    app.update(Message::RunFinished(Ok(Finished::Gcs(Box::new(report)))));
}

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
        app.update(Message::RunFinished(Ok(Finished::Gcs(Box::new(report(id, json, grpc))))));
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
    app.update(Message::RunFinished(Ok(Finished::Gcs(Box::new(finished)))));
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
    app.update(Message::RunFinished(Ok(Finished::Gcs(Box::new(report("x", [1.0; 3], [1.0; 3]))))));
    assert!(app.quit);
}

/// Finished runs are kept as the same JSON as export, read back whole in a
/// later session's history, and only the newest `HISTORY_LIMIT` are kept.
#[test]
fn runs_are_kept_across_sessions_bounded() {
    use gcs_speed_tui::tui::persist::{HISTORY_LIMIT, load_runs_from, save_run_in};
    let dir = tempfile::tempdir().unwrap();
    let first = report("20261130-060000-aaaa", [8.0, 8.0, 8.0], [7.0, 7.0, 7.0]);
    let first = Finished::Gcs(Box::new(first));
    save_run_in(dir.path(), &first).unwrap();
    let text = std::fs::read_to_string(dir.path().join("20261130-060000-aaaa.json")).unwrap();
    assert_eq!(text, first.to_json() + "\n", "the same JSON as export");
    let loaded = load_runs_from(dir.path());
    let mut expected = first.clone();
    if let Finished::Gcs(report) = &mut expected {
        report.config.notes.clear(); // said at the start of a run, not kept in reports
    }
    assert_eq!(loaded, [expected], "read back whole");
    for i in 1..=HISTORY_LIMIT {
        let kept = Finished::Gcs(Box::new(report(&format!("20261130-06{:04}-bbbb", i), [1.0; 3], [1.0; 3])));
        save_run_in(dir.path(), &kept).unwrap();
    }
    let loaded = load_runs_from(dir.path());
    assert_eq!(loaded.len(), HISTORY_LIMIT);
    assert_ne!(loaded[0].run_id(), first.run_id(), "the oldest went first");

    let mut app = App::with_history(
        Options::default(),
        Environment::default(),
        false,
        gcs_speed_tui::tui::history::History::with_earlier(vec![first]),
    );
    press(&mut app, KeyCode::Char('h'));
    let text = screen(&app, 120, 40);
    assert!(text.contains("#1 11-30 06:00:00 · emulator"), "earlier runs are listed with their day: {text}");
    app.update(Message::RunFinished(Ok(Finished::Gcs(Box::new(report("20261201-060000-cccc", [1.0; 3], [1.0; 3]))))));
    assert_eq!(app.history.this_session().len(), 1);
}

/// Every sentence the app shows names form fields, not CLI flags: a note
/// from the shared config code, each field's help, and a refusal to run.
#[test]
fn sentences_name_form_fields_not_flags() {
    // `emulator --tls` is another command's flag (the CA certificate's help
    // says how to start a TLS emulator), not a field of this form.
    let flag = |text: &str| {
        text.match_indices("--").any(|(i, _)| {
            text[i + 2..].starts_with(|c: char| c.is_ascii_lowercase()) && !text[i..].starts_with("--tls")
        })
    };
    let mut app = app();
    press(&mut app, KeyCode::Char('r'));
    let text = screen(&app, 120, 40);
    // The config's note "no --bucket given: ..." with --bucket said as the field's label.
    assert!(text.contains("no Bucket given"), "{text}");
    for etcd in [false, true] {
        let mut app = App::new(
            Options { target: if etcd { "etcd" } else { "gcs" }.into(), ..Options::default() },
            Environment::default(),
            false,
        );
        for index in 0..app.form.fields().len() {
            app.form.select_field(index);
            let text = screen(&app, 200, 60);
            assert!(!flag(&text), "{}: {text}", app.form.fields()[index].label);
        }
    }
    // "--credentials needs --bucket: ..." refused, in the status line and under the form.
    let mut app =
        App::new(Options { credentials: "/k.json".into(), ..Options::default() }, Environment::default(), false);
    press(&mut app, KeyCode::Char('r'));
    let text = screen(&app, 100, 30);
    assert!(text.contains("cannot run: Credentials needs Bucket"), "{text}");
    assert!(!flag(&text), "{text}");
}

/// Types `text` into the field labelled `label` (Ctrl-U clears it first).
fn type_into(app: &mut App, label: &str, text: &str) {
    let index = app.form.fields().iter().position(|f| f.label == label).unwrap();
    app.form.select_field(index);
    press(app, KeyCode::Enter);
    app.update(Message::Terminal(Event::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL))));
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
    press(app, KeyCode::Enter);
}

/// After a run, the header describes what the form will run next, not
/// the last run's target; with a field invalid it says so.
#[test]
fn the_header_follows_the_form_after_a_run() {
    let mut app = app();
    replay(&mut app, report("20261130-060000-abcd", [8.0, 8.2, 8.1], [7.9, 7.8, 7.7]));
    let header = |app: &App| screen(app, 100, 30).lines().take(2).collect::<Vec<_>>().join("\n");
    assert!(header(&app).contains("built-in emulator"), "{}", header(&app));
    type_into(&mut app, "Bucket", "my-bucket");
    let said = header(&app);
    assert!(said.contains("target: gs://my-bucket on GCS"), "{said}");
    assert!(!said.contains("emulator"), "the last run's target is not what runs next: {said}");
    type_into(&mut app, "Object size", "12XB");
    let said = header(&app);
    assert!(said.contains("Object size"), "the header names the invalid field: {said}");
    assert!(!said.contains("gs://my-bucket") && !said.contains("emulator"), "{said}");
}

/// The form's column of the screen, its rows' text joined by spaces (what
/// a reader reads down the pane, wrapping undone).
fn form_text(screen: &str) -> String {
    let rows = screen.lines().map(|line| line.chars().skip(1).take(40).collect::<String>());
    rows.map(|row| row.trim().to_string()).filter(|row| !row.is_empty()).collect::<Vec<_>>().join(" ")
}

/// After a run the form is short (the results take the rest), yet an
/// invalid field's sentence shows whole under it at every size.
#[test]
fn an_error_under_the_form_shows_whole_after_a_run() {
    let mut app = app();
    replay(&mut app, report("20261130-060000-abcd", [8.0, 8.2, 8.1], [7.9, 7.8, 7.7]));
    type_into(&mut app, "Object size", "12XB");
    // The CLI's sentence for --size 12XB, --size said as the field's label.
    let sentence = "Object size: '12XB' is not a size: use a number with B, KiB, MiB, GiB, KB, MB or GB, like 64MiB";
    for (width, height) in SIZES {
        let text = screen(&app, width, height);
        assert!(form_text(&text).contains(sentence), "{width}x{height}:\n{text}");
    }
}

/// Runs of small objects are judged on objects/s (the report's verdict
/// says so): the history lines and the comparison show that rate, not MiB/s.
#[test]
fn small_object_runs_show_objects_per_second_in_the_history() {
    let mut app = app();
    // One 1 KiB object a round: objects/s = 3 objects / the rounds' total seconds.
    let runs = [
        ("20261130-060000-aaaa", [0.010, 0.011, 0.012], [0.005, 0.0056, 0.0059]), // 3/0.033 = 90.91, 3/0.0165 = 181.8
        ("20261130-061000-bbbb", [0.009, 0.010, 0.011], [0.0044, 0.0051, 0.0055]), // 3/0.030 = 100.0, 3/0.015 = 200.0
    ];
    for (id, json, grpc) in runs {
        let report = report_sized(id, 1024, json, grpc);
        assert!(report.summary_line().contains("judged on objects/s"), "{}", report.summary_line());
        app.update(Message::RunFinished(Ok(Finished::Gcs(Box::new(report)))));
    }
    press(&mut app, KeyCode::Char('h'));
    let text = screen(&app, 200, 60).replace('\u{a0}', " ");
    for shown in
        ["http-json 90.91 objects/s · grpc 181.8 objects/s", "http-json 100.0 objects/s · grpc 200.0 objects/s"]
    {
        assert!(text.contains(shown), "{shown}:\n{text}");
    }
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Down);
    let text = screen(&app, 200, 60).replace('\u{a0}', " ");
    // 100.0/90.91 - 1 = +10.0%; 200.0/181.8 - 1 = +10.0%.
    for row in ["#1 90.91 objects/s   #2 100.0 objects/s   +10.0%", "#1 181.8 objects/s   #2 200.0 objects/s   +10.0%"]
    {
        assert!(text.contains(row), "{row}:\n{text}");
    }
    assert!(!text.contains("MiB/s"), "no MiB/s where the verdict is on objects/s:\n{text}");
}

/// The rows of the pane right of the form whose top border has `title`,
/// through its bottom border; a no-break space read as the space it shows.
fn right_pane(screen: &str, title: &str) -> Vec<String> {
    let rows: Vec<String> =
        screen.lines().map(|l| l.chars().skip(42).collect::<String>().replace('\u{a0}', " ")).collect();
    let top = rows.iter().position(|r| r.starts_with(&format!("┌ {title}"))).expect(title);
    let bottom = top + rows[top..].iter().position(|r| r.starts_with('└')).unwrap();
    rows[top..=bottom].to_vec()
}

/// Twelve runs: every entry shows whole at every size (wrapped at words,
/// never cut with "…"), and the border says how many lie above or below.
#[test]
fn the_history_list_reads_whole_and_says_how_many_more() {
    let mut app = app();
    for i in 0..12 {
        let id = format!("20261130-06{i:02}00-aaaa");
        // 3 x 64 MiB in 24 s (http-json) and in 21 s (grpc): 8.00 and 9.14 MiB/s.
        app.update(Message::RunFinished(Ok(Finished::Gcs(Box::new(report(&id, [7.9, 8.0, 8.1], [7.1, 7.0, 6.9]))))));
    }
    press(&mut app, KeyCode::Char('h'));
    let shown = |list: &[String]| -> Vec<usize> {
        let text = list.join("\n");
        (1..=12).filter(|n| text.contains(&format!("#{n} 11-30 06:00:00 · emulator · upload 64MiB x3 c1"))).collect()
    };
    for (width, height) in SIZES {
        for up in [0, 11] {
            for _ in 0..up {
                press(&mut app, KeyCode::Up);
            }
            let list = right_pane(&screen(&app, width, height), "history");
            let text = list.join("\n");
            assert!(!text.contains('…'), "{width}x{height}:\n{text}");
            let on_screen = shown(&list);
            let selected = if up == 0 { 12 } else { 1 };
            assert!(on_screen.contains(&selected), "{width}x{height}: #{selected} is selected:\n{text}");
            // The rest of each entry whole, once per entry shown.
            for rest in ["chunk 16 MiB crc32c", "http-json 8.00 MiB/s · grpc 9.14 MiB/s"] {
                assert_eq!(text.matches(rest).count(), on_screen.len(), "{width}x{height} {rest}:\n{text}");
            }
            let (above, below) = (on_screen[0] - 1, 12 - on_screen[on_screen.len() - 1]);
            assert_eq!(above + below + on_screen.len(), 12, "{width}x{height}: shown in one block:\n{text}");
            let top_says = format!("↑ {above} more");
            let bottom_says = format!("↓ {below} more");
            assert_eq!(list[0].contains(&top_says), above > 0, "{width}x{height} {top_says}:\n{text}");
            assert_eq!(
                list[list.len() - 1].contains(&bottom_says),
                below > 0,
                "{width}x{height} {bottom_says}:\n{text}"
            );
            if up > 0 {
                for _ in 0..up {
                    press(&mut app, KeyCode::Down);
                }
            }
        }
    }
    let list = right_pane(&screen(&app, 100, 30), "history");
    assert!(shown(&list).len() < 12, "at 100x30 the list outgrows its pane (else this test shows nothing)");
}

/// The comparison pane at this size: its rows as drawn, and its text read
/// across its wrapped lines (borders and the no-break spaces gone).
fn comparison_pane(app: &App, width: u16, height: u16) -> (String, String) {
    let text = screen(app, width, height).replace('\u{a0}', " ");
    let rows: Vec<&str> = text.lines().collect();
    let top = rows.iter().position(|r| r.starts_with("┌ run #2 against run #1")).unwrap();
    let bottom = top + rows[top..].iter().position(|r| r.starts_with('└')).unwrap();
    let inner = rows[top + 1..bottom].iter().map(|r| r.trim_matches('│').trim()).filter(|r| !r.is_empty());
    (rows[top..=bottom].join("\n"), inner.collect::<Vec<_>>().join(" "))
}

/// Two runs to long-named buckets, both too noisy to say by how much: at
/// 100x30 their comparison outgrows its pane; its border says how much lies
/// below, ] scrolls to it and [ back.
#[test]
fn the_comparison_scrolls_and_says_what_lies_beyond() {
    let mut app = app();
    for (id, bucket, json, grpc) in [
        (
            "20261130-060000-aaaa",
            "benchmarks-for-the-storage-team-in-europe-west4-primary-00001",
            [6.0, 8.0, 10.0],
            [7.1, 7.0, 6.9],
        ),
        (
            "20261130-061000-bbbb",
            "benchmarks-for-the-storage-team-in-us-central1-secondary-0002",
            [2.0, 4.0, 6.0],
            [7.6, 7.7, 7.8],
        ),
    ] {
        let mut report = report(id, json, grpc);
        report.target.kind = "gcs".into();
        report.target.bucket = bucket.into();
        app.update(Message::RunFinished(Ok(Finished::Gcs(Box::new(report)))));
    }
    press(&mut app, KeyCode::Char('h'));
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Down);
    // The comparison's last sentence: run #2's pair ratios (3.8, 1.93, 1.30)
    // spread its interval over far more than 100 points, around no change.
    let last = "#2: no verdict yet (http-json 16.00 vs grpc 8.31 MiB/s; the 95% interval is over 100 points wide, too wide to read: run more rounds, 3 pairs)";
    let (first, text) = comparison_pane(&app, 100, 30);
    assert!(!text.contains(last), "cut at 100x30 (else this test shows nothing):\n{first}");
    let below: usize = first
        .split("↓ ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the border says how much is below:\n{first}"));
    assert!(first.contains(&format!("↓ {below} more lines: ] scrolls down")), "{first}");
    for _ in 0..below.div_ceil(5) {
        press(&mut app, KeyCode::Char(']')); // five lines a press, as the results pane
    }
    let (end, text) = comparison_pane(&app, 100, 30);
    assert!(text.contains(last), "] scrolled to the end:\n{end}");
    assert!(end.contains(&format!("↑ {below} lines above: [ scrolls up")), "never past the end:\n{end}");
    for _ in 0..below.div_ceil(5) {
        press(&mut app, KeyCode::Char('['));
    }
    assert_eq!(comparison_pane(&app, 100, 30).0, first, "[ goes back to the top");
    let (whole, text) = comparison_pane(&app, 200, 60);
    assert!(text.contains(last) && !whole.contains("more lines"), "whole at 200x60:\n{whole}");
}
