//! The objects a run keeps as they were taken: a bounded set for the report
//! (every one in a short run; past that the slowest and the failed); every
//! one goes to `--samples FILE` as it is taken (`engine::samples`), so that
//! a run of any length holds a fixed amount.

use crate::config::TransportKind;
use crate::stats::{ObjectSample, Operation};
use engine::report::csv_field;
use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap};

/// Objects the report keeps per transport and operation.
pub const KEPT_SAMPLES: usize = 256;

/// The kept objects by lane, each with its place in the run's order.
#[derive(Default)]
pub struct Kept {
    lanes: BTreeMap<(TransportKind, Operation), Lane>,
    taken: u64,
}

/// A lane's kept objects as a min-heap by rank: the least worth keeping on
/// top, so a newcomer is weighed against one object, not every kept one.
#[derive(Default)]
struct Lane {
    kept: BinaryHeap<Reverse<Ranked>>,
    seen: u64,
}

/// An object with its rank (failed first, then the slowest) and its order.
struct Ranked {
    failed: bool,
    latency_s: f64,
    order: u64,
    sample: ObjectSample,
}

impl Ranked {
    fn key(&self) -> (bool, f64) {
        (self.failed, self.latency_s)
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        let (mine, theirs) = (self.key(), other.key());
        mine.0.cmp(&theirs.0).then(mine.1.total_cmp(&theirs.1))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ranked {}

impl Kept {
    pub fn keep(&mut self, sample: ObjectSample) {
        self.taken += 1;
        let ranked = Ranked { failed: !sample.ok, latency_s: sample.latency_s(), order: self.taken, sample };
        let lane = self.lanes.entry((ranked.sample.transport, ranked.sample.operation)).or_default();
        lane.seen += 1;
        if lane.kept.len() < KEPT_SAMPLES {
            lane.kept.push(Reverse(ranked));
        } else if let Some(mut least) = lane.kept.peek_mut()
            && ranked > least.0
        {
            *least = Reverse(ranked);
        }
    }

    /// The kept objects in the order they were taken.
    pub fn take(&mut self) -> Vec<ObjectSample> {
        let mut all: Vec<Ranked> = self.lanes.values_mut().flat_map(|l| l.kept.drain().map(|r| r.0)).collect();
        all.sort_by_key(|r| r.order);
        all.into_iter().map(|r| r.sample).collect()
    }

    /// Which objects were kept, when not every one.
    pub fn said(&self) -> Option<String> {
        let partial: Vec<String> = (self.lanes.iter())
            .filter(|(_, lane)| lane.seen > KEPT_SAMPLES as u64)
            .map(|((kind, operation), lane)| {
                format!("{} of {} {} {}s", KEPT_SAMPLES, lane.seen, kind.name(), operation.name())
            })
            .collect();
        (!partial.is_empty())
            .then(|| format!("the failed and the slowest: {} (--samples FILE streams every one)", partial.join(", ")))
    }
}

impl engine::samples::Record for ObjectSample {
    const NOUN: &'static str = "object";
    const CSV_HEADER: &'static str = "host,transport,operation,round,worker,object,bytes,start_s,elapsed_s,latency_s,ok,error,retries,resumes,resent_bytes,first_byte_s,range_first_byte_s,range_complete_s,flush_s,read_back_s\n";

    fn csv_row(&self) -> String {
        csv_row(self)
    }
}

/// One object's row: the same columns whatever the workload.
fn csv_row(s: &ObjectSample) -> String {
    let seconds =
        |values: &mut dyn Iterator<Item = f64>| values.map(|t| format!("{t:.6}")).collect::<Vec<_>>().join(";");
    let ranges = s.ranges.as_deref().unwrap_or_default();
    format!(
        "{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{},{},{},{},{},{},{},{},{},{}\n",
        csv_field(&s.host),
        s.transport.name(),
        s.operation.name(),
        s.round + 1,
        s.worker,
        csv_field(&s.object),
        s.bytes,
        s.start_s,
        s.elapsed_s,
        s.latency_s(),
        s.ok,
        csv_field(s.error.as_deref().unwrap_or("")),
        s.retries,
        s.resumes,
        s.resent_bytes,
        s.first_byte_s.map(|t| format!("{t:.6}")).unwrap_or_default(),
        seconds(&mut ranges.iter().map(|r| r.first_byte_s)),
        seconds(&mut ranges.iter().map(|r| r.complete_s)),
        seconds(&mut s.flushes.iter().flatten().copied()),
        seconds(&mut s.read_back.iter().flatten().copied()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Object `index` (its round, to tell it by) taking `elapsed_s`.
    fn item(index: u32, elapsed_s: f64, ok: bool) -> ObjectSample {
        ObjectSample { round: index, ..crate::stats::tests::object(TransportKind::Json, elapsed_s, ok) }
    }

    #[test]
    fn past_the_bound_the_failed_and_the_slowest_are_kept_in_the_order_taken() {
        let mut kept = Kept::default();
        // 400 objects: object i takes (i + 1) ms, and object 10 (fast) failed.
        for i in 0..400u32 {
            kept.keep(item(i, f64::from(i + 1) * 1e-3, i != 10));
        }
        let said = kept.said().unwrap();
        let objects = kept.take();
        assert_eq!(objects.len(), KEPT_SAMPLES);
        // The failed one, then the 255 slowest: objects 145..400.
        let expected: Vec<u32> = std::iter::once(10).chain(400 - (KEPT_SAMPLES as u32 - 1)..400).collect();
        assert_eq!(objects.iter().map(|o| o.round).collect::<Vec<_>>(), expected);
        assert!(said.contains(&format!("{KEPT_SAMPLES} of 400 http-json uploads")), "{said}");
    }
}
