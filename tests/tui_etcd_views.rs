//! Snapshots of the app with the etcd target: its form, a run in progress
//! (ops/s lanes), and the result table, history and comparison after runs,
//! fed fixed events and reports.

mod views;
use gcs_speed_tui::config::{Options, TransportKind};
use gcs_speed_tui::engine::events::{Phase, RoundDone, RunEvent};
use gcs_speed_tui::engine::report::RunOutcome;
use gcs_speed_tui::etcd::options::EtcdRunArgs;
use gcs_speed_tui::etcd::report::{EtcdReport, KeysCleanup};
use gcs_speed_tui::etcd::rounds::{EtcdRound, summarize};
use gcs_speed_tui::etcd::workload::latency_histogram;
use gcs_speed_tui::tui::app::{App, Message};
use gcs_speed_tui::tui::finished::Finished;
use ratatui::crossterm::event::KeyCode;
use views::{press, three_sizes};

fn options() -> Options {
    Options { target: "etcd".into(), ..Options::default() }
}

fn app() -> App {
    App::new(options(), Default::default(), false)
}

/// Three paired put rounds: gRPC at 7000 ops/s, HTTP at 4500, fixed latencies.
fn report(run_id: &str, http_ops_s: f64) -> EtcdReport {
    let config = EtcdRunArgs::from_form(&options()).validate().unwrap();
    let mut rounds = Vec::new();
    for round in 0..3 {
        for (transport, ops_s, micros, sent, received) in
            [(TransportKind::Json, http_ops_s, 2000, 574, 435), (TransportKind::Grpc, 7000.0, 1300, 360, 72)]
        {
            let mut latency = latency_histogram();
            latency.record_n(micros, 79_000).unwrap();
            latency.record_n(micros * 5, 1000).unwrap();
            rounds.push(EtcdRound {
                transport,
                round,
                elapsed_s: 80_000.0 / ops_s,
                ops: 80_000,
                errors: 0,
                error_kinds: Default::default(),
                ok: true,
                cpu_s: 80_000.0 * 50e-6,
                server_cpu_s: Some(80_000.0 * if transport == TransportKind::Json { 300e-6 } else { 160e-6 }),
                wire_sent_bytes: 80_000 * sent,
                wire_received_bytes: 80_000 * received,
                latency,
                span: Default::default(),
            });
        }
    }
    let summaries = [(TransportKind::Json, "HTTP/1.1", 10), (TransportKind::Grpc, "HTTP/2", 1)]
        .map(|(kind, protocol, connections)| summarize(kind, protocol.into(), connections, &rounds))
        .to_vec();
    let prefix = format!("gcs-speed-tui/{run_id}/");
    let cleanup = KeysCleanup { prefix, deleted: 10_000, kept: false, error: None };
    let mut report = EtcdReport::new(
        run_id.into(),
        "2026-12-01T06:00:00.000Z".into(),
        &config,
        summaries,
        rounds,
        RunOutcome::Completed,
        cleanup,
        None,
    );
    report.config.client_threads = 1; // the same on every machine the snapshot is taken on
    report
}

#[test]
fn etcd_form() {
    insta::assert_snapshot!(three_sizes(&app()));
}

#[test]
fn etcd_run_in_progress() {
    let mut app = app();
    press(&mut app, KeyCode::Char('r'));
    let events = [
        RunEvent::Started {
            run_id: "r".into(),
            target: "etcd at http://127.0.0.1:2379".into(),
            rounds_per_transport: Some(3),
        },
        RunEvent::Phase(Phase::Measuring),
        RunEvent::RoundStarted { transport: TransportKind::Json, round: Some(0), at_s: 1.0 },
        RunEvent::Progress { transport: TransportKind::Json, round: Some(0), done: 9000, total: 80_000, at_s: 3.0 },
        RunEvent::RoundDone(RoundDone {
            transport: TransportKind::Json,
            round: 0,
            done: 80_000,
            elapsed_s: 16.0,
            ok: true,
        }),
        RunEvent::Latencies {
            transport: TransportKind::Json,
            histogram: Box::new({
                let mut h = latency_histogram();
                for micros in 1..=200 {
                    h.record_n(micros * 20, 400).unwrap();
                }
                h
            }),
        },
        RunEvent::RoundStarted { transport: TransportKind::Grpc, round: Some(0), at_s: 17.0 },
        RunEvent::Progress { transport: TransportKind::Grpc, round: Some(0), done: 35_000, total: 80_000, at_s: 22.0 },
    ];
    for event in events {
        app.update(Message::Run(event));
    }
    let lane = &app.live.as_ref().unwrap().lanes[0];
    assert_eq!(lane.average_mib_s(), Some(5000.0), "80000 ops in 16 s: ops/s, not MiB/s");
    let (p50, _, p99) = lane.latency_percentiles().unwrap();
    assert_eq!((p50, p99), (2.0e-3, 3.961e-3), "the merged histogram's, as the report computes them");
    insta::assert_snapshot!(three_sizes(&app));
}

#[test]
fn etcd_results_history_and_comparison() {
    let mut app = app();
    press(&mut app, KeyCode::Char('r'));
    app.update(Message::RunFinished(Ok(Finished::Etcd(Box::new(report("20261201-060000-aaaa", 4500.0))))));
    assert!(!app.running);
    let results = three_sizes(&app);
    assert!(results.contains("grpc was 55.6% faster than http-json (7000 vs 4500 ops/s"), "{results}");
    press(&mut app, KeyCode::Char('r'));
    app.update(Message::RunFinished(Ok(Finished::Etcd(Box::new(report("20261201-061000-bbbb", 5000.0))))));
    press(&mut app, KeyCode::Char('h'));
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Down);
    let history = three_sizes(&app);
    assert!(history.contains("+11.1%"), "http-json 4500 -> 5000 ops/s: {history}");
    insta::assert_snapshot!(format!("{results}\n{history}"));
}
