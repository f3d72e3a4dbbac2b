//! The live pane against the result table: fed the events a real GCS run
//! sends on its way to a report, the lanes must say what the table says
//! (the same percentiles, rates and unit), each operation of a w1r3 run
//! apart, nothing unmeasured as a measured 0, how the run ended, and
//! progress visible without colour.

use gcs_speed_tui::config::{Environment, Options, TransportKind};
use gcs_speed_tui::engine::events::{Phase, RunEvent};
use gcs_speed_tui::finished::Finished;
use gcs_speed_tui::gcs::report::{Cleanup, RunOutcome, RunReport};
use gcs_speed_tui::gcs::stats::{Accounting, ObjectSample, Operation, RoundSample, summarize_samples};
use gcs_speed_tui::tui::app::{App, Message};
use ratatui::crossterm::event::KeyCode;

mod views;
use gcs_speed_tui::targets::FormOptions;
use views::{press, screen, target};

const MIB: u64 = 1 << 20;
const KIB: u64 = 1 << 10;

/// One part of one round: its objects' times (each finished) and the part's time.
struct Part {
    kind: TransportKind,
    operation: Operation,
    round: u32,
    times: Vec<f64>,
    bytes_each: u64,
    elapsed_s: f64,
}

fn sample(part: &Part, worker: usize, elapsed_s: f64) -> ObjectSample {
    ObjectSample {
        host: String::new(),
        transport: part.kind,
        operation: part.operation,
        round: part.round,
        worker: worker as u32,
        object: format!("o/{}/{}/{worker}", part.kind.name(), part.round),
        bytes: part.bytes_each,
        start_s: 0.0,
        elapsed_s,
        ok: true,
        error: None,
        error_kind: None,
        phases: Default::default(),
        retries: 0,
        resumes: 0,
        resent_bytes: 0,
        retried_after: Default::default(),
        first_byte_s: None,
        unchecked: false,
        intended_s: None,
        ranges: None,
        flushes: None,
        read_back: None,
    }
}

/// The report a run of `options` made of `parts` ends with, summed by the report's own code.
fn report(options: &Options, parts: &[Part], outcome: RunOutcome) -> RunReport {
    let config = options.validate(&Environment::default()).unwrap();
    let mut rounds = Vec::new();
    let mut samples = Vec::new();
    for part in parts {
        samples.extend(part.times.iter().enumerate().map(|(worker, &t)| sample(part, worker, t)));
        rounds.push(RoundSample {
            transport: part.kind,
            operation: part.operation,
            round: part.round,
            elapsed_s: part.elapsed_s,
            bytes: part.bytes_each * part.times.len() as u64,
            ok: true,
            cpu_s: 0.01,
            wire_bytes: part.bytes_each * part.times.len() as u64,
            retransmitted_bytes: 0,
            host_cpu: None,
            span: Default::default(),
            paced: None,
            items: None,
            rounds_held: 1,
        });
    }
    let mut transports = Vec::new();
    for &operation in Operation::of(config.workload) {
        for &kind in &config.transports {
            let per_round =
                rounds.iter().find(|r| r.transport == kind && r.operation == operation).map_or(0, |r| r.bytes);
            let accounting = Accounting { protocol: "HTTP/1.1".into(), connections: 1, ..Accounting::default() };
            transports.push(summarize_samples(kind, operation, per_round, &rounds, &samples, accounting));
        }
    }
    let cleanup = Cleanup { deleted: 0, left: vec![], kept: vec![] };
    let id = "20261202-060000-abcd".to_string();
    let started = "2026-12-02T06:00:00.000Z".to_string();
    RunReport::new(id, started, target(), config, transports, samples, rounds, outcome, cleanup)
}

/// The events a run sends on its way to `report`, in order: each part
/// started, its bytes, its objects, its end (w1r3's uploads end as a
/// part, its reads as the round); `upto` of them, then the report if all.
fn replay(app: &mut App, report: &RunReport, upto: usize) {
    app.update(Message::Tick(0.0));
    press(app, KeyCode::Char('r'));
    let started = RunEvent::Started {
        run_id: report.run_id.clone(),
        target: report.target.describe(),
        rounds_per_transport: Some(report.config.iterations),
    };
    let mut events = vec![started, RunEvent::Phase(Phase::Measuring)];
    let mut at_s = 0.0;
    for round in &report.rounds {
        let (transport, index) = (round.transport, Some(round.round));
        events.push(RunEvent::RoundStarted { transport, round: index, at_s });
        at_s += round.elapsed_s;
        events.push(RunEvent::Progress { transport, round: index, done: round.bytes, total: round.bytes, at_s });
        let done = report
            .samples
            .iter()
            .filter(|s| (s.transport, s.operation, s.round) == (transport, round.operation, round.round));
        events.extend(done.map(|s| RunEvent::ItemDone(s.into())));
        let first_part =
            report.config.workload == gcs_speed_tui::config::Workload::W1r3 && round.operation == Operation::Upload;
        events.push(if first_part { RunEvent::PartDone(round.into()) } else { RunEvent::RoundDone(round.into()) });
    }
    let all = upto >= events.len();
    for event in events.into_iter().take(upto) {
        if let RunEvent::Progress { at_s, .. } = &event {
            app.update(Message::Tick(*at_s));
        }
        app.update(Message::Run(event));
    }
    if all {
        app.update(Message::Tick(at_s + 0.5));
        app.update(Message::RunFinished(Ok(Finished::from(report.clone()))));
    }
}

fn app(options: &Options) -> App {
    App::new(FormOptions::with(options.clone(), options.schedule_args()), Environment::default(), false)
}

fn options(size: &str, workload: &str, iterations: &str) -> Options {
    Options {
        size: size.into(),
        workload: workload.into(),
        iterations: iterations.into(),
        concurrency: "1".into(),
        warmup: false,
        ..Options::default()
    }
}

/// The lanes' rows of a 120x40 screen (below them the chart or the table).
fn lanes(app: &App) -> String {
    screen(app, 120, 40).lines().take(14).collect::<Vec<_>>().join("\n")
}

/// Upload rounds of one object each, both transports in turn, as a run sends them.
fn uploads(times: &[f64], bytes_each: u64) -> Vec<Part> {
    let part = |round: usize, kind, t| Part {
        kind,
        operation: Operation::Upload,
        round: round as u32,
        times: vec![t],
        bytes_each,
        elapsed_s: t,
    };
    let kinds = [TransportKind::Json, TransportKind::Grpc];
    times.iter().enumerate().flat_map(|(round, &t)| kinds.map(|kind| part(round, kind, t))).collect()
}

#[test]
fn lane_percentiles_are_the_table_s() {
    // p50 of 0.2, 0.2884 and 0.35 s is 0.2884 s, which the report's
    // histogram (3 significant digits: 128 µs buckets from 262144 µs)
    // keeps as its bucket's top, 288511 µs: "0.289 s", in seconds as the
    // table prints times of large objects. p99 is the slowest, 0.350 s.
    let times = [0.2, 0.2884, 0.35];
    let options = options("64MiB", "upload", "3");
    let parts = uploads(&times, 64 * MIB);
    let report = report(&options, &parts, RunOutcome::Completed);
    let mut app = app(&options);
    replay(&mut app, &report, usize::MAX);
    let lanes = lanes(&app);
    assert_eq!(lanes.matches("upload p50 0.289 s · p99 0.350 s").count(), 2, "{lanes}");
    let table = screen(&app, 200, 60);
    assert!(table.contains("0.289 s") && !table.contains("288 ms"), "{table}");
}

#[test]
fn w1r3_lanes_show_uploads_and_reads_apart() {
    // Each round: one 4 MiB upload, then three reads of it (12 MiB).
    // Uploads take 1.0 and 1.2 s: 8 MiB in 2.2 s is 3.64 MiB/s; p50 1.00 s
    // (the 1 s bucket's top, 1.000191 s), p99 the slowest, 1.20 s. Reads
    // take 0.1, 0.2 and 0.3 s in each 0.6 s part: 24 MiB in 1.2 s is
    // 20.00 MiB/s; p50 0.200 s (bucket top 200063 µs), p99 0.300 s.
    let options = options("4MiB", "w1r3", "2");
    let mut parts = Vec::new();
    for kind in [TransportKind::Json, TransportKind::Grpc] {
        for (round, upload) in [1.0, 1.2].into_iter().enumerate() {
            let round = round as u32;
            let (upload_part, read_part) = (Operation::Upload, Operation::Download);
            parts.push(Part {
                kind,
                operation: upload_part,
                round,
                times: vec![upload],
                bytes_each: 4 * MIB,
                elapsed_s: upload,
            });
            parts.push(Part {
                kind,
                operation: read_part,
                round,
                times: vec![0.1, 0.2, 0.3],
                bytes_each: 4 * MIB,
                elapsed_s: 0.6,
            });
        }
    }
    let report = report(&options, &parts, RunOutcome::Completed);
    let mut app = app(&options);
    replay(&mut app, &report, usize::MAX);
    let lanes = lanes(&app);
    for line in [
        "uploads: avg 3.64 MiB/s",
        "upload p50 1.00 s · p99 1.20 s",
        "downloads: avg 20.00 MiB/s",
        "download p50 0.200 s · p99 0.300 s",
    ] {
        assert_eq!(lanes.matches(line).count(), 2, "both lanes say {line}:\n{lanes}");
    }
    let table = screen(&app, 200, 60);
    for figure in ["3.64 MiB/s", "20.00 MiB/s", "1.00 s", "0.200 s", "0.300 s"] {
        assert!(table.contains(figure), "the table agrees: {figure}\n{table}");
    }
}

#[test]
fn nothing_measured_is_not_shown_as_zero() {
    // http-json's round is over; grpc's has begun but sent nothing yet.
    let options = options("64MiB", "upload", "3");
    let parts = uploads(&[2.0, 2.0, 2.0], 64 * MIB);
    let report = report(&options, &parts, RunOutcome::Completed);
    let mut app = app(&options);
    // Started, Measuring, then http-json's round 1 (4 events) and grpc's RoundStarted.
    replay(&mut app, &report, 2 + 4 + 1);
    let lanes = lanes(&app);
    assert!(lanes.contains("grpc uploading"), "{lanes}");
    assert!(!lanes.contains("0.00 MiB/s"), "{lanes}");
    assert_eq!(lanes.matches("now - · avg").count(), 2, "{lanes}");
    assert!(lanes.contains("avg 32.00 MiB/s"), "64 MiB in 2 s: {lanes}");
}

#[test]
fn the_chart_says_how_the_run_ended() {
    let options = options("64MiB", "upload", "3");
    let parts = uploads(&[2.0], 64 * MIB);
    for (outcome, said) in [
        (RunOutcome::Cancelled, "· cancelled "),
        (RunOutcome::TimedOut, "· timed out "),
        (RunOutcome::Completed, "· finished "),
    ] {
        let report = report(&options, &parts, outcome);
        let mut app = app(&options);
        replay(&mut app, &report, usize::MAX);
        let text = screen(&app, 120, 40);
        assert!(text.contains(said), "{outcome:?}: {text}");
        if outcome != RunOutcome::Completed {
            assert!(!text.contains("· finished "), "{text}");
        }
    }
}

#[test]
fn small_objects_lead_with_objects_per_second() {
    // 1 KiB objects, under the report's 256 KiB line: rated in objects/s.
    // Each transport: three rounds of one object in 0.01 s: 3 objects in
    // 0.03 s, 100.0 objects/s (4 significant digits, as the table).
    let options = options("1KiB", "upload", "3");
    let parts = uploads(&[0.01, 0.01, 0.01], KIB);
    let report = report(&options, &parts, RunOutcome::Completed);
    let mut app = app(&options);
    replay(&mut app, &report, usize::MAX);
    let lanes = lanes(&app);
    assert_eq!(lanes.matches("avg 100.0 objects/s").count(), 2, "{lanes}");
    assert_eq!(lanes.matches("3/3 objects ·").count(), 2, "objects first: {lanes}");
    assert!(!lanes.contains("MiB/s"), "{lanes}");
    let text = screen(&app, 120, 40);
    assert!(text.contains("┌ objects/s ·"), "the chart's unit: {text}");
    assert!(text.contains("100.0 objects/s"), "the table's: {text}");
}

#[test]
fn gauges_fill_without_colour() {
    // One of three 64 MiB rounds done: a third of the gauge is filled, in
    // block characters or, under the label, reverse video.
    let options = options("64MiB", "upload", "3");
    let parts = uploads(&[2.0, 2.0, 2.0], 64 * MIB);
    let report = report(&options, &parts, RunOutcome::Completed);
    let mut app = app(&options);
    replay(&mut app, &report, 2 + 4);
    let buffer = views::buffer(&app, 120, 40);
    let text = screen(&app, 120, 40);
    let (y, line) = text.lines().enumerate().find(|(_, l)| l.contains("1/3 objects")).expect("the gauge's label");
    // The lane's inner columns: between its borders, the third and fourth on the row.
    let borders: Vec<usize> = line.chars().enumerate().filter(|(_, c)| *c == '│').map(|(x, _)| x).collect();
    let (left, right) = (borders[2] + 1, borders[3]);
    let filled = (left..right)
        .filter(|&x| {
            let cell = &buffer[(x as u16, y as u16)];
            cell.symbol() == "█" || cell.modifier.contains(ratatui::style::Modifier::REVERSED)
        })
        .count();
    let width = right - left;
    assert_eq!(filled, (width as f64 / 3.0).round() as usize, "{width} columns: {line}");
}

#[test]
fn w1r3_in_progress() {
    // http-json's first round (upload, then three reads) is done and its
    // second upload under way; grpc has not started.
    let options = options("4MiB", "w1r3", "2");
    let mut parts = Vec::new();
    for round in 0..2 {
        let (kind, bytes_each) = (TransportKind::Json, 4 * MIB);
        parts.push(Part { kind, operation: Operation::Upload, round, times: vec![1.0], bytes_each, elapsed_s: 1.0 });
        let times = vec![0.1, 0.2, 0.3];
        parts.push(Part { kind, operation: Operation::Download, round, times, bytes_each, elapsed_s: 0.6 });
    }
    let report = report(&options, &parts, RunOutcome::Completed);
    let mut app = app(&options);
    // Started, Measuring; round 1's upload (4 events) and reads (6); round 2's upload started, with its bytes.
    replay(&mut app, &report, 2 + 4 + 6 + 2);
    let text = views::three_sizes(&app);
    assert!(text.contains("http-json uploading"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn open_loop_draws_each_rounds_p50_and_p99_from_intended_start_against_time() {
    let mut options = options("1KiB", "upload", "3");
    (options.rate, options.round_time) = ("100".into(), "40ms".into());
    // 100/s in rounds of 40 ms: four uploads a round; http-json's last round meets a stall: two of its uploads wait 0.5 and 1.2 s.
    let (calm, stalled) = (vec![0.001, 0.002, 0.003, 0.004], vec![0.001, 0.002, 0.5, 1.2]);
    let round = |kind, round: u32, times: &Vec<f64>| Part {
        kind,
        operation: Operation::Upload,
        round,
        times: times.clone(),
        bytes_each: KIB,
        elapsed_s: 1.2,
    };
    let parts: Vec<Part> = (0..3)
        .flat_map(|r| {
            [round(TransportKind::Json, r, if r == 2 { &stalled } else { &calm }), round(TransportKind::Grpc, r, &calm)]
        })
        .collect();
    let report = report(&options, &parts, RunOutcome::Completed);
    let mut app = app(&options);
    // Every event but the last round's end: the run is still going.
    replay(&mut app, &report, 2 + 6 * 7 - 1);
    assert!(app.running);
    // Nearest rank of four: p50 the 2nd, p99 the 4th.
    let json: Vec<(f64, f64)> =
        app.live.as_ref().unwrap().lanes[0].round_latency.iter().map(|&(_, p50, p99)| (p50, p99)).collect();
    assert_eq!(json, [(0.002, 0.004), (0.002, 0.004), (0.002, 1.2)]);
    let grpc = &app.live.as_ref().unwrap().lanes[1].round_latency;
    assert_eq!(grpc.len(), 2, "gRPC's last round has not ended");
    let screen = screen(&app, 120, 40);
    assert!(screen.contains("latency") && screen.contains("upper p99, lower p50"), "{screen}");
    // gRPC's last round is under way and its objects are told when it ends:
    // nothing measured yet, not a rate of 0.
    assert!(!screen.contains("now 0 objects/s"), "{screen}");
    // Whole decades around 2 ms and 1.2 s: 1 ms up to 10 s.
    for decade in ["│1 ms", "│10 ms", "│100 ms", "│1 s", "│10 s"] {
        assert!(
            screen.lines().any(|l| l.contains(&format!("│{}", decade.trim_start_matches('│')))),
            "{decade}:\n{screen}"
        );
    }
    assert!(!screen.contains("MiB/s ·"), "no throughput chart in open loop: the offer sets it\n{screen}");
}
