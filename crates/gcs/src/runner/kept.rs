//! The objects a run keeps as they were taken: a bounded set for the report
//! (every one in a short run; past that the slowest and the failed), and
//! every one streamed to `--samples FILE` (NDJSON, or CSV by its extension)
//! as it is taken, so that a run of any length holds a fixed amount.

use crate::config::TransportKind;
use crate::stats::{ObjectSample, Operation};
use engine::report::csv_field;
use std::collections::BTreeMap;
use std::io::Write;

/// Objects the report keeps per transport and operation.
pub const KEPT_SAMPLES: usize = 256;

/// The kept objects by lane, each with its place in the run's order.
#[derive(Default)]
pub struct Kept {
    lanes: BTreeMap<(TransportKind, Operation), Lane>,
    taken: u64,
}

#[derive(Default)]
struct Lane {
    kept: Vec<(u64, ObjectSample)>,
    seen: u64,
}

/// Failed items rank first, then the slowest.
fn rank(sample: &ObjectSample) -> (bool, f64) {
    (!sample.ok, sample.latency_s())
}

impl Kept {
    pub fn keep(&mut self, sample: ObjectSample) {
        self.taken += 1;
        let lane = self.lanes.entry((sample.transport, sample.operation)).or_default();
        lane.seen += 1;
        if lane.kept.len() < KEPT_SAMPLES {
            lane.kept.push((self.taken, sample));
            return;
        }
        let least = (0..lane.kept.len()).min_by(|&a, &b| {
            let (a, b) = (rank(&lane.kept[a].1), rank(&lane.kept[b].1));
            a.0.cmp(&b.0).then(a.1.total_cmp(&b.1))
        });
        if let Some(least) = least {
            let (new, old) = (rank(&sample), rank(&lane.kept[least].1));
            if new.0.cmp(&old.0).then(new.1.total_cmp(&old.1)).is_gt() {
                lane.kept[least] = (self.taken, sample);
            }
        }
    }

    /// The kept objects in the order they were taken.
    pub fn take(&mut self) -> Vec<ObjectSample> {
        let mut all: Vec<(u64, ObjectSample)> = self.lanes.values_mut().flat_map(|l| l.kept.drain(..)).collect();
        all.sort_by_key(|(order, _)| *order);
        all.into_iter().map(|(_, sample)| sample).collect()
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

/// Every object, one line each, as it is taken.
pub struct SamplesFile {
    out: std::io::BufWriter<std::fs::File>,
    csv: bool,
    path: std::path::PathBuf,
    failed: Option<String>,
    written: u64,
}

const CSV_HEADER: &str = "host,transport,operation,round,worker,object,bytes,start_s,elapsed_s,latency_s,ok,error,retries,resumes,resent_bytes,first_byte_s,range_first_byte_s,range_complete_s,flush_s,read_back_s\n";

impl SamplesFile {
    pub fn create(path: &std::path::Path) -> Result<SamplesFile, String> {
        let file = std::fs::File::create(path)
            .map_err(|e| format!("cannot write the samples file {}: {e}", path.display()))?;
        let csv = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv"));
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
        let failed = if csv { out.write_all(CSV_HEADER.as_bytes()).err().map(|e| e.to_string()) } else { None };
        Ok(SamplesFile { out, csv, path: path.to_path_buf(), failed, written: 0 })
    }

    pub fn write(&mut self, sample: &ObjectSample) {
        if self.failed.is_some() {
            return;
        }
        let line = if self.csv {
            csv_row(sample)
        } else {
            serde_json::to_string(sample).map(|l| l + "\n").unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}\n"))
        };
        match self.out.write_all(line.as_bytes()) {
            Ok(()) => self.written += 1,
            Err(e) => self.failed = Some(e.to_string()),
        }
    }

    /// Flushes it; says what it holds, or why it stopped short.
    pub fn finish(mut self) -> String {
        let flushed = self.out.flush().err().map(|e| e.to_string());
        match self.failed.or(flushed) {
            None => format!(
                "samples: {} written to {}",
                engine::report::plural(self.written as usize, "object"),
                self.path.display()
            ),
            Some(e) => format!("samples: writing {} stopped after {} objects: {e}", self.path.display(), self.written),
        }
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
