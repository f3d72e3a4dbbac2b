//! Finished runs with fixed figures, and their events replayed into the
//! app as a run sends them: what the view tests draw.

use super::{press, target};
use gcs_speed_tui::config::{Environment, Options, TransportKind};
use gcs_speed_tui::engine::events::{Phase, RunEvent};
use gcs_speed_tui::finished::Finished;
use gcs_speed_tui::gcs::report::{Cleanup, RunOutcome, RunReport};
use gcs_speed_tui::gcs::stats::{Accounting, ObjectSample, Operation, RoundSample, summarize_samples};
use gcs_speed_tui::gcs::transport::Phases;
use gcs_speed_tui::targets::FormOptions;
use gcs_speed_tui::tui::app::{App, Message};
use ratatui::crossterm::event::KeyCode;

pub const MIB: u64 = 1 << 20;

pub fn app() -> App {
    let options = Options { size: "64MiB".into(), ..Options::default() };
    App::new(FormOptions::with(options.clone(), options.schedule_args()), Environment::default(), false)
}

/// A finished run with fixed figures: 64 MiB rounds, http-json at 8.04/8.51/8.83 s.
pub fn report(run_id: &str, json_rounds: [f64; 3], grpc_rounds: [f64; 3]) -> RunReport {
    report_sized(run_id, 64 * MIB, json_rounds, grpc_rounds)
}

/// A finished run of one `size`-byte object per round, each round taking the seconds given.
pub fn report_sized(run_id: &str, size: u64, json_rounds: [f64; 3], grpc_rounds: [f64; 3]) -> RunReport {
    let config = Options { size: format!("{size}B"), ..Options::default() }.validate(&Environment::default()).unwrap();
    let (mut rounds, mut samples) = (Vec::new(), Vec::new());
    for (kind, times) in [(TransportKind::Json, json_rounds), (TransportKind::Grpc, grpc_rounds)] {
        for (round, elapsed_s) in times.into_iter().enumerate() {
            rounds.push(RoundSample {
                transport: kind,
                operation: Operation::Upload,
                round: round as u32,
                elapsed_s,
                bytes: size,
                ok: true,
                cpu_s: if kind == TransportKind::Json { 0.08 / 3.0 } else { 0.2 / 3.0 },
                wire_bytes: size + 4096,
                retransmitted_bytes: 0,
                host_cpu: None,
                span: Default::default(),
                paced: None,
                items: None,
                rounds_held: 1,
            });
            samples.push(ObjectSample {
                host: String::new(),
                transport: kind,
                operation: Operation::Upload,
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
                    Phases { session_s: Some(edge_s), transfer_s: elapsed_s - 2.0 * edge_s, finalize_s: edge_s }
                },
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
            });
        }
    }
    let accounting = |kind| Accounting {
        protocol: if kind == TransportKind::Json { "HTTP/1.1".into() } else { "HTTP/2 (1 channel)".into() },
        connections: 1,
        ..Accounting::default()
    };
    let transports = [TransportKind::Json, TransportKind::Grpc]
        .map(|kind| summarize_samples(kind, Operation::Upload, size, &rounds, &samples, accounting(kind)))
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

pub fn replay(app: &mut App, report: RunReport) {
    press(app, KeyCode::Char('r'));
    feed(app, report);
}

/// The events a run started already sends on its way to `report`, then
/// its end; what the app asks for then (a sweep's next point).
pub fn feed(app: &mut App, report: RunReport) -> Vec<gcs_speed_tui::tui::app::Effect> {
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
    app.update(Message::RunFinished(Ok(Finished::from(report))))
}
