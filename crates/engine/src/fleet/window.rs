//! The fleet's common window: from the moment the last host began its
//! rounds to the moment the first host ended them. Inside it every host was
//! at work, so the hosts' rates there add up to what the fleet got; what lies
//! outside (a host alone at the start, stragglers at the end) is trimmed and
//! said.

use super::FleetRound;
use crate::plan::TransportKind;

/// A window on the wall clock, in microseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Micros {
    pub start: i64,
    pub end: i64,
}

impl Micros {
    pub fn seconds(&self) -> f64 {
        (self.end - self.start) as f64 / 1e6
    }
}

/// The common window, and what was cut off each end of the hosts' span.
#[derive(Clone, Debug, PartialEq)]
pub struct Common {
    pub window: Micros,
    /// From the first host's first round to the window's start, and from
    /// its end to the last host's last round.
    pub trimmed_start_s: f64,
    pub trimmed_end_s: f64,
    pub last_to_start: String,
    pub first_to_end: String,
}

/// Runs that never all ran at once: `ended` finished `by_s` before `began` started.
#[derive(Clone, Debug, PartialEq)]
pub struct Apart {
    pub by_s: f64,
    pub ended: String,
    pub began: String,
}

/// The common window of hosts, each given by its name and its rounds'
/// wall-clock spans (rounds without times are left out by the caller).
pub fn common_window(hosts: &[(&str, Vec<Micros>)]) -> Result<Common, Apart> {
    let first = |spans: &Vec<Micros>| spans.iter().map(|s| s.start).min();
    let last = |spans: &Vec<Micros>| spans.iter().map(|s| s.end).max();
    let bounds: Vec<(&str, i64, i64)> =
        hosts.iter().filter_map(|(name, spans)| Some((*name, first(spans)?, last(spans)?))).collect();
    let (Some(late), Some(early_end)) = (bounds.iter().max_by_key(|b| b.1), bounds.iter().min_by_key(|b| b.2)) else {
        return Err(Apart { by_s: 0.0, ended: String::new(), began: String::new() });
    };
    let earliest = bounds.iter().map(|b| b.1).min().unwrap_or(late.1);
    let latest = bounds.iter().map(|b| b.2).max().unwrap_or(early_end.2);
    if late.1 >= early_end.2 {
        let by_s = (late.1 - early_end.2) as f64 / 1e6;
        return Err(Apart { by_s, ended: early_end.0.to_string(), began: late.0.to_string() });
    }
    Ok(Common {
        window: Micros { start: late.1, end: early_end.2 },
        trimmed_start_s: (late.1 - earliest) as f64 / 1e6,
        trimmed_end_s: (latest - early_end.2) as f64 / 1e6,
        last_to_start: late.0.to_string(),
        first_to_end: early_end.0.to_string(),
    })
}

/// One host's work of one transport and part inside a window: each complete
/// round counts for the share of it that lies inside (its work taken as
/// spread evenly over the round), and so does its time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InWindow {
    pub amount: f64,
    pub seconds: f64,
}

impl InWindow {
    pub fn rate(&self) -> Option<f64> {
        (self.seconds > 0.0 && self.amount > 0.0).then(|| self.amount / self.seconds)
    }
}

pub fn in_window<R: FleetRound>(rounds: &[R], transport: TransportKind, part: u8, window: Micros) -> InWindow {
    let mut inside = InWindow::default();
    for round in rounds.iter().filter(|r| r.transport() == transport && r.part() == part && r.rate().is_some()) {
        let Some((start, end)) = round.span().wall_micros() else { continue };
        let overlap = end.min(window.end) - start.max(window.start);
        if overlap <= 0 || end <= start {
            continue;
        }
        inside.amount += round.amount() * overlap as f64 / (end - start) as f64;
        inside.seconds += overlap as f64 / 1e6;
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(bounds: &[(i64, i64)]) -> Vec<Micros> {
        bounds.iter().map(|&(start, end)| Micros { start, end }).collect()
    }

    #[test]
    fn the_window_runs_from_the_last_start_to_the_first_end() {
        let hosts = [
            ("a", spans(&[(0, 4_000_000), (4_000_000, 9_000_000)])),
            ("b", spans(&[(1_500_000, 10_000_000)])),
            ("c", spans(&[(500_000, 12_000_000)])),
        ];
        let common = common_window(&hosts).unwrap();
        assert_eq!(common.window, Micros { start: 1_500_000, end: 9_000_000 });
        assert_eq!((common.trimmed_start_s, common.trimmed_end_s), (1.5, 3.0));
        assert_eq!((common.last_to_start.as_str(), common.first_to_end.as_str()), ("b", "a"));
        assert_eq!(common.window.seconds(), 7.5);
    }

    #[test]
    fn runs_that_never_overlapped_say_by_how_much() {
        let hosts = [("a", spans(&[(0, 2_000_000)])), ("b", spans(&[(5_250_000, 6_000_000)]))];
        assert_eq!(common_window(&hosts), Err(Apart { by_s: 3.25, ended: "a".into(), began: "b".into() }));
    }
}
