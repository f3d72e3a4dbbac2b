//! An etcd report as CSV: one row per round, each naming its run, target
//! and mode, so that a CSV alone says what was measured.

use super::report::EtcdReport;
use engine::calls::said::{ROUND_CSV_HEADER, round_csv_fields};
use engine::report::csv_field;

impl EtcdReport {
    pub fn to_csv(&self) -> String {
        let mut out = format!("{ROUND_CSV_HEADER},run_id,target,mode\n");
        for r in &self.rounds {
            let mut fields = round_csv_fields(r);
            // Which run, against what, doing what: a CSV alone says what was measured.
            fields.extend([
                self.run_id.clone(),
                self.config.endpoints.join(","),
                super::merge::operation(self.config.mode).to_string(),
            ]);
            let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }
}
