//! One transport's lane: its progress and samples, and per operation (w1r3
//! has two, uploads then reads) the figures its report row will have,
//! computed by the report's own functions over the same work: complete
//! rounds for rates, finished objects (or requests) for percentiles.

use super::Work;
use super::sampled::Sampled;
use crate::engine::events::{ItemDone, RoundDone};
use crate::engine::live::LiveReading;
use crate::engine::plan::TransportKind;
use std::sync::Arc;

/// Throughput is sampled every quarter second of run time.
pub const SAMPLE_SECONDS: f64 = 0.25;
/// The sparkline keeps this many samples (the newest at the right).
const SPARKLINE_SAMPLES: usize = 240;

/// One operation's figures within a lane: what its report row is made of.
#[derive(Clone, Debug, Default)]
pub struct Part {
    /// The operation's name: `upload`, `download`, `put`.
    pub name: &'static str,
    /// Work (bytes or requests), seconds and finished objects of complete rounds.
    timed_units: u64,
    timed_seconds: f64,
    timed_objects: u64,
    /// Objects finished in this part of the current round: counted once the round is complete.
    round_objects: u64,
    /// Seconds per finished object (a uniform sample of a long run's).
    pub latencies: Sampled<f64, LIVE_LATENCIES>,
}

#[derive(Clone, Debug, Default)]
pub struct Lane {
    pub transport: Option<TransportKind>,
    pub rounds_done: u32,
    pub rounds_planned: u32,
    pub objects_done: u32,
    pub objects_planned: u32,
    /// Bytes (or requests) of finished rounds; the current round's are `round_bytes`.
    pub bytes_done: u64,
    pub round_bytes: u64,
    pub bytes_planned: u64,
    pub in_round: bool,
    pub warmup: bool,
    /// The current round's newest sample; `None` until it has one, so that
    /// nothing unmeasured reads as a measured 0.
    pub current: Option<f64>,
    /// Rates per sample, for the sparkline.
    pub sparkline: Vec<u64>,
    /// (run seconds, rate), for the chart.
    pub chart: Sampled<(f64, f64), LIVE_POINTS>,
    /// Seconds per finished object of every operation, for the histogram
    /// (a uniform sample of a long run's).
    pub latencies: Sampled<f64, LIVE_LATENCIES>,
    pub errors: u32,
    pub retries: u32,
    pub resumes: u32,
    /// Where the current sample began: (run seconds, work, finished objects).
    pub(super) window: Option<(f64, u64, u64)>,
    pub work: Work,
    /// How the run's figures read, as its report will show them.
    pub reading: Option<Arc<dyn LiveReading>>,
    /// Per operation, in report order.
    pub parts: Vec<Part>,
    /// The part the current round is in (w1r3: 0 uploads, 1 reads).
    pub(super) part: usize,
    pub(super) objects_ok: u64,
    /// Request latencies of the complete rounds (µs), for targets that send them whole.
    pub(super) latency_histogram: Option<hdrhistogram::Histogram<u64>>,
    /// Each complete round's (run seconds at its end, p50 s, p99 s): in
    /// open loop, from each request's intended start.
    pub round_latency: Sampled<(f64, f64, f64), LIVE_POINTS>,
    /// Where the current round's latencies begin in `latencies`.
    pub(super) round_first_latency: usize,
}

impl Lane {
    pub fn new(transport: TransportKind, work: Work, parts: &[&'static str], reading: Arc<dyn LiveReading>) -> Self {
        let parts = parts.iter().map(|&name| Part { name, ..Part::default() }).collect();
        Self { transport: Some(transport), work, reading: Some(reading), parts, ..Self::default() }
    }

    /// The part the current (or next) round is in: w1r3's uploads 0, its reads 1.
    pub fn current_part(&self) -> usize {
        self.part
    }

    /// Small objects are counted, not weighed: rates in objects/s, as the report's.
    pub fn per_object(&self) -> bool {
        self.reading.as_ref().is_some_and(|r| r.per_item())
    }

    fn rate(&self, units: u64, objects: u64, seconds: f64) -> f64 {
        match seconds {
            s if s <= 0.0 => 0.0,
            s if self.per_object() => objects as f64 / s,
            s => units as f64 / self.work.scale() / s,
        }
    }

    /// A part's rate over its complete rounds, as its report row computes
    /// it; `None` before the first.
    pub fn average(&self, part: usize) -> Option<f64> {
        let p = self.parts.get(part)?;
        (p.timed_seconds > 0.0).then(|| self.rate(p.timed_units, p.timed_objects, p.timed_seconds))
    }

    /// A part's p50, p90 and p99 as the report's table prints them: the
    /// same histogram, quantiles and rounding. `None` before any finished.
    pub fn percentiles(&self, part: usize) -> Option<[String; 3]> {
        let reading = self.reading.as_ref()?;
        match &self.latency_histogram {
            Some(rounds) => reading.round_percentiles(rounds),
            None => reading.item_percentiles(&self.parts.get(part)?.latencies),
        }
    }

    /// Latencies come whole per complete round, not per object.
    pub fn latencies_per_round(&self) -> bool {
        !self.work.weighed
    }

    /// Work done, the current round's so far included.
    pub fn done(&self) -> u64 {
        self.bytes_done + self.round_bytes
    }

    pub(super) fn round_started(&mut self, round: Option<u32>, at_s: f64) {
        self.in_round = true;
        self.warmup = round.is_none();
        self.round_bytes = 0;
        // The last round's rate is not this one's: nothing measured yet.
        self.current = None;
        self.window = Some((at_s, self.done(), self.objects_ok));
        self.round_first_latency = self.latencies.len();
    }

    pub(super) fn progress(&mut self, done: u64, at_s: f64) {
        self.round_bytes = done;
        self.sample(at_s, false);
    }

    pub(super) fn item_done(&mut self, item: &ItemDone) {
        self.objects_done += 1;
        self.retries += item.retries;
        self.resumes += item.resumes;
        if !item.ok {
            self.errors += 1;
            return;
        }
        self.latencies.push(item.elapsed_s);
        self.objects_ok += 1;
        if let Some(part) = self.parts.get_mut(self.part) {
            part.latencies.push(item.elapsed_s);
            part.round_objects += 1;
        }
    }

    /// A round's part ended (`closes_round`: the round too), `at_s` the newest event's time.
    pub(super) fn part_done(&mut self, round: &RoundDone, closes_round: bool, at_s: f64) {
        // A round shorter than a sample interval still gets its point.
        self.sample(at_s, true);
        self.rounds_done += u32::from(closes_round);
        self.in_round = false;
        self.bytes_done += round.done;
        self.round_bytes = 0;
        let index = self.part;
        if let Some(part) = self.parts.get_mut(index) {
            if round.ok {
                part.timed_units += round.done;
                part.timed_seconds += round.elapsed_s;
                part.timed_objects += part.round_objects;
            }
            part.round_objects = 0;
        }
        // Per-object latencies: the round's own (of its last part), once it
        // is complete (a failed round's answered requests measured other work).
        if closes_round && round.ok && !self.latencies_per_round() {
            let mut round_latencies = self.latencies[self.round_first_latency.min(self.latencies.len())..].to_vec();
            round_latencies.sort_by(f64::total_cmp);
            if let (Some(p50), Some(p99)) = (quantile(&round_latencies, 0.5), quantile(&round_latencies, 0.99)) {
                self.round_latency.push((at_s, p50, p99));
            }
        }
        // w1r3's reads follow its uploads (the round's latencies drawn are its reads').
        self.round_first_latency = self.latencies.len();
        self.part = if closes_round { 0 } else { (index + 1).min(self.parts.len().saturating_sub(1)) };
    }

    /// Merges a round's request latencies (µs); what is drawn is one value
    /// per 0.5% of them (0.25%, 0.75%, ... 99.75%: the slowest alone does not
    /// stretch the histogram's range).
    pub(super) fn add_latencies(&mut self, round: &hdrhistogram::Histogram<u64>, at_s: f64) {
        if !round.is_empty() {
            let at = |q: f64| round.value_at_quantile(q) as f64 / 1e6;
            self.round_latency.push((at_s, at(0.5), at(0.99)));
        }
        let merged = self.latency_histogram.get_or_insert_with(|| hdrhistogram::Histogram::new_from(round));
        merged.add(round).expect("same histogram bounds");
        let points: Vec<f64> =
            (0..200).map(|i| merged.value_at_quantile((i as f64 + 0.5) / 200.0) as f64 / 1e6).collect();
        self.latencies = points.into();
    }

    /// Records the rate since the last sample once a sample interval has
    /// passed (or at a round's end, `flush`, whatever time has passed).
    fn sample(&mut self, at_s: f64, flush: bool) {
        let (units, objects) = (self.done(), self.objects_ok);
        let Some((since, units_then, objects_then)) = self.window else {
            return;
        };
        let span = at_s - since;
        let more = if self.per_object() { objects > objects_then } else { units > units_then };
        // Objects are told as their round ends (GCS records a round's items
        // together): mid-round a window of none says nothing was measured,
        // not that none finished, so it waits for the round's end.
        if self.per_object() && !flush && !more {
            return;
        }
        if span >= SAMPLE_SECONDS || (flush && span > 0.0 && more) {
            let rate = self.rate(units.saturating_sub(units_then), objects.saturating_sub(objects_then), span);
            self.current = Some(rate);
            self.sparkline.push(rate.round() as u64);
            if self.sparkline.len() > SPARKLINE_SAMPLES {
                self.sparkline.remove(0);
            }
            self.chart.push((at_s, rate));
            self.window = Some((at_s, units, objects));
        }
    }
}

/// Latencies a lane (or part) keeps for the pane: past it, a uniform sample.
const LIVE_LATENCIES: usize = 100_000;
/// Chart points and per-round latencies a lane keeps: past it, a uniform sample.
const LIVE_POINTS: usize = 10_000;

/// The value at `q` of sorted `values` by nearest rank (as hdrhistogram
/// takes it: the smallest value with at least `q` of them at or below).
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied()
}
