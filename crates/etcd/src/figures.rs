//! The report's figures as `--fail-if` asks for them: a row per transport,
//! or the gRPC/gateway ratio of ops/s.

use super::report::EtcdReport;
use engine::plan::TransportKind;
use engine::threshold::{Figure, Metric};

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
