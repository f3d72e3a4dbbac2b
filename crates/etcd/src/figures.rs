//! The report's figures as `--fail-if` asks for them: a row per transport,
//! or the gRPC/gateway ratio of ops/s; and as a sweep's table reads them:
//! the ratio with its interval, CPU per operation and connections.

use super::merge::operation;
use super::report::EtcdReport;
use engine::calls::said;
use engine::finished::{RatioFigure, RowCost};
use engine::plan::TransportKind;
use engine::threshold::{Figure, Metric};

impl EtcdReport {
    pub fn figures(&self, metric: Metric, transport: Option<TransportKind>) -> Vec<Figure> {
        said::figures(&self.transports, metric, transport)
    }

    /// gRPC over the gateway, with the ratio's interval.
    pub fn ratios(&self) -> Vec<RatioFigure> {
        said::ratios(self.comparison.as_ref().map(|v| &v.comparison))
    }

    /// Each row's client CPU per operation and connections.
    pub fn costs(&self) -> Vec<RowCost> {
        said::costs(&self.transports, operation(self.config.mode))
    }
}
