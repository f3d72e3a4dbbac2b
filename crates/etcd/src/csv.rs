//! An etcd report as CSV: one row per round, each naming its run, target
//! and mode, so that a CSV alone says what was measured.

use super::report::EtcdReport;
use engine::error_kinds::format_kinds;
use engine::report::csv_field;

impl EtcdReport {
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "transport,round,elapsed_s,ops,errors,error_kinds,ok,ops_per_s,p50_ms,p99_ms,cpu_s,server_cpu_s,wire_sent_bytes,wire_received_bytes,host,started_at,ended_at,run_id,target,mode\n",
        );
        for r in &self.rounds {
            let rate = engine::compare::PairedRound::rate(r).map(|v| format!("{v:.1}")).unwrap_or_default();
            let quantile = |q: f64| {
                (!r.latency.is_empty()).then(|| format!("{:.3}", r.latency.value_at_quantile(q) as f64 / 1000.0))
            };
            let fields = [
                r.transport.name().to_string(),
                (r.round + 1).to_string(),
                format!("{:.6}", r.elapsed_s),
                r.ops.to_string(),
                r.errors.to_string(),
                format_kinds(&r.error_kinds),
                r.ok.to_string(),
                rate,
                quantile(0.5).unwrap_or_default(),
                quantile(0.99).unwrap_or_default(),
                format!("{:.6}", r.cpu_s),
                r.server_cpu_s.map(|s| format!("{s:.6}")).unwrap_or_default(),
                r.wire_sent_bytes.to_string(),
                r.wire_received_bytes.to_string(),
                r.span.host.clone(),
                r.span.started_at.clone(),
                r.span.ended_at.clone(),
                // Which run, against what, doing what: a CSV alone says what was measured.
                self.run_id.clone(),
                self.config.endpoints.join(","),
                super::merge::operation(self.config.mode).to_string(),
            ];
            let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }
}
