//! The form, header and history as a user meets them after runs: sentences
//! in the form's words, the header following the form, errors shown whole,
//! history lines in the unit each report judged on, and panes that say how
//! much lies beyond them.

use gcs_speed_tui::config::{Environment, FormOptions, Options};
use gcs_speed_tui::finished::Finished;
use gcs_speed_tui::tui::app::{App, Message};
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

mod views;
use views::fixtures::{app, replay, report, report_sized};
use views::{SIZES, press, screen};

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
            FormOptions { target: if etcd { "etcd" } else { "gcs" }.into(), ..FormOptions::default() },
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
    let options = Options { credentials: "/k.json".into(), ..Options::default() };
    let mut app = App::new(FormOptions::with(options.clone(), options.schedule_args()), Environment::default(), false);
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
    let rows = screen.lines().map(|line| line.chars().skip(1).take_while(|c| *c != '│').collect::<String>());
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
        app.update(Message::RunFinished(Ok(Finished::from(report))));
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
    let form = screen.lines().find_map(|l| l.starts_with("┌ options").then(|| l.chars().position(|c| c == '┐')));
    let form_width = form.flatten().expect("the form's top border") + 1;
    let rows: Vec<String> =
        screen.lines().map(|l| l.chars().skip(form_width).collect::<String>().replace('\u{a0}', " ")).collect();
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
        app.update(Message::RunFinished(Ok(Finished::from(report(&id, [7.9, 8.0, 8.1], [7.1, 7.0, 6.9])))));
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
        app.update(Message::RunFinished(Ok(Finished::from(report))));
    }
    press(&mut app, KeyCode::Char('h'));
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Down);
    // The comparison's last sentence: run #2's pair ratios (3.8, 1.93, 1.30)
    // put its interval's ends about 15x apart (0.55x to 8.2x), around no change.
    let last = "#2: no verdict yet (pooled rates http-json 16.00 vs grpc 8.31 MiB/s; the 95% interval is too wide to read (its ends over 2.5x apart): run more rounds, 3 pairs)";
    let (first, text) = comparison_pane(&app, 100, 30);
    assert!(!text.contains(last), "cut at 100x30 (else this test shows nothing):\n{first}");
    let below: usize = first
        .split("↓ ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the border says how much is below:\n{first}"));
    let out_of_sight = if below == 1 { "1 line".to_string() } else { format!("{below} lines") };
    assert!(first.contains(&format!("↓ {out_of_sight} below: ] scrolls down")), "{first}");
    for _ in 0..below.div_ceil(5) {
        press(&mut app, KeyCode::Char(']')); // five lines a press, as the results pane
    }
    let (end, text) = comparison_pane(&app, 100, 30);
    assert!(text.contains(last), "] scrolled to the end:\n{end}");
    assert!(end.contains(&format!("↑ {out_of_sight} above: [ scrolls up")), "never past the end:\n{end}");
    for _ in 0..below.div_ceil(5) {
        press(&mut app, KeyCode::Char('['));
    }
    assert_eq!(comparison_pane(&app, 100, 30).0, first, "[ goes back to the top");
    let (whole, text) = comparison_pane(&app, 200, 60);
    assert!(text.contains(last) && !whole.contains(['↓', '↑']), "whole at 200x60, no scroll note:\n{whole}");
}

/// A run that could not start leaves the header saying so, not "ready"
/// (nor the ending of the run before it).
#[test]
fn the_header_says_a_run_could_not_start() {
    let mut app = app();
    replay(&mut app, report("20261130-060000-abcd", [8.0, 8.2, 8.1], [7.9, 7.8, 7.7]));
    press(&mut app, KeyCode::Char('r'));
    app.update(Message::RunFinished(Err("cannot reach http://127.0.0.1:9: connection refused".into())));
    let header = screen(&app, 100, 30).lines().next().unwrap().to_string();
    assert!(header.contains("could not start"), "{header}");
    assert!(!header.contains("ready") && !header.contains("done"), "{header}");
}

/// A cancel says what the run going will do, from the options it started
/// with: a form edited since (Cleanup turned on) does not change it.
#[test]
fn a_cancel_says_what_the_run_started_with_not_the_form_now() {
    let mut options = FormOptions { target: "etcd".into(), ..FormOptions::default() };
    options.schedule.cleanup = false;
    let mut app = App::new(options, Environment::default(), false);
    press(&mut app, KeyCode::Char('r'));
    assert!(app.running, "the run started: {:?}", app.status);
    app.form.options.schedule.cleanup = true;
    app.form.options.target = "gcs".into();
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.status.as_deref(), Some("cancelling: stopping requests and keeping this run's keys (Cleanup off)"));
}
