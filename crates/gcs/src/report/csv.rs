//! A report as CSV: one row per item (upload, read, ranged read, appended
//! object), each saying which run and where. An item's parts (a ranged
//! read's ranges, an appended object's flushes) are kept in its row as
//! `;`-separated seconds, in the order they were asked for or sent, so a
//! CSV alone holds every figure the report's lines are made of.

use super::{RunReport, csv_field};

const HEADER: &str = "transport,round,worker,object,bytes,start_s,elapsed_s,ok,error,retries,resumes,resent_bytes,operation,first_byte_s,host,run_id,target,range_first_byte_s,range_complete_s,flush_s,read_back_s\n";

impl RunReport {
    pub fn to_csv(&self) -> String {
        let mut out = String::from(HEADER);
        // Every row says which run and where (with any injected fault), so a
        // CSV alone tells what was measured.
        let run = format!("{},{}", csv_field(&self.run_id), csv_field(&self.target.short()));
        for s in &self.samples {
            let first_byte = s.first_byte_s.map(|t| format!("{t:.6}")).unwrap_or_default();
            let ranges = s.ranges.as_deref().unwrap_or_default();
            let parts = [
                seconds(ranges.iter().map(|r| r.first_byte_s)),
                seconds(ranges.iter().map(|r| r.complete_s)),
                seconds(s.flushes.iter().flatten().copied()),
                seconds(s.read_back.iter().flatten().copied()),
            ]
            .join(",");
            out.push_str(&format!(
                "{},{},{},{},{},{:.6},{:.6},{},{},{},{},{},{},{first_byte},{},{run},{parts}\n",
                s.transport.name(),
                s.round + 1,
                s.worker,
                csv_field(&s.object),
                s.bytes,
                s.start_s,
                s.elapsed_s,
                s.ok,
                csv_field(s.error.as_deref().unwrap_or("")),
                s.retries,
                s.resumes,
                s.resent_bytes,
                s.operation.name(),
                csv_field(&s.host)
            ));
        }
        out
    }
}

/// Seconds joined by `;` (no comma, so the field needs no quotes).
fn seconds(values: impl Iterator<Item = f64>) -> String {
    values.map(|t| format!("{t:.6}")).collect::<Vec<_>>().join(";")
}
