//! Sweeps read back from files (`--open sweep.json`): each file's points
//! put together again as the sweep they were, for the app to draw.

use super::report::{PointReport, SweepReport, SweepSaid};
use crate::fleet::inputs::Loaded;

/// The sweeps among `loaded`, one per report they were read from, each
/// with its points in the order the file lists them (grid order).
pub fn sweeps_in(loaded: &[Loaded]) -> Vec<SweepReport> {
    let mut sweeps: Vec<(String, SweepReport)> = Vec::new();
    for item in loaded {
        let Some(point) = &item.point else { continue };
        let said: Vec<String> =
            point.options.iter().filter_map(|o| Some(format!("{o}={}", point.values.get(o)?))).collect();
        // Its place in the run order (1 ran first), as the sweep's own report says it.
        let ran = point.ran_in_order.iter().position(|p| *p == said.join(" ")).map_or(0, |i| i + 1);
        let report = PointReport::of(point.values.clone(), ran, item.report.clone());
        match sweeps.iter_mut().find(|(from, _)| *from == point.sweep) {
            Some((_, sweep)) => sweep.points.push(report),
            None => {
                let said = SweepSaid {
                    options: point.options.clone(),
                    planned: point.planned,
                    share_s: point.share_s,
                    ran_in_order: point.ran_in_order.clone(),
                    cancelled: point.cancelled,
                };
                sweeps.push((
                    point.sweep.clone(),
                    SweepReport {
                        report_version: crate::engine::report::REPORT_VERSION,
                        sweep: said,
                        points: vec![report],
                    },
                ));
            }
        }
    }
    sweeps.into_iter().map(|(_, sweep)| sweep).collect()
}
