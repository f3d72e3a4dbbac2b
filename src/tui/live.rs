//! What the live pane shows, folded from run events: per-transport progress,
//! current and average throughput, a sparkline sampled at a fixed interval of
//! run time, chart points and per-object latencies. Pure: no clock.

mod lane;
mod sampled;

use crate::engine::events::{Phase, RunEvent};
pub use crate::engine::live::Work;
use crate::engine::live::{LanePlan, LiveReading};
use crate::engine::plan::TransportKind;
pub use lane::{Lane, Part, SAMPLE_SECONDS};
use std::sync::Arc;

#[derive(Clone, Debug, Default)]
pub struct Live {
    pub phase: Option<Phase>,
    pub run_id: String,
    pub target: String,
    pub lanes: Vec<Lane>,
    pub notes: Vec<String>,
    pub cleanup: Option<(usize, usize)>,
    pub finished: bool,
    pub setup_failed: Option<String>,
    /// Run seconds of the newest event.
    pub at_s: f64,
    /// Set when the run goes on for a time rather than a number of rounds.
    pub duration_s: Option<f64>,
    /// How the target's figures read (MiB/s, objects/s for small objects, ops/s).
    pub reading: Option<Arc<dyn LiveReading>>,
    pub work: Work,
    /// Open loop: the arrivals offered per second (each transport's).
    pub open_rate: Option<f64>,
}

impl Live {
    /// The pane for a run the target planned: a lane per transport.
    pub fn new(plan: LanePlan) -> Self {
        let lanes = plan
            .transports
            .iter()
            .map(|&kind| Lane {
                rounds_planned: plan.rounds,
                objects_planned: plan.items,
                bytes_planned: plan.amount,
                ..Lane::new(kind, plan.work, &plan.parts, plan.reading.clone())
            })
            .collect();
        Self {
            phase: Some(Phase::Connecting),
            lanes,
            duration_s: plan.duration_s,
            open_rate: plan.open_rate,
            reading: Some(plan.reading),
            work: plan.work,
            ..Self::default()
        }
    }

    /// A rate as the report shows it: `12.50 MiB/s`, `1250 objects/s`, `4500 ops/s`.
    pub fn format_rate(&self, rate: f64) -> String {
        format!("{} {}", self.rate_number(rate), self.rate_name())
    }

    /// The figure without its unit.
    pub fn rate_number(&self, rate: f64) -> String {
        self.reading.as_ref().map_or_else(|| format!("{rate:.2}"), |r| r.rate_number(rate))
    }

    pub fn rate_name(&self) -> &'static str {
        self.reading.as_ref().map_or("MiB/s", |r| r.rate_name())
    }

    fn lane(&mut self, kind: TransportKind) -> Option<&mut Lane> {
        self.lanes.iter_mut().find(|l| l.transport == Some(kind))
    }

    pub fn apply(&mut self, event: &RunEvent) {
        match event {
            RunEvent::Started { run_id, target, .. } => {
                self.run_id = run_id.clone();
                self.target = target.clone();
            }
            RunEvent::Phase(phase) => {
                self.phase = Some(*phase);
                if *phase == Phase::Measuring {
                    // Every transport's warmup is over, whichever goes first now.
                    for lane in &mut self.lanes {
                        lane.warmup = false;
                        lane.in_round = false;
                    }
                }
            }
            RunEvent::RoundStarted { transport, round, at_s } => {
                self.at_s = *at_s;
                if let Some(lane) = self.lane(*transport) {
                    lane.round_started(*round, *at_s);
                }
            }
            RunEvent::Progress { transport, round, done, at_s, .. } => {
                self.at_s = *at_s;
                // Warmup work is not counted.
                if let Some(lane) = self.lane(*transport).filter(|_| round.is_some()) {
                    lane.progress(*done, *at_s);
                }
            }
            RunEvent::ItemDone(item) => {
                if let Some(lane) = self.lane(item.transport) {
                    lane.item_done(item);
                }
            }
            RunEvent::RoundDone(round) | RunEvent::PartDone(round) => {
                let at_s = self.at_s;
                // A first part that failed is the whole round: no reads follow.
                let closes_round = matches!(event, RunEvent::RoundDone(_)) || !round.ok;
                if let Some(lane) = self.lane(round.transport) {
                    lane.part_done(round, closes_round, at_s);
                }
            }
            RunEvent::Latencies { transport, histogram } => {
                let at_s = self.at_s;
                if let Some(lane) = self.lane(*transport) {
                    lane.add_latencies(histogram, at_s);
                }
            }
            RunEvent::Note(note) => self.notes.push(note.clone()),
            RunEvent::CleanupDone { deleted, left } => self.cleanup = Some((*deleted, left.len())),
            RunEvent::SetupFailed(message) => {
                self.setup_failed = Some(message.clone());
                self.finished = true;
            }
        }
    }

    /// The run is over: its report came back.
    pub fn finish(&mut self) {
        self.finished = true;
        for lane in &mut self.lanes {
            lane.in_round = false;
            lane.warmup = false;
        }
    }
}

/// The status line's words for a run's phase.
pub fn phase_sentence(phase: crate::engine::events::Phase) -> &'static str {
    match phase {
        crate::engine::events::Phase::Connecting => "connecting",
        crate::engine::events::Phase::Warmup => "warming up (not timed)",
        crate::engine::events::Phase::Measuring => "measuring",
        crate::engine::events::Phase::CleaningUp => "cleaning up: deleting what this run created",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Environment, Options};
    use crate::engine::events::{ItemDone, RoundDone};

    fn live() -> Live {
        let config = Options { size: "4MiB".into(), iterations: "2".into(), ..Options::default() }
            .validate(&Environment::default())
            .unwrap();
        Live::new(config.lane_plan())
    }

    fn progress(bytes: u64, at_s: f64) -> RunEvent {
        RunEvent::Progress { transport: TransportKind::Json, round: Some(0), done: bytes, total: 4 << 20, at_s }
    }

    #[test]
    fn throughput_is_sampled_per_quarter_second_of_run_time() {
        let mut live = live();
        live.apply(&RunEvent::RoundStarted { transport: TransportKind::Json, round: Some(0), at_s: 1.0 });
        live.apply(&progress(1 << 20, 1.1));
        assert!(live.lanes[0].sparkline.is_empty(), "under a sample interval");
        live.apply(&progress(2 << 20, 1.5));
        assert_eq!(live.lanes[0].sparkline, [4], "2 MiB in 0.5 s");
        assert_eq!(live.lanes[0].chart[..], [(1.5, 4.0)]);
        assert_eq!(live.lanes[0].current, Some(4.0));
        // The round ends 0.1 s later with 1 MiB more: flushed as its own point.
        live.apply(&progress(3 << 20, 1.6));
        let round = RoundDone { transport: TransportKind::Json, round: 0, done: 3 << 20, elapsed_s: 0.6, ok: true };
        live.apply(&RunEvent::RoundDone(round));
        assert_eq!(live.lanes[0].chart.len(), 2);
        assert!((live.lanes[0].chart[1].1 - 10.0).abs() < 1e-9, "1 MiB in 0.1 s");
    }

    #[test]
    fn rounds_feed_the_average_and_warmups_are_marked_but_not_counted() {
        let mut live = live();
        live.apply(&RunEvent::RoundStarted { transport: TransportKind::Grpc, round: None, at_s: 0.0 });
        assert!(live.lanes[1].warmup);
        live.apply(&RunEvent::Progress {
            transport: TransportKind::Grpc,
            round: None,
            done: 999,
            total: 999,
            at_s: 0.3,
        });
        assert_eq!(live.lanes[1].bytes_done + live.lanes[1].round_bytes, 0);
        let round = RoundDone { transport: TransportKind::Grpc, round: 0, done: 4 << 20, elapsed_s: 2.0, ok: true };
        live.apply(&RunEvent::RoundDone(round));
        assert_eq!(live.lanes[1].average(0), Some(2.0));
        assert_eq!((live.lanes[1].rounds_done, live.lanes[1].rounds_planned), (1, 2));
        assert_eq!(live.lanes[1].bytes_planned, 8 << 20);
    }

    #[test]
    fn retries_and_resumes_add_up_per_lane() {
        let mut live = live();
        let item =
            |retries, resumes, ok| ItemDone { transport: TransportKind::Json, ok, elapsed_s: 1.0, retries, resumes };
        live.apply(&RunEvent::ItemDone(item(2, 1, true)));
        live.apply(&RunEvent::ItemDone(item(3, 0, false)));
        let lane = &live.lanes[0];
        assert_eq!((lane.retries, lane.resumes, lane.errors, lane.objects_done), (5, 1, 1, 2));
        assert_eq!(lane.latencies[..], [1.0], "failed uploads are not timed");
    }

    #[test]
    fn an_hour_of_items_keeps_a_bounded_sample_of_their_latencies() {
        let mut live = live();
        let json = TransportKind::Json;
        // 300 rounds of 1,000 items: 300,000 latencies, round r's items at
        // (r + 1) ms: a sample of the whole run has its median near 150 ms,
        // one of its first or last rounds alone would not.
        for round in 0..300u32 {
            live.apply(&RunEvent::RoundStarted { transport: json, round: Some(round), at_s: f64::from(round) });
            for _ in 0..1_000 {
                let elapsed_s = f64::from(round + 1) * 1e-3;
                live.apply(&RunEvent::ItemDone(ItemDone {
                    transport: json,
                    ok: true,
                    elapsed_s,
                    retries: 0,
                    resumes: 0,
                }));
            }
            let done = RoundDone { transport: json, round, done: 1 << 20, elapsed_s: 1.0, ok: true };
            live.apply(&RunEvent::RoundDone(done));
        }
        let lane = &live.lanes[0];
        assert_eq!(lane.objects_ok, 300_000, "every item counted");
        assert!((50_000..=101_000).contains(&lane.latencies.len()), "{} kept", lane.latencies.len());
        let mut kept = lane.latencies.to_vec();
        kept.sort_by(f64::total_cmp);
        let median = kept[kept.len() / 2];
        // The whole run's median: between round 150's 0.150 s and round 151's 0.151 s.
        assert!((0.149..=0.152).contains(&median), "median {median}");
    }

    #[test]
    fn a_new_round_has_no_current_rate_until_its_first_sample() {
        let mut live = live();
        live.apply(&RunEvent::RoundStarted { transport: TransportKind::Json, round: Some(0), at_s: 1.0 });
        assert_eq!(live.lanes[0].current, None, "nothing measured yet: not 0");
        live.apply(&progress(2 << 20, 1.5));
        assert_eq!(live.lanes[0].current, Some(4.0), "2 MiB in 0.5 s");
        let round = RoundDone { transport: TransportKind::Json, round: 0, done: 4 << 20, elapsed_s: 1.0, ok: true };
        live.apply(&RunEvent::RoundDone(round));
        live.apply(&RunEvent::RoundStarted { transport: TransportKind::Json, round: Some(1), at_s: 2.0 });
        assert_eq!(live.lanes[0].current, None, "the last round's rate is not this one's");
    }

    #[test]
    fn w1r3_objects_and_rounds_count_for_their_operation() {
        let options = Options { size: "4MiB".into(), workload: "w1r3".into(), ..Options::default() };
        let mut live = Live::new(options.validate(&Environment::default()).unwrap().lane_plan());
        let json = TransportKind::Json;
        let item = |elapsed_s| ItemDone { transport: json, ok: true, elapsed_s, retries: 0, resumes: 0 };
        let part = |done, elapsed_s| RoundDone { transport: json, round: 0, done, elapsed_s, ok: true };
        live.apply(&RunEvent::RoundStarted { transport: json, round: Some(0), at_s: 0.0 });
        live.apply(&RunEvent::ItemDone(item(1.0)));
        live.apply(&RunEvent::PartDone(part(4 << 20, 1.0)));
        live.apply(&RunEvent::RoundStarted { transport: json, round: Some(0), at_s: 1.0 });
        for elapsed_s in [0.1, 0.2, 0.3] {
            live.apply(&RunEvent::ItemDone(item(elapsed_s)));
        }
        live.apply(&RunEvent::RoundDone(part(12 << 20, 0.5)));
        let lane = &live.lanes[0];
        assert_eq!((&lane.parts[0].latencies[..], &lane.parts[1].latencies[..]), (&[1.0][..], &[0.1, 0.2, 0.3][..]));
        assert_eq!((lane.average(0), lane.average(1)), (Some(4.0), Some(24.0)), "4 MiB in 1 s; 12 MiB in 0.5 s");
        assert_eq!((lane.rounds_done, lane.current_part()), (1, 0), "one round, and the next begins with uploads");
    }

    #[test]
    fn small_objects_are_rated_in_objects_per_second() {
        let options = Options { size: "1KiB".into(), concurrency: "2".into(), ..Options::default() };
        let mut live = Live::new(options.validate(&Environment::default()).unwrap().lane_plan());
        let json = TransportKind::Json;
        live.apply(&RunEvent::RoundStarted { transport: json, round: Some(0), at_s: 0.0 });
        for _ in 0..2 {
            live.apply(&RunEvent::ItemDone(ItemDone {
                transport: json,
                ok: true,
                elapsed_s: 0.4,
                retries: 0,
                resumes: 0,
            }));
        }
        live.apply(&RunEvent::RoundDone(RoundDone { transport: json, round: 0, done: 2048, elapsed_s: 0.5, ok: true }));
        assert_eq!(live.lanes[0].average(0), Some(4.0), "2 objects in 0.5 s");
        assert_eq!(live.format_rate(4.0), "4.000 objects/s", "4 significant digits, as the table");
    }
}
