//! Fleets: reports from many hosts (the pods of one Kubernetes Job) merged
//! into one. What merges is what each report carries losslessly: every
//! round's wall-clock span and work, and each transport's latency histogram.
//!
//! - the fleet's throughput of a transport is the sum of its hosts' rates
//!   inside the common window (`window`), where every host was at work;
//! - its percentiles come from the hosts' histograms added together;
//! - its verdict pairs round i of one transport with round i of the other,
//!   each the sum of every host's rate in that round.
//!
//! The targets' reports (GCS, etcd) say which rounds and rows they have; the
//! arithmetic is here, once.

pub mod window;

use crate::compare::PairedRound;
use crate::plan::TransportKind;
use crate::report::RunOutcome;
use crate::timeline::Span;
use window::{InWindow, Micros, common_window, in_window};

/// A round that a fleet adds up: its span on the wall clock and its work.
pub trait FleetRound: PairedRound {
    fn span(&self) -> &Span;
    /// The round's work in the unit of its rates (MiB for GCS, operations for etcd).
    fn amount(&self) -> f64;
}

/// What a merged report says of the fleet as a whole.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Fleet {
    /// The hosts merged, by `--host-label`, in name order (the rows' order).
    pub hosts: Vec<String>,
    /// Where every host was at work; `None` when the runs never overlapped.
    pub window: Option<Window>,
    /// Why there is no window, in a sentence.
    pub apart: Option<String>,
    /// Each row's throughput inside the window (`None` without one).
    pub rows: Vec<FleetRow>,
    /// What the merge warned of (hosts on separate servers, other versions):
    /// kept with the report, so that it stands alone.
    #[serde(default)]
    pub caveats: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Window {
    pub started_at: String,
    pub ended_at: String,
    pub seconds: f64,
    /// Cut from the hosts' span: before the last host began, after the first ended.
    pub trimmed_start_s: f64,
    pub trimmed_end_s: f64,
    pub last_to_start: String,
    pub first_to_end: String,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct FleetRow {
    pub transport: TransportKind,
    pub operation: String,
    /// The sum of the hosts' rates in the window; `None` unless every host
    /// completed work of this row inside it.
    pub rate: Option<f64>,
    pub hosts: Vec<HostRate>,
}

/// One host's work of a row inside the window.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct HostRate {
    pub host: String,
    pub amount: f64,
    pub seconds: f64,
    pub rate: Option<f64>,
}

impl Fleet {
    /// What the fleet rows cover, in lines: the window (or why there is
    /// none) and each row's rate as the sum of its hosts' (`names` are the
    /// rows' names, in `rows` order).
    pub fn lines(&self, unit: units::RateUnit, names: &[String]) -> Vec<String> {
        let mut lines = vec![match (&self.window, &self.apart) {
            (Some(w), _) => format!(
                "fleet of {}: common window {} to {} ({:.3} s), trimmed {:.3} s at the start (until {} began) and {:.3} s at the end (after {} ended)",
                self.hosts.len(),
                w.started_at,
                w.ended_at,
                w.seconds,
                w.trimmed_start_s,
                w.last_to_start,
                w.trimmed_end_s,
                w.first_to_end
            ),
            (None, apart) => {
                format!("fleet of {}: {}", self.hosts.len(), apart.as_deref().unwrap_or("no common window"))
            }
        }];
        for (row, name) in self.rows.iter().zip(names) {
            let missing: Vec<&str> = row.hosts.iter().filter(|h| h.rate.is_none()).map(|h| h.host.as_str()).collect();
            lines.push(match row.rate {
                Some(rate) => {
                    let parts: Vec<String> = row
                        .hosts
                        .iter()
                        .map(|h| format!("{} {}", h.host, unit.number(h.rate.unwrap_or(0.0))))
                        .collect();
                    format!("{name}: {} in the window = {}", unit.format(rate), parts.join(" + "))
                }
                None if self.window.is_none() => format!("{name}: no throughput without a common window"),
                None => format!("{name}: no throughput: {} completed no round inside the window", missing.join(", ")),
            });
        }
        lines.push("fleet percentiles: of every host's requests (their histograms added); rounds, errors, CPU and bytes: summed".into());
        lines.extend(self.caveats.iter().map(|caveat| format!("caveat: {caveat}")));
        lines
    }
}

/// A row of figures a target's report has: a transport and a part of its rounds.
#[derive(Clone, Copy, Debug)]
pub struct Row {
    pub transport: TransportKind,
    pub part: u8,
    pub operation: &'static str,
}

/// A round index of the whole fleet: the sum of every host's rate in it,
/// or `None` unless every host completed it.
#[derive(Clone, Debug, PartialEq)]
pub struct FleetPair {
    pub transport: TransportKind,
    pub part: u8,
    pub index: u32,
    pub rate: Option<f64>,
}

impl PairedRound for FleetPair {
    fn transport(&self) -> TransportKind {
        self.transport
    }
    fn index(&self) -> u32 {
        self.index
    }
    fn part(&self) -> u8 {
        self.part
    }
    fn rate(&self) -> Option<f64> {
        self.rate
    }
}

/// The fleet's window and rows, and its paired rounds, from each host's
/// name and rounds.
pub fn fleet<R: FleetRound>(hosts: &[(&str, &[R])], rows: &[Row]) -> (Fleet, Vec<FleetPair>) {
    let spans: Vec<(&str, Vec<Micros>)> = hosts
        .iter()
        .map(|(name, rounds)| {
            let spans = rounds.iter().filter_map(|r| r.span().wall_micros()).map(|(start, end)| Micros { start, end });
            (*name, spans.collect())
        })
        .collect();
    let common = common_window(&spans);
    let fleet_rows = rows
        .iter()
        .map(|row| {
            let per_host: Vec<HostRate> = hosts
                .iter()
                .map(|(name, rounds)| {
                    let inside = match &common {
                        Ok(common) => in_window(rounds, row.transport, row.part, common.window),
                        Err(_) => InWindow::default(),
                    };
                    HostRate {
                        host: name.to_string(),
                        amount: inside.amount,
                        seconds: inside.seconds,
                        rate: inside.rate(),
                    }
                })
                .collect();
            let rates: Option<Vec<f64>> = per_host.iter().map(|h| h.rate).collect();
            FleetRow {
                transport: row.transport,
                operation: row.operation.into(),
                rate: rates.map(|r| r.iter().sum()),
                hosts: per_host,
            }
        })
        .collect();
    let (window, apart) = match common {
        Ok(c) => {
            let at = |micros: i64| {
                let time = std::time::UNIX_EPOCH + std::time::Duration::from_micros(micros.max(0) as u64);
                units::rfc3339_micros(time)
            };
            let window = Window {
                started_at: at(c.window.start),
                ended_at: at(c.window.end),
                seconds: c.window.seconds(),
                trimmed_start_s: c.trimmed_start_s,
                trimmed_end_s: c.trimmed_end_s,
                last_to_start: c.last_to_start,
                first_to_end: c.first_to_end,
            };
            (Some(window), None)
        }
        Err(apart) if apart.began.is_empty() => (None, Some("no host has round times to line up".to_string())),
        Err(apart) => (
            None,
            Some(format!(
                "the runs did not overlap: {} began {:.3} s after {} had ended, so no fleet throughput (the hosts never ran at once)",
                apart.began, apart.by_s, apart.ended
            )),
        ),
    };
    let fleet = Fleet {
        hosts: hosts.iter().map(|(name, _)| name.to_string()).collect(),
        window,
        apart,
        rows: fleet_rows,
        caveats: Vec::new(),
    };
    (fleet, pairs(hosts))
}

/// Every (transport, part, index) any host ran, with the fleet's rate in it.
fn pairs<R: FleetRound>(hosts: &[(&str, &[R])]) -> Vec<FleetPair> {
    type Key = (u8, u32, TransportKind);
    let by_host: Vec<std::collections::HashMap<Key, Option<f64>>> = hosts
        .iter()
        .map(|(_, rounds)| rounds.iter().map(|r| ((r.part(), r.index(), r.transport()), r.rate())).collect())
        .collect();
    let keys: std::collections::BTreeSet<Key> = by_host.iter().flat_map(|rounds| rounds.keys().copied()).collect();
    keys.into_iter()
        .map(|key @ (part, index, transport)| {
            let rates: Option<Vec<f64>> = by_host.iter().map(|rounds| rounds.get(&key).copied().flatten()).collect();
            FleetPair { transport, part, index, rate: rates.map(|r| r.iter().sum()) }
        })
        .collect()
}

/// Completed when every host completed; otherwise how the worst host ended.
pub fn fleet_outcome(outcomes: impl Iterator<Item = RunOutcome>) -> RunOutcome {
    let severity = |o: &RunOutcome| match o {
        RunOutcome::Completed => 0,
        RunOutcome::CompletedWithErrors => 1,
        RunOutcome::Cancelled => 2,
        RunOutcome::TimedOut => 3,
        RunOutcome::FailedFast => 4,
        RunOutcome::SetupFailed => 5,
    };
    outcomes.max_by_key(severity).unwrap_or(RunOutcome::Completed)
}

/// `fleet-` and a digest of the hosts' run IDs: the same hosts, the same ID.
pub fn fleet_run_id<'a>(run_ids: impl Iterator<Item = &'a str>) -> String {
    // FNV-1a: stable across versions and platforms, unlike std's hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in run_ids.flat_map(|id| id.bytes().chain([0])) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("fleet-{hash:016x}")
}
