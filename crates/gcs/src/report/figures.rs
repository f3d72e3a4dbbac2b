//! The report's figures as `--fail-if` asks for them: a row per transport
//! and operation, or the gRPC/JSON ratio per operation; and as a sweep's
//! table reads them: ratios with their intervals, CPU and connections.

use super::{RunReport, Shown, row_name};
use crate::config::TransportKind;
use crate::stats::Operation;
use engine::finished::{RatioFigure, RowCost};
use engine::threshold::{Figure, Metric};
use units::significant;

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

impl RunReport {
    /// gRPC over HTTP/JSON per operation, with each ratio's interval.
    pub fn ratios(&self) -> Vec<RatioFigure> {
        self.verdicts
            .iter()
            .map(|v| {
                let (ratio, interval) = v.comparison.grpc_over_json();
                let name = format!("grpc/http-json {}s", v.operation.name());
                RatioFigure { name, ratio, interval, readable: v.comparison.readable() }
            })
            .collect()
    }

    /// Each row's client CPU (per GiB, or per object for small objects) and connections.
    pub fn costs(&self) -> Vec<RowCost> {
        let small = Shown::of(self).small;
        self.transports
            .iter()
            .map(|t| RowCost {
                transport: t.transport,
                name: format!("{} {}", t.transport.name(), t.operation.name()),
                cpu: match small {
                    true => t.cpu_us_per_object.map(|us| format!("{} µs/object", significant(us, 3))),
                    false => t.cpu_s_per_gib.map(|s| format!("{s:.2} s/GiB")),
                },
                cpu_s_per_gib: t.cpu_s_per_gib,
                cpu_us_per_item: t.cpu_us_per_object,
                connections: t.connections,
            })
            .collect()
    }
}
