//! A report as CSV: one row per round of each transport and operation,
//! saying which run and where, what the round moved and how long it took,
//! and what its items came to. Rows per object are the raw stream's
//! (`--samples FILE.csv`), which a run of any length writes as it goes.

use super::{RunReport, csv_field};
use crate::stats::{Pooled, RoundSample};

const HEADER: &str = "host,transport,operation,round,elapsed_s,bytes,ok,objects,failed,p50_s,p90_s,p99_s,mib_s,cpu_s,wire_bytes,retries,resumes,run_id,target\n";

impl RunReport {
    pub fn to_csv(&self) -> String {
        let mut out = String::from(HEADER);
        // Every row says which run and where (with any injected fault), so a
        // CSV alone tells what was measured.
        let run = format!("{},{}", csv_field(&self.run_id), csv_field(&self.target.short()));
        for r in &self.rounds {
            out.push_str(&round_row(r));
            out.push_str(&run);
            out.push('\n');
        }
        out
    }
}

/// A round's columns up to the run's.
fn round_row(r: &RoundSample) -> String {
    let tally = r.items.clone().unwrap_or_default();
    let latency = Pooled::of(std::iter::once(tally.latency.as_ref()));
    let seconds = |q: f64| latency.quantile(q).map(|s| format!("{s:.6}")).unwrap_or_default();
    let rate = (r.ok && r.elapsed_s > 0.0).then(|| units::mib_per_second(r.bytes, r.elapsed_s));
    format!(
        "{},{},{},{},{:.6},{},{},{},{},{},{},{},{},{:.6},{},{},{},",
        csv_field(&r.span.host),
        r.transport.name(),
        r.operation.name(),
        r.round + 1,
        r.elapsed_s,
        r.bytes,
        r.ok,
        tally.finished,
        tally.failed,
        seconds(0.5),
        seconds(0.9),
        seconds(0.99),
        rate.map(|m| format!("{m:.3}")).unwrap_or_default(),
        r.cpu_s,
        r.wire_bytes,
        tally.retries,
        tally.resumes,
    )
}
