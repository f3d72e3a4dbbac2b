//! What the live pane shows, folded from run events: per-transport progress,
//! current and average throughput, a sparkline sampled at a fixed interval of
//! run time, chart points and per-object latencies. Pure: no clock.

use crate::config::{BenchConfig, TransportKind};
use crate::engine::events::{Phase, RunEvent};
use crate::units::{MIB, format_size};

/// What a run's unit of work is: the events count bytes uploaded or read
/// (GCS, shown in MiB/s) or requests answered (etcd, shown in ops/s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Work {
    #[default]
    Uploads,
    Downloads,
    /// w1r3: each round uploads, then reads what it wrote.
    WritesThenReads,
    Requests,
    /// Watch events delivered (etcd's watch mode).
    Events,
}

impl Work {
    /// Units of work per unit of rate: MiB, or one request.
    fn scale(self) -> f64 {
        match self {
            Work::Uploads | Work::Downloads | Work::WritesThenReads => MIB as f64,
            Work::Requests | Work::Events => 1.0,
        }
    }

    /// `2.50 GiB` or `12000 ops`.
    pub fn amount(self, units: u64) -> String {
        match self {
            Work::Uploads | Work::Downloads | Work::WritesThenReads => format_size(units),
            Work::Requests | Work::Events => format!("{units} {}", self.counted()),
        }
    }

    /// A latency, as short as it reads well: `8.51 s`, `2.03 ms`.
    pub fn latency(self, seconds: f64) -> String {
        match self {
            Work::Uploads | Work::Downloads | Work::WritesThenReads => crate::units::format_latency(seconds),
            _ if seconds < 1e-4 => format!("{} µs", crate::units::significant(seconds * 1e6, 3)),
            _ => format!("{} ms", crate::units::significant(seconds * 1e3, 3)),
        }
    }

    /// What one timed piece of work is called: `upload`, `request`.
    pub fn one(self) -> &'static str {
        match self {
            Work::Uploads => "upload",
            Work::Downloads => "download",
            Work::WritesThenReads => "transfer",
            Work::Requests => "request",
            Work::Events => "event",
        }
    }

    /// What the progress counts: `ops`, `events`.
    pub fn counted(self) -> &'static str {
        match self {
            Work::Uploads | Work::Downloads | Work::WritesThenReads => "bytes",
            Work::Requests => "ops",
            Work::Events => "events",
        }
    }
}

/// Uploads and reads of each object a round has (w1r3: one write, three reads).
fn items_per_object(workload: crate::config::Workload) -> u32 {
    match workload {
        crate::config::Workload::W1r3 => 1 + crate::config::W1R3_READS,
        _ => 1,
    }
}

/// Throughput is sampled every quarter second of run time.
pub const SAMPLE_SECONDS: f64 = 0.25;
/// The sparkline keeps this many samples (the newest at the right).
const SPARKLINE_SAMPLES: usize = 240;

#[derive(Clone, Debug, Default)]
pub struct Lane {
    pub transport: Option<TransportKind>,
    pub rounds_done: u32,
    pub rounds_planned: u32,
    pub objects_done: u32,
    pub objects_planned: u32,
    /// Bytes of finished rounds, plus the current round's so far.
    pub bytes_done: u64,
    pub round_bytes: u64,
    pub bytes_planned: u64,
    pub in_round: bool,
    pub warmup: bool,
    pub current_mib_s: f64,
    timed_bytes: u64,
    timed_seconds: f64,
    /// MiB/s per sample, for the sparkline.
    pub sparkline: Vec<u64>,
    /// (run seconds, MiB/s), for the chart.
    pub chart: Vec<(f64, f64)>,
    /// Seconds per finished object.
    pub latencies: Vec<f64>,
    pub errors: u32,
    pub retries: u32,
    pub resumes: u32,
    window: Option<(f64, u64)>,
    pub work: Work,
    /// Request latencies of the complete rounds (µs), for targets that send them whole.
    latency_histogram: Option<hdrhistogram::Histogram<u64>>,
}

impl Lane {
    fn rate(&self, units: u64, seconds: f64) -> f64 {
        if seconds <= 0.0 { 0.0 } else { units as f64 / self.work.scale() / seconds }
    }

    /// Over the complete rounds so far; `None` before the first.
    pub fn average_mib_s(&self) -> Option<f64> {
        (self.timed_seconds > 0.0).then(|| self.rate(self.timed_bytes, self.timed_seconds))
    }

    /// Merges a round's request latencies (µs); what is drawn is one value
    /// per 0.5% of them (0.25%, 0.75%, ... 99.75%: the slowest alone does not
    /// stretch the histogram's range).
    fn add_latencies(&mut self, round: &hdrhistogram::Histogram<u64>) {
        let merged = self.latency_histogram.get_or_insert_with(crate::etcd::workload::latency_histogram);
        merged.add(round).expect("same histogram bounds");
        self.latencies = (0..200).map(|i| merged.value_at_quantile((i as f64 + 0.5) / 200.0) as f64 / 1e6).collect();
    }

    /// p50, p90 and p99 of the finished uploads' times (nearest rank), or of
    /// the merged request latencies, exactly as the report computes them.
    pub fn latency_percentiles(&self) -> Option<(f64, f64, f64)> {
        if let Some(h) = &self.latency_histogram {
            let at = |q: f64| h.value_at_quantile(q) as f64 / 1e6;
            return Some((at(0.50), at(0.90), at(0.99)));
        }
        let mut sorted = self.latencies.clone();
        sorted.sort_by(f64::total_cmp);
        let rank = |q: f64| sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
        (!sorted.is_empty()).then(|| (rank(0.50), rank(0.90), rank(0.99)))
    }

    fn absolute_bytes(&self) -> u64 {
        self.bytes_done + self.round_bytes
    }

    /// Records the throughput since the last sample once a sample interval
    /// has passed (or at a round's end, `flush`, whatever time has passed).
    fn sample(&mut self, at_s: f64, flush: bool) {
        let now = self.absolute_bytes();
        let Some((since, then)) = self.window else {
            return;
        };
        let span = at_s - since;
        if span >= SAMPLE_SECONDS || (flush && span > 0.0 && now > then) {
            let rate = self.rate(now.saturating_sub(then), span);
            self.current_mib_s = rate;
            self.sparkline.push(rate.round() as u64);
            if self.sparkline.len() > SPARKLINE_SAMPLES {
                self.sparkline.remove(0);
            }
            self.chart.push((at_s, rate));
            self.window = Some((at_s, now));
        }
    }
}

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
    /// How rates are shown (they are kept in MiB/s, or ops/s).
    pub unit: crate::units::RateUnit,
    pub work: Work,
}

impl Live {
    pub fn new(config: &BenchConfig) -> Self {
        let lanes = config
            .transports
            .iter()
            .map(|&kind| Lane {
                transport: Some(kind),
                rounds_planned: config.iterations,
                objects_planned: config.iterations * config.concurrency * items_per_object(config.workload),
                bytes_planned: config.bytes_per_round() * config.iterations as u64,
                ..Lane::default()
            })
            .collect();
        let duration_s = config.duration.map(|d| d.as_secs_f64());
        let work = match config.workload {
            crate::config::Workload::Upload => Work::Uploads,
            crate::config::Workload::Download => Work::Downloads,
            crate::config::Workload::W1r3 => Work::WritesThenReads,
        };
        Self { phase: Some(Phase::Connecting), lanes, duration_s, unit: config.rate_unit, work, ..Self::default() }
    }

    /// An etcd run: requests instead of bytes, ops/s (events/s for watch).
    pub fn for_etcd(config: &crate::etcd::options::EtcdConfig) -> Self {
        let schedule = &config.schedule;
        let watch = config.mode == crate::etcd::options::Mode::Watch;
        let work = if watch { Work::Events } else { Work::Requests };
        let per_round = config.clients as u64 * config.requests as u64;
        let lanes = schedule
            .transports
            .iter()
            .map(|&kind| Lane {
                transport: Some(kind),
                rounds_planned: schedule.iterations,
                bytes_planned: per_round * schedule.iterations as u64,
                work,
                ..Lane::default()
            })
            .collect();
        let unit = if watch { crate::units::RateUnit::Events } else { crate::units::RateUnit::Ops };
        Self {
            phase: Some(Phase::Connecting),
            lanes,
            duration_s: schedule.duration.map(|d| d.as_secs_f64()),
            unit,
            work,
            ..Self::default()
        }
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
                    lane.in_round = true;
                    lane.warmup = round.is_none();
                    lane.round_bytes = 0;
                    lane.window = Some((*at_s, lane.absolute_bytes()));
                }
            }
            RunEvent::Progress { transport, round, done, at_s, .. } => {
                self.at_s = *at_s;
                let Some(lane) = self.lane(*transport) else {
                    return;
                };
                if round.is_none() {
                    return; // warmup bytes are not counted
                }
                lane.round_bytes = *done;
                lane.sample(*at_s, false);
            }
            RunEvent::ItemDone(sample) => {
                if let Some(lane) = self.lane(sample.transport) {
                    lane.objects_done += 1;
                    lane.retries += sample.retries;
                    lane.resumes += sample.resumes;
                    if sample.ok {
                        lane.latencies.push(sample.elapsed_s);
                    } else {
                        lane.errors += 1;
                    }
                }
            }
            RunEvent::RoundDone(round) | RunEvent::PartDone(round) => {
                let at_s = self.at_s;
                // A first part that failed is the whole round: no reads follow.
                let closes_round = matches!(event, RunEvent::RoundDone(_)) || !round.ok;
                if let Some(lane) = self.lane(round.transport) {
                    // A round shorter than a sample interval still gets its point.
                    lane.sample(at_s, true);
                    lane.rounds_done += u32::from(closes_round);
                    lane.in_round = false;
                    lane.bytes_done += round.done;
                    lane.round_bytes = 0;
                    if round.ok {
                        lane.timed_bytes += round.done;
                        lane.timed_seconds += round.elapsed_s;
                    }
                }
            }
            RunEvent::Latencies { transport, histogram } => {
                if let Some(lane) = self.lane(*transport) {
                    lane.add_latencies(histogram);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Environment, Options};
    use crate::engine::events::{ItemDone, RoundDone};

    fn live() -> Live {
        let config = Options { size: "4MiB".into(), iterations: "2".into(), ..Options::default() }
            .validate(&Environment::default())
            .unwrap();
        Live::new(&config)
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
        assert_eq!(live.lanes[0].chart, [(1.5, 4.0)]);
        assert_eq!(live.lanes[0].current_mib_s, 4.0);
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
        assert_eq!(live.lanes[1].average_mib_s(), Some(2.0));
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
        assert_eq!(lane.latencies, [1.0], "failed uploads are not timed");
    }
}
