//! `merge` of sweeps: the hosts' reports of each point merged as any
//! fleet's are (one configuration, each host once, the common window), the
//! points kept in the sweep's grid order.

use super::command::merge_loaded;
use super::inputs::{self, Loaded, SweepPoint};
use crate::sweep::report::{PointReport, SweepReport, SweepSaid};
use std::collections::BTreeMap;

/// One sweep report of every point the loaded hosts' sweeps hold, and the
/// warnings each point's merge gave (said with the point).
pub fn merge_sweeps(loaded: &[Loaded]) -> Result<(SweepReport, Vec<String>), String> {
    let points: Vec<&SweepPoint> = loaded.iter().filter_map(|l| l.point.as_ref()).collect();
    if let Some(single) = loaded.iter().find(|l| l.point.is_none()) {
        return Err(format!("{} is one run and the others are sweeps' points: merge sweeps with sweeps", single.name));
    }
    let first = points[0];
    if let Some(other) = loaded.iter().find(|l| l.point.as_ref().is_some_and(|p| p.options != first.options)) {
        return Err(format!(
            "{} swept {} and {} swept {}: merge sweeps of the same options",
            loaded[0].name,
            first.options.join(" x "),
            other.name,
            other.point.as_ref().map_or(String::new(), |p| p.options.join(" x "))
        ));
    }
    // Each point's hosts, in the order the first sweep lists its points (grid order).
    let mut groups: Vec<(BTreeMap<String, String>, Vec<Loaded>)> = Vec::new();
    for item in loaded {
        let values = &item.point.as_ref().expect("every input is a point").values;
        match groups.iter_mut().find(|(v, _)| v == values) {
            Some((_, hosts)) => hosts.push(item.clone()),
            None => groups.push((values.clone(), vec![item.clone()])),
        }
    }
    let mut warnings = Vec::new();
    let mut merged = Vec::new();
    for (index, (values, hosts)) in groups.into_iter().enumerate() {
        let said: Vec<String> = first.options.iter().filter_map(|o| Some(format!("{o}={}", values.get(o)?))).collect();
        let said = said.join(" ");
        let mut report = merge_loaded(&hosts).map_err(|e| format!("point {said}: {e}"))?;
        let caveats = inputs::warnings(&hosts);
        if let Some(fleet) = report.fleet_mut() {
            fleet.caveats = caveats.clone();
            warnings.extend(fleet.apart.iter().map(|w| format!("point {said}: {w}")));
        }
        warnings.extend(caveats.into_iter().map(|w| format!("point {said}: {w}")));
        merged.push(PointReport::of(values, index + 1, report));
    }
    let sweep = SweepSaid {
        options: first.options.clone(),
        planned: merged.len(),
        share_s: first.share_s,
        ran_in_order: first.ran_in_order.clone(),
        cancelled: false,
    };
    Ok((SweepReport { report_version: crate::engine::report::REPORT_VERSION, sweep, points: merged }, warnings))
}
