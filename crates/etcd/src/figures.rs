//! The report's figures as `--fail-if` asks for them: a row per transport,
//! or the gRPC/gateway ratio of ops/s; and as a sweep's table reads them:
//! the ratio with its interval, CPU per operation and connections.

use super::merge::operation;
use super::report::EtcdReport;
use engine::finished::{RatioFigure, RowCost};
use engine::plan::TransportKind;
use engine::threshold::{Figure, Metric};
use units::significant;

impl EtcdReport {
    pub fn figures(&self, metric: Metric, transport: Option<TransportKind>) -> Vec<Figure> {
        if metric == Metric::Ratio {
            let rate = |kind| self.transports.iter().find(|t| t.transport == kind).map(|t| t.ops_per_s);
            return match (rate(TransportKind::Grpc), rate(TransportKind::Json)) {
                (Some(grpc), Some(json)) => {
                    let ratio = grpc.zip(json).filter(|(_, json)| *json > 0.0).map(|(grpc, json)| grpc / json);
                    vec![("grpc/http-json".to_string(), ratio)]
                }
                _ => Vec::new(),
            };
        }
        let seconds = |ms: Option<f64>| ms.map(|ms| ms / 1000.0);
        self.transports
            .iter()
            .filter(|t| transport.is_none_or(|kind| kind == t.transport))
            .map(|t| {
                let value = match metric {
                    Metric::P50 => seconds(t.latency.p50_ms),
                    Metric::P90 => seconds(t.latency.p90_ms),
                    Metric::P99 => seconds(t.latency.p99_ms),
                    Metric::Throughput => t.ops_per_s,
                    Metric::Errors => Some(t.errors as f64),
                    // etcd requests are not retried: there is no such figure.
                    Metric::Retries | Metric::Ratio => None,
                };
                (t.transport.name().to_string(), value)
            })
            .collect()
    }
}

impl EtcdReport {
    /// gRPC over the gateway, with the ratio's interval.
    pub fn ratios(&self) -> Vec<RatioFigure> {
        let Some(verdict) = &self.comparison else { return Vec::new() };
        let (ratio, interval) = verdict.comparison.grpc_over_json();
        vec![RatioFigure { name: "grpc/http-json".into(), ratio, interval, readable: verdict.comparison.readable() }]
    }

    /// Each row's client CPU per operation and connections.
    pub fn costs(&self) -> Vec<RowCost> {
        let operation = operation(self.config.mode);
        self.transports
            .iter()
            .map(|t| RowCost {
                transport: t.transport,
                name: format!("{} {operation}", t.transport.name()),
                cpu: t.client_cpu_us_per_op.map(|us| format!("{} µs/op", significant(us, 3))),
                connections: t.connections,
            })
            .collect()
    }
}
