//! What a round's items came to, kept in place of the items themselves: counts,
//! sums, and each per-item time as an HDR histogram (3 significant digits,
//! so a quantile is within 0.1% of the true value). A round's tally is the
//! same size whether it held 4 objects or 40,000, so a run of any length
//! keeps and reports a bounded amount, and tallies merge (a fleet, folded
//! rounds) without losing anything the histograms hold. A record of folded
//! rounds keeps its times at `FOLDED_DIGITS` (`Tally::coarsen`): a long
//! run's records stop growing as they fill, and its figures come from its
//! transports' own tallies, kept whole (`TransportSummary::items`).

use super::ObjectSample;
use engine::error_kinds::ErrorKinds;
use hdrhistogram::Histogram;

/// Per-item times as a histogram (µs, V2 compressed, base64) and the
/// slowest exactly, so that no quantile read from it exceeds the slowest.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Times {
    pub histogram: String,
    pub slowest_s: f64,
}

impl Times {
    /// These times at `digits` significant digits, or `None` when they
    /// hold no more (or do not decode).
    fn coarsened(&self, digits: u8) -> Option<Times> {
        let fine = engine::histogram::decode(&self.histogram).ok().filter(|h| h.sigfig() > digits)?;
        let mut coarse = Histogram::<u64>::new(digits).expect("1 to 5 significant digits");
        for bucket in fine.iter_recorded() {
            let _ = coarse.record_n(bucket.value_iterated_to(), bucket.count_at_value());
        }
        Some(Times { histogram: engine::histogram::encode(&coarse), slowest_s: self.slowest_s })
    }

    /// `None` for no values: nothing measured is not a histogram of nothing.
    pub fn of(values: &[f64]) -> Option<Times> {
        let mut pooled = Pooled::default();
        values.iter().for_each(|&s| pooled.record(s));
        pooled.packed()
    }
}

/// Significant digits of a folded record's per-item times (1%): at 3, a
/// record's histograms grow with the rounds folded into it, and a long run's
/// report with them.
pub const FOLDED_DIGITS: u8 = 2;

/// Times added together: a histogram that grows to what it holds.
#[derive(Clone, Debug)]
pub struct Pooled {
    pub histogram: Histogram<u64>,
    pub slowest_s: f64,
}

impl Default for Pooled {
    fn default() -> Self {
        Pooled { histogram: Histogram::new(3).expect("3 significant digits"), slowest_s: f64::NEG_INFINITY }
    }
}

impl Pooled {
    pub fn record(&mut self, seconds: f64) {
        // Whole microseconds, at least 1 (the histogram's lowest).
        let _ = self.histogram.record((seconds * 1e6).round().max(1.0) as u64);
        self.slowest_s = self.slowest_s.max(seconds);
    }

    /// Adds packed times (a histogram that does not decode adds nothing).
    /// The first taken keeps its precision: folded records pooled stay
    /// coarse, a transport's tallies pooled stay whole.
    pub fn add(&mut self, times: Option<&Times>) {
        let Some(times) = times else { return };
        if let Ok(histogram) = engine::histogram::decode(&times.histogram) {
            if self.histogram.is_empty() {
                self.histogram = histogram;
            } else {
                let _ = self.histogram.add(&histogram);
            }
            self.slowest_s = self.slowest_s.max(times.slowest_s);
        }
    }

    pub fn of<'a>(times: impl Iterator<Item = Option<&'a Times>>) -> Pooled {
        let mut pooled = Pooled::default();
        times.for_each(|t| pooled.add(t));
        pooled
    }

    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    /// The `q` quantile in seconds, cut to the slowest (a bucket's top can
    /// lie above every value in it); `None` when empty.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let value = super::quantile_s(&self.histogram, q)?;
        Some(value.min(self.slowest_s))
    }

    pub fn packed(&self) -> Option<Times> {
        let histogram = (!self.histogram.is_empty()).then(|| engine::histogram::encode(&self.histogram))?;
        Some(Times { histogram, slowest_s: self.slowest_s })
    }
}

/// A round's items added up: what every figure of the report is made of.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Tally {
    pub finished: u64,
    pub failed: u64,
    /// Bytes of the finished items, and the sum of their latencies.
    pub finished_bytes: u64,
    pub finished_s: f64,
    /// The failed items by kind.
    pub error_kinds: ErrorKinds,
    pub retried_after: ErrorKinds,
    /// Finished items that could not be checked (no crc32c or size said).
    pub unchecked: u64,
    pub retries: u64,
    pub resumes: u64,
    pub resent_bytes: u64,
    /// Finished items' latency (open loop: from intended start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<Times>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_byte: Option<Times>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<Times>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transfer: Option<Times>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finalize: Option<Times>,
    /// Ranges workload: finished reads with ranges, their retries, and each range's times.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ranged_reads: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ranged_retries: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_first_byte: Option<Times>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_complete: Option<Times>,
    /// Append workload: each flush's time to persisted, and to read back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flushes: Option<Times>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_back: Option<Times>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Tally {
    /// The tally of these items (a round's, as they were taken).
    pub fn of<'a>(items: impl IntoIterator<Item = &'a ObjectSample>) -> Tally {
        let mut recording = Recording::default();
        items.into_iter().for_each(|item| recording.record(item));
        recording.finish()
    }

    /// This tally and `other` as one (folded rounds, a fleet's hosts).
    pub fn absorb(&mut self, other: &Tally) {
        self.absorb_counts(other);
        for (mine, theirs) in self.times_mut().into_iter().zip(other.times()) {
            let pooled = Pooled::of([mine.as_ref(), theirs].into_iter());
            *mine = pooled.packed();
        }
    }

    /// Its per-item times at `FOLDED_DIGITS` (a folded record's). Ranges'
    /// and flushes' stay whole: their figures are read from the records.
    pub fn coarsen(&mut self) {
        for times in
            [&mut self.latency, &mut self.first_byte, &mut self.session, &mut self.transfer, &mut self.finalize]
                .into_iter()
                .flatten()
        {
            if let Some(coarse) = times.coarsened(FOLDED_DIGITS) {
                *times = coarse;
            }
        }
    }

    /// `other`'s counts added to these (its times left out).
    pub fn absorb_counts(&mut self, other: &Tally) {
        self.finished += other.finished;
        self.failed += other.failed;
        self.finished_bytes += other.finished_bytes;
        self.finished_s += other.finished_s;
        add_kinds(&mut self.error_kinds, &other.error_kinds);
        add_kinds(&mut self.retried_after, &other.retried_after);
        self.unchecked += other.unchecked;
        self.retries += other.retries;
        self.resumes += other.resumes;
        self.resent_bytes += other.resent_bytes;
        self.ranged_reads += other.ranged_reads;
        self.ranged_retries += other.ranged_retries;
    }

    fn times(&self) -> [Option<&Times>; 9] {
        [
            &self.latency,
            &self.first_byte,
            &self.session,
            &self.transfer,
            &self.finalize,
            &self.range_first_byte,
            &self.range_complete,
            &self.flushes,
            &self.read_back,
        ]
        .map(Option::as_ref)
    }

    fn times_mut(&mut self) -> [&mut Option<Times>; 9] {
        [
            &mut self.latency,
            &mut self.first_byte,
            &mut self.session,
            &mut self.transfer,
            &mut self.finalize,
            &mut self.range_first_byte,
            &mut self.range_complete,
            &mut self.flushes,
            &mut self.read_back,
        ]
    }
}

fn add_kinds(into: &mut ErrorKinds, from: &ErrorKinds) {
    for (kind, count) in from {
        *into.entry(kind.clone()).or_default() += count;
    }
}

/// A round's tally as its items arrive: counts now, times pooled as they come.
#[derive(Default)]
pub struct Recording {
    tally: Tally,
    times: [Pooled; 9],
}

impl Recording {
    pub fn record(&mut self, item: &ObjectSample) {
        let t = &mut self.tally;
        t.retries += u64::from(item.retries);
        t.resumes += u64::from(item.resumes);
        t.resent_bytes += item.resent_bytes;
        add_kinds(&mut t.retried_after, &item.retried_after);
        if !item.ok {
            t.failed += 1;
            *t.error_kinds.entry(item.error_kind.clone().unwrap_or_else(|| "other".into())).or_default() += 1;
            return;
        }
        t.finished += 1;
        t.finished_bytes += item.bytes;
        t.finished_s += item.latency_s();
        t.unchecked += u64::from(item.unchecked);
        let [latency, first_byte, session, transfer, finalize, range_first, range_complete, flushes, read_back] =
            &mut self.times;
        latency.record(item.latency_s());
        item.first_byte_s.into_iter().for_each(|s| first_byte.record(s));
        item.phases.session_s.into_iter().for_each(|s| session.record(s));
        transfer.record(item.phases.transfer_s);
        finalize.record(item.phases.finalize_s);
        if let Some(ranges) = &item.ranges {
            t.ranged_reads += 1;
            t.ranged_retries += u64::from(item.retries);
            ranges.iter().for_each(|r| range_first.record(r.first_byte_s));
            ranges.iter().for_each(|r| range_complete.record(r.complete_s));
        }
        item.flushes.iter().flatten().for_each(|&s| flushes.record(s));
        item.read_back.iter().flatten().for_each(|&s| read_back.record(s));
    }

    /// Another recording's items added to these.
    pub fn add(&mut self, other: &Recording) {
        self.tally.absorb_counts(&other.tally);
        for (mine, theirs) in self.times.iter_mut().zip(&other.times) {
            let _ = mine.histogram.add(&theirs.histogram);
            mine.slowest_s = mine.slowest_s.max(theirs.slowest_s);
        }
    }

    pub fn finish(mut self) -> Tally {
        for (slot, pooled) in self.tally.times_mut().into_iter().zip(&self.times) {
            *slot = pooled.packed();
        }
        self.tally
    }
}
