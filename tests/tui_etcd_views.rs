//! Snapshots of the app with the etcd target: its form, a run in progress
//! (ops/s lanes), and the result table, history and comparison after runs,
//! fed fixed events and reports.

mod views;
use gcs_speed_tui::config::{FormOptions, TransportKind};
use gcs_speed_tui::engine::events::{Phase, RoundDone, RunEvent};
use gcs_speed_tui::engine::report::RunOutcome;
use gcs_speed_tui::etcd::form::EtcdOptions;
use gcs_speed_tui::etcd::report::{EtcdReport, EtcdSettings, KeysCleanup, Ran};
use gcs_speed_tui::etcd::rounds::{EtcdRound, summarize};
use gcs_speed_tui::etcd::workload::latency_histogram;
use gcs_speed_tui::finished::Finished;
use gcs_speed_tui::tui::app::{App, Message};
use ratatui::crossterm::event::KeyCode;
use views::{press, three_sizes};

fn options() -> FormOptions {
    FormOptions { target: "etcd".into(), ..FormOptions::default() }
}

fn app() -> App {
    App::new(options(), Default::default(), false)
}

/// Each round's time against its transport's steady one, as real rounds
/// vary: round 0 as steady (so a run in progress reads 4500 and 7000 ops/s),
/// then one a little slower and one a little faster, whose total is three
/// steady rounds' (so the run's ops/s stay 4500 and 7000).
const ROUND_TIMES: [(f64, f64); 3] = [(1.0, 1.0), (1.02, 0.99), (0.98, 1.01)];

/// Three paired put rounds: gRPC at 7000 ops/s, HTTP at 4500 (each round
/// off by `ROUND_TIMES`), fixed latencies.
fn report(run_id: &str, http_ops_s: f64) -> EtcdReport {
    report_with(run_id, http_ops_s, |_| {})
}

/// `report`, each round changed by `tweak` before the figures are made.
fn report_with(run_id: &str, http_ops_s: f64, tweak: impl Fn(&mut EtcdRound)) -> EtcdReport {
    let form = options();
    let config = form.options::<EtcdOptions>().run_args(form.schedule.clone()).validate().unwrap();
    let mut rounds = Vec::new();
    for round in 0..3 {
        let mut both =
            [(TransportKind::Json, http_ops_s, 2000, 574, 435), (TransportKind::Grpc, 7000.0, 1300, 360, 72)];
        if round % 2 == 1 {
            both.reverse(); // which transport goes first alternates by round, as the schedule does
        }
        for (transport, ops_s, micros, sent, received) in both {
            let mut latency = latency_histogram();
            latency.record_n(micros, 79_000).unwrap();
            latency.record_n(micros * 5, 1000).unwrap();
            rounds.push(EtcdRound {
                transport,
                round,
                elapsed_s: 80_000.0 / ops_s * {
                    let (json, grpc) = ROUND_TIMES[round as usize];
                    if transport == TransportKind::Json { json } else { grpc }
                },
                ops: 80_000,
                errors: 0,
                error_kinds: Default::default(),
                ok: true,
                cpu_s: 80_000.0 * 50e-6,
                server_cpu_s: Some(80_000.0 * if transport == TransportKind::Json { 300e-6 } else { 160e-6 }),
                host_cpu: None,
                wire_sent_bytes: 80_000 * sent,
                wire_received_bytes: 80_000 * received,
                latency,
                message_latency: latency_histogram(),
                span: Default::default(),
                paced: None,
                sampled: None,
                rounds_held: 1,
            });
        }
    }
    rounds.iter_mut().for_each(tweak);
    let summaries = [(TransportKind::Json, "HTTP/1.1", 10), (TransportKind::Grpc, "HTTP/2", 1)]
        .map(|(kind, protocol, connections)| summarize(kind, protocol.into(), connections, &rounds))
        .to_vec();
    let prefix = format!("gcs-speed-tui/{run_id}/");
    let cleanup = KeysCleanup { prefix, deleted: 10_000, kept: false, error: None };
    let ran = Ran {
        run_id: run_id.into(),
        started_at: "2026-12-01T06:00:00.000Z".into(),
        outcome: RunOutcome::Completed,
        stopped_because: None,
    };
    let mut report = EtcdReport::new(ran, EtcdSettings::of(&config), summaries, rounds, cleanup);
    report.config.load.client_threads = 1; // the same on every machine the snapshot is taken on
    report
}

#[test]
fn etcd_form() {
    insta::assert_snapshot!(three_sizes(&app()));
}

/// The events a run sends on its way to `report`, each at its run time,
/// in the order `etcd::runner` sends them: the warmup (a round of each
/// transport, progress but no end), then each round started, its progress
/// every second, its end and, complete, its latencies; then the cleanup.
fn events(report: &EtcdReport) -> Vec<(f64, RunEvent)> {
    let started = RunEvent::Started {
        run_id: report.run_id.clone(),
        target: "etcd at http://127.0.0.1:2379".into(),
        rounds_per_transport: Some(3),
    };
    let mut events = vec![(0.0, started), (0.0, RunEvent::Phase(Phase::Warmup))];
    let mut at_s = 0.0;
    for transport in [TransportKind::Json, TransportKind::Grpc] {
        events.push((at_s, RunEvent::RoundStarted { transport, round: None, at_s }));
        at_s += 0.2;
        events.push((at_s, RunEvent::Progress { transport, round: None, done: 1000, total: 1000, at_s }));
    }
    events.push((at_s, RunEvent::Phase(Phase::Measuring)));
    for r in &report.rounds {
        let (transport, round) = (r.transport, Some(r.round));
        events.push((at_s, RunEvent::RoundStarted { transport, round, at_s }));
        let (start, rate) = (at_s, r.ops as f64 / r.elapsed_s);
        for second in 1..=r.elapsed_s.floor() as u64 {
            let at_s = start + second as f64;
            let done = (rate * second as f64).round() as u64;
            events.push((at_s, RunEvent::Progress { transport, round, done, total: r.ops, at_s }));
        }
        at_s = start + r.elapsed_s;
        let done = RoundDone { transport, round: r.round, done: r.ops, elapsed_s: r.elapsed_s, ok: r.ok };
        events.push((at_s, RunEvent::RoundDone(done)));
        events.push((at_s, RunEvent::Latencies { transport, histogram: Box::new(r.latency.clone()) }));
    }
    events.push((at_s, RunEvent::Phase(Phase::CleaningUp)));
    events.push((at_s, RunEvent::CleanupDone { deleted: report.cleanup.deleted as usize, left: vec![] }));
    events
}

/// Runs `report` in the app as a real run would: `r`, its events with the
/// clock at each one's time, and (unless cut short at `until_s`) its report.
fn replay(app: &mut App, report: &EtcdReport, until_s: Option<f64>) {
    app.update(Message::Tick(100.0));
    press(app, KeyCode::Char('r'));
    let mut last = 0.0;
    for (at_s, event) in events(report) {
        if until_s.is_some_and(|until| at_s > until) {
            return;
        }
        app.update(Message::Tick(100.0 + at_s));
        app.update(Message::Run(event));
        last = at_s;
    }
    app.update(Message::Tick(100.0 + last + 0.1));
    app.update(Message::RunFinished(Ok(Finished::from(report.clone()))));
}

#[test]
fn etcd_run_in_progress() {
    // http-json's first round (80000 puts at 4500/s, 17.8 s) is done; grpc's
    // began at 18.2 s (after 0.4 s of warmup) and has run 5 s at 7000/s.
    let mut app = app();
    replay(&mut app, &report("r", 4500.0), Some(23.5));
    let text = three_sizes(&app);
    let at_120 = text.split("--- ").find(|s| s.starts_with("120x40")).unwrap();
    for impossible in ["no request done", "none finished yet", "round 0/3"] {
        assert!(!text.contains(impossible), "{impossible}:\n{text}");
    }
    for said in [
        "running 23.2 s",
        "80000 / 240000 ops · round 1/3",
        "35000 / 240000 ops · round 1/3",
        "avg 4500 ops/s",
        "now 7000 ops/s · avg -",
        "request p50 2.00 ms · p99 10.0 ms",
        "request times come at round end",
        "23.2 s│",
    ] {
        assert!(at_120.contains(said), "{said}:\n{at_120}");
    }
    // The lane's histogram is a 200-point sample of the round's: 79000 of
    // 80000 puts at 2 ms is 98.75% (99%), 1000 at 10 ms 1.25% (1%). Bars
    // say shares, not the sample's counts (198 and 2).
    let histogram = at_120.lines().skip_while(|l| !l.contains("% of requests by time (ms)")).take(4);
    let histogram = histogram.collect::<Vec<_>>().join("\n");
    assert!(histogram.contains("99%") && histogram.contains("1%"), "{histogram}\n{at_120}");
    assert!(!histogram.contains("198"), "{histogram}");
    insta::assert_snapshot!(text);
}

/// What each lane says once the run is over, worked out from the rounds the
/// report is made of: 3 rounds of 80000 puts each, at 4500 (http-json) or
/// 7000 (grpc) ops/s, latencies 79000 of 2 ms (grpc 1.3 ms) and 1000 of 10
/// ms (6.5 ms) a round, so p50 the first, p99 the second (1% of requests
/// exactly: the 99th percentile is the first of the slow ones). HdrHistogram
/// (3 significant digits) keeps 10 ms as 10.003 and 6.5 ms as 6.501.
fn lanes_agree_with_the_table(screen: &str) {
    for (ops_s, p50, p99) in [(4500, "2.00 ms", "10.0 ms"), (7000, "1.30 ms", "6.50 ms")] {
        for said in [format!("avg {ops_s} ops/s"), format!("request p50 {p50} · p99 {p99}")] {
            assert!(screen.contains(&said), "{said}:\n{screen}");
        }
    }
    assert_eq!(screen.matches("240000 / 240000 ops · round 3/3").count(), 2, "{screen}");
}

/// Switching Target after a run: the live pane says what the new target
/// will run, not the old target's lanes (etcd ops/s under a GCS form).
#[test]
fn a_new_target_clears_the_last_runs_lanes() {
    let mut app = app();
    replay(&mut app, &report("20261201-060000-aaaa", 4500.0), None);
    assert!(views::screen(&app, 120, 40).contains("240000 / 240000 ops"));
    let target = app.form.fields().iter().position(|f| f.key == "target").unwrap();
    app.form.select_field(target);
    press(&mut app, KeyCode::Left);
    assert_eq!(app.form.options.target, "gcs");
    let text = views::screen(&app, 120, 40);
    assert!(!text.contains("ops/s ·") && !text.contains("/ 240000 ops"), "{text}");
    assert!(text.contains("Press r to upload to the built-in emulator"), "{text}");
    let lead = format!("grpc was {} faster", lead_and_interval(4500.0).0);
    assert!(text.contains(&lead), "the last run's results stay: {text}");
}

/// A GCS run beside an etcd run in the history: the comparison says they
/// measured different things, and nothing about what "the change below" is.
#[test]
fn runs_of_two_targets_compare_nothing_and_say_only_that() {
    let mut app = app();
    replay(&mut app, &report("20261201-060000-aaaa", 4500.0), None);
    let target = app.form.fields().iter().position(|f| f.key == "target").unwrap();
    app.form.select_field(target);
    press(&mut app, KeyCode::Right);
    let gcs = views::fixtures::report("20261201-061000-bbbb", [8.0, 8.2, 8.1], [7.9, 7.8, 7.7]);
    views::fixtures::replay(&mut app, gcs);
    press(&mut app, KeyCode::Char('h'));
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Down);
    let text = views::screen(&app, 200, 60);
    assert!(text.contains("these runs measured different things (GCS and etcd): nothing to compare"), "{text}");
    assert!(!text.contains("the change below"), "{text}");
    // The GCS run deleted 6 objects, the etcd run 10000 keys: said apart, never added up.
    assert_eq!(
        app.farewell(),
        ["1 run of gcs: cleanup deleted 6, left 0", "1 run of etcd: cleanup deleted 10000, left 0"]
    );
}

#[test]
fn etcd_results_history_and_comparison() {
    let mut app = app();
    replay(&mut app, &report("20261201-060000-aaaa", 4500.0), None);
    assert!(!app.running);
    lanes_agree_with_the_table(&views::screen(&app, 120, 40));
    let results = three_sizes(&app);
    let read = results.replace('\u{a0}', " ");
    let (lead, interval) = lead_and_interval(4500.0);
    let said = format!("grpc was {lead} faster than http-json ({interval}, 3 pairs; pooled rates 7000 vs 4500 ops/s)");
    assert!(read.contains(&said), "{said}: {results}");
    replay(&mut app, &report("20261201-061000-bbbb", 5000.0), None);
    press(&mut app, KeyCode::Char('h'));
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Char(' '));
    press(&mut app, KeyCode::Down);
    let history = three_sizes(&app);
    assert!(history.contains("+11.1%"), "http-json 4500 -> 5000 ops/s: {history}");
    insta::assert_snapshot!(format!("{results}\n{history}"));
}

/// grpc's lead and its 95% interval, worked out from `ROUND_TIMES`: each
/// pair's log ratio is ln(7000/http * json time / grpc time); the lead is
/// their mean (the geometric mean of the ratios), the interval mean ± t(2) ×
/// sd/√3, t(2) = 4.3027. The rounds vary, so the interval has width (the
/// fixture's rounds were once identical: "+55.6% to +55.6%").
fn lead_and_interval(http_ops_s: f64) -> (String, String) {
    let logs: Vec<f64> = ROUND_TIMES.iter().map(|(json, grpc)| (7000.0 / http_ops_s * json / grpc).ln()).collect();
    let mean = logs.iter().sum::<f64>() / 3.0;
    let sd = (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / 2.0).sqrt();
    let half = 4.302_652_729_911_275 * sd / 3f64.sqrt();
    let percent = |log: f64| (log.exp() - 1.0) * 100.0;
    (format!("{:.1}%", percent(mean)), format!("95% CI {:+.1}% to {:+.1}%", percent(mean - half), percent(mean + half)))
}

#[test]
fn etcd_rounds_vary_and_the_interval_has_width() {
    let (lead, interval) = lead_and_interval(4500.0);
    assert_eq!(interval, "95% CI +44.4% to +67.6%");
    let mut app = app();
    replay(&mut app, &report("20261201-060000-aaaa", 4500.0), None);
    // No-break spaces (a number kept with its unit) read as the spaces they show.
    let text = views::screen(&app, 120, 40).replace('\u{a0}', " ");
    // The headline is the interval's own estimate; the totals, which
    // ROUND_TIMES leaves as they were, are said as pooled.
    let said = format!("grpc was {lead} faster than http-json ({interval}, 3 pairs; pooled rates 7000 vs 4500 ops/s)");
    assert!(text.contains(&said), "{said}:\n{text}");
}

#[test]
fn a_costlier_client_with_little_cpu_to_spare_cautions_the_verdict() {
    use gcs_speed_tui::engine::host_cpu::HostCpu;
    // Every round's host 90% busy; HTTP's client 100 µs a put against gRPC's 50.
    let busy = |round: &mut EtcdRound| {
        round.host_cpu = Some(HostCpu { busy_s: 1.8, all_s: 2.0, process_s: 0.0, process_allowed_s: 2.0 });
        if round.transport == TransportKind::Json {
            round.cpu_s = 80_000.0 * 100e-6;
        }
    };
    let report = report_with("20261201-060000-cafe", 4500.0, busy);
    assert_eq!(
        report.caution.as_deref(),
        Some(
            "caution: http-json's client took 2.00x grpc's CPU per op (100 µs against 50.0 µs) with little CPU to spare in its rounds (the CPU available to the tool was 90% busy): part of the difference may be the clients' own CPU, not the network or the service"
        )
    );
    // The same clients on a host with a core in five to spare, or alike on a busy one: none.
    let spare = report_with("20261201-060000-cafe", 4500.0, |round| {
        busy(round);
        round.host_cpu = Some(HostCpu { busy_s: 1.6, all_s: 2.0, process_s: 0.0, process_allowed_s: 2.0 });
    });
    assert_eq!(spare.caution, None);
    let alike = report_with("20261201-060000-cafe", 4500.0, |round| {
        busy(round);
        round.cpu_s = 80_000.0 * 50e-6;
    });
    assert_eq!(alike.caution, None);
}

#[test]
fn a_fleets_client_cores_are_each_hosts_not_the_fleets_rate_times_cpu_a_call() {
    use gcs_speed_tui::engine::host_cpu::HostCpu;
    use gcs_speed_tui::engine::timeline::Span;
    // Each host: HTTP's client 100 µs a put at 4500 puts/s, 0.45 of its one
    // client thread; the host half idle. Two such hosts put 9000 a second
    // together, but neither host's client was short of CPU.
    let spare = |round: &mut EtcdRound| {
        round.host_cpu = Some(HostCpu { busy_s: 1.0, all_s: 2.0, process_s: 0.0, process_allowed_s: 2.0 });
        if round.transport == TransportKind::Json {
            round.cpu_s = 80_000.0 * 100e-6;
        }
        // Both hosts' rounds at the same wall-clock times: a common window.
        let start = f64::from(round.round) * 60.0 + if round.transport == TransportKind::Json { 0.0 } else { 30.0 };
        let at = |s: f64| format!("2026-12-01T06:{:02}:{:02}.000000Z", (s / 60.0) as u32, (s % 60.0) as u32);
        let end = start + round.elapsed_s;
        round.span = Span { host: String::new(), started_at: at(start), ended_at: at(end), start_s: start, end_s: end };
    };
    let host = |label: &str| report_with("20261201-060000-cafe", 4500.0, spare).host_label(label.into());
    let (a, b) = (host("a"), host("b"));
    assert_eq!(a.config.load.client_threads, 1, "one client thread: one core its callers can use");
    let runs = a.host_runs().into_iter().chain(b.host_runs()).collect();
    let fleet = EtcdReport::merge(runs, &a);
    let json = fleet.transports.iter().find(|t| t.transport == TransportKind::Json).unwrap();
    let rate = json.ops_per_s.expect("the fleet's rate in its common window");
    assert!(rate > 8000.0, "both hosts' puts: {rate}");
    assert_eq!(fleet.caution, None, "{:?}", fleet.caution);
}
