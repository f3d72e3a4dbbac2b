//! The report's figures as `--fail-if` asks for them: a row per transport
//! and operation, or the gRPC/JSON ratio per operation.

use super::{RunReport, row_name};
use crate::config::TransportKind;
use crate::stats::Operation;
use engine::threshold::{Figure, Metric};

impl RunReport {
    pub fn figures(&self, metric: Metric, transport: Option<TransportKind>) -> Vec<Figure> {
        let workload = self.config.workload;
        if metric == Metric::Ratio {
            return Operation::of(workload)
                .iter()
                .filter_map(|&operation| {
                    let rate = |kind| self.transports.iter().find(|t| t.transport == kind && t.operation == operation);
                    let (json, grpc) = (rate(TransportKind::Json)?, rate(TransportKind::Grpc)?);
                    let ratio = match (grpc.throughput_mib_s, json.throughput_mib_s) {
                        (Some(grpc), Some(json)) if json > 0.0 => Some(grpc / json),
                        _ => None,
                    };
                    Some((format!("grpc/http-json {}s", operation.name()), ratio))
                })
                .collect();
        }
        self.transports
            .iter()
            .filter(|t| transport.is_none_or(|kind| kind == t.transport))
            .map(|t| {
                let value = match metric {
                    Metric::P50 => t.p50_s,
                    Metric::P90 => t.p90_s,
                    Metric::P99 => t.p99_s,
                    Metric::Throughput => t.throughput_mib_s,
                    Metric::Errors => Some(t.errors as f64),
                    Metric::Retries => Some(t.retries as f64),
                    Metric::Ratio => None,
                };
                (row_name(t, workload), value)
            })
            .collect()
    }
}
