//! Open-loop figures as earlier reports kept them, read into today's.

use super::LatencyRatio;

/// A latency ratio as reports have kept it: reports before 0.1's honest
/// ratios kept gRPC's over HTTP/JSON's (`grpc_over_json`), read the other
/// way up here.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub(super) struct SavedLatencyRatio {
    percentile: String,
    #[serde(default)]
    json_over_grpc: Option<f64>,
    #[serde(default)]
    grpc_over_json: Option<f64>,
    ci_low: Option<f64>,
    ci_high: Option<f64>,
    pairs: usize,
}

impl From<SavedLatencyRatio> for LatencyRatio {
    fn from(saved: SavedLatencyRatio) -> Self {
        let SavedLatencyRatio { percentile, json_over_grpc, grpc_over_json, ci_low, ci_high, pairs } = saved;
        let Some(old) = grpc_over_json else {
            return LatencyRatio { percentile, json_over_grpc, ci_low, ci_high, pairs };
        };
        let flip = |v: Option<f64>| v.filter(|v| *v > 0.0).map(|v| 1.0 / v);
        LatencyRatio {
            percentile,
            json_over_grpc: flip(Some(old)),
            ci_low: flip(ci_high),
            ci_high: flip(ci_low),
            pairs,
        }
    }
}
