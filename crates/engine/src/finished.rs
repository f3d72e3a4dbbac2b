//! What the front ends ask of a finished run, whatever its target: the
//! table, the sentences, the rates a history compares, what was left
//! behind, and the checks a fleet merge makes. A target's report implements
//! `FinishedRun`; the CLI, the app, `merge` and `compare` read reports only
//! through it, so that none of them names a target.

use crate::fleet::Fleet;
use crate::plan::TransportKind;
use crate::report::RunOutcome;
use crate::threshold::{Figure, Metric};
use units::RateUnit;

/// A report's table: its headers, its rows with each row's transport, and
/// its columns in the order a reader needs them when space is short.
pub struct Table {
    pub headers: Vec<&'static str>,
    pub rows: Vec<Vec<String>>,
    pub kinds: Vec<TransportKind>,
    pub priority: &'static [usize],
}

/// What a run did with what it created: how many it deleted, what it left
/// behind (each named), and how many it kept on purpose.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Leftovers {
    pub deleted: usize,
    pub left: Vec<String>,
    pub kept: usize,
}

/// A row of a report as a history compares it: its transport, its name
/// (which always says the operation: `grpc upload`, `http-json put`) and
/// its rate.
pub type RowRate = (TransportKind, String, Option<f64>);

/// gRPC's rate over HTTP/JSON's for one operation (`grpc/http-json
/// uploads`), with the 95% interval of the ratio from the paired rounds.
#[derive(Clone, Debug, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct RatioFigure {
    pub name: String,
    pub ratio: Option<f64>,
    pub interval: Option<(f64, f64)>,
    /// The interval is narrow enough to quote (the verdict's sentence
    /// withholds the ends of one too wide to read, and so does a table).
    pub readable: bool,
}

/// What a row's work cost the client: its CPU per unit of work, as its
/// table says it (`0.31 s/GiB`, `42 µs/op`), and the connections it opened.
#[derive(Clone, Debug, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct RowCost {
    pub transport: TransportKind,
    pub name: String,
    pub cpu: Option<String>,
    /// The same CPU as numbers: seconds per GiB moved (work of bytes) and
    /// microseconds per item (an object, a call), where measured.
    pub cpu_s_per_gib: Option<f64>,
    pub cpu_us_per_item: Option<f64>,
    pub connections: u64,
}

/// One complete round's rate, in its report's unit, and when it began
/// (seconds since the timed rounds began): a point of the throughput picture.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundRate {
    /// The row it belongs to, as the table names it (`grpc upload`).
    pub row: String,
    pub at_s: f64,
    pub rate: f64,
}

/// What every report does alike, for any report that is `Clone`,
/// `PartialEq` and `Serialize`: held boxed by the front ends.
pub trait ReportObject: Send + Sync + 'static {
    /// The same report, boxed.
    fn boxed(&self) -> Box<dyn FinishedRun>;
    /// The report as its target's own type (a merge reads its own kind).
    fn as_any(&self) -> &dyn std::any::Any;
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
    /// The report as its JSON value (what `to_json` writes).
    fn to_value(&self) -> Result<serde_json::Value, serde_json::Error>;
    /// The same report, field for field.
    fn same_as(&self, other: &dyn FinishedRun) -> bool;
}

impl<T: FinishedRun + Clone + PartialEq + serde::Serialize> ReportObject for T {
    fn boxed(&self) -> Box<dyn FinishedRun> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }

    fn to_value(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::to_value(self)
    }

    fn same_as(&self, other: &dyn FinishedRun) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
}

pub trait FinishedRun: ReportObject + std::fmt::Debug {
    /// The target, as the form's Target field names it: `gcs`, `etcd`.
    fn target(&self) -> &'static str;
    /// The report's kind in a sentence: `a GCS`, `an etcd`.
    fn kind_said(&self) -> &'static str;
    /// What the run did, for a merged report's heading: `etcd put`.
    fn work_said(&self) -> String;
    /// The options that tell runs apart: `put x3 10 clients x 8000, 256 B
    /// values`, where x3 is the rounds each transport ran (a `--duration`
    /// run's too).
    fn key_options(&self) -> String;

    fn run_id(&self) -> &str;
    fn started_at(&self) -> &str;
    fn tool_version(&self) -> &str;
    fn outcome(&self) -> RunOutcome;
    /// Completed with every item done and nothing left behind (exit 0).
    fn succeeded(&self) -> bool;
    /// (host, run ID) of each host the report holds: its own when single.
    fn host_ids(&self) -> Vec<(String, String)>;
    /// A merged report's number of hosts; 0 for a single run.
    fn merged_hosts(&self) -> usize;
    fn fleet_mut(&mut self) -> Option<&mut Fleet>;
    /// Names its host `label` (`--host-label`).
    fn label_host(&mut self, label: String);
    /// One report of every host that `reports` hold (this one first; the
    /// caller checked they are alike: reports of another kind are skipped).
    fn merged_with(&self, reports: &[&dyn FinishedRun]) -> Box<dyn FinishedRun>;

    /// The verdict in one line.
    fn summary_line(&self) -> String;
    /// The verdict, a line per operation (a GCS w1r3 run has two).
    fn verdict_lines(&self) -> Vec<String> {
        vec![self.summary_line()]
    }
    fn footer_lines(&self) -> Vec<String>;
    fn table(&self) -> Table;
    fn to_json(&self) -> String;
    fn to_table(&self) -> String;
    fn to_csv(&self) -> String;
    /// The figures `--fail-if` checks (see `threshold`).
    fn figures(&self, metric: Metric, transport: Option<TransportKind>) -> Vec<Figure>;

    /// Where it ran, briefly: `emulator`, `gs://b`, `etcd 127.0.0.1:2379`.
    fn short_target(&self) -> String;
    /// Where it ran, as a key: two runs with the same key went to the same
    /// place (a comparison of options, not of servers).
    fn place(&self) -> String;
    /// It ran against a server started for it alone (a fleet of such runs
    /// adds up separate servers).
    fn ran_on_own_server(&self) -> bool {
        false
    }

    /// Each row's transport, name and overall rate in its report's unit.
    fn row_rates(&self) -> Vec<RowRate>;
    /// The rates its verdict was judged on: the overall ones unless the
    /// target judged on something else (GCS's small objects: objects/s).
    fn judged_rates(&self) -> Vec<RowRate> {
        self.row_rates()
    }
    /// Its verdict was judged on items per second, not its unit.
    fn judged_on_items(&self) -> bool {
        false
    }
    fn unit(&self) -> RateUnit;
    /// gRPC over HTTP/JSON per operation, with each ratio's interval.
    fn ratios(&self) -> Vec<RatioFigure>;
    /// Each row's client CPU per unit and connections.
    fn costs(&self) -> Vec<RowCost>;
    /// Every complete round's rate and start, for the throughput picture.
    fn round_rates(&self) -> Vec<RoundRate>;
    /// Each row's latency histogram (µs; open loop: from intended start),
    /// by the row's name, for the latency picture.
    fn latency_histograms(&self) -> Vec<(String, hdrhistogram::Histogram<u64>)>;
    /// Open loop: each operation's latency at the offered rate.
    fn open_loop(&self) -> Vec<crate::open_loop::OpenLoopSummary>;
    fn leftovers(&self) -> Leftovers;

    /// The run's configuration as JSON (for `compare` to say what differs).
    fn config_json(&self) -> serde_json::Value;
    /// Every histogram decodes and fits the range its target records, so
    /// that a merge can add them.
    fn histograms_add_up(&self) -> Result<(), String>;
    /// Every round says when it ran (reports before fleets did not).
    fn has_round_times(&self) -> bool;

    /// A transport's overall rate: its first row's.
    fn rate(&self, kind: TransportKind) -> Option<f64> {
        self.row_rates().into_iter().find(|(k, _, _)| *k == kind).and_then(|(_, _, rate)| rate)
    }
}

/// The `FinishedRun` methods every report answers from the envelope's
/// fields, which every target's report names alike (`run_id`,
/// `started_at`, `tool`, `outcome`, `environment`, `hosts`, `fleet`): said
/// once here, expanded inside each `impl FinishedRun`.
#[macro_export]
macro_rules! report_envelope {
    () => {
        fn run_id(&self) -> &str {
            &self.run_id
        }

        fn started_at(&self) -> &str {
            &self.started_at
        }

        fn tool_version(&self) -> &str {
            &self.tool.version
        }

        fn outcome(&self) -> $crate::report::RunOutcome {
            self.outcome
        }

        fn host_ids(&self) -> Vec<(String, String)> {
            match self.hosts.is_empty() {
                true => vec![(self.environment.host.clone(), self.run_id.clone())],
                false => self.hosts.iter().map(|h| (h.host.clone(), h.run_id.clone())).collect(),
            }
        }

        fn merged_hosts(&self) -> usize {
            self.hosts.len()
        }

        fn fleet_mut(&mut self) -> Option<&mut $crate::fleet::Fleet> {
            self.fleet.as_mut()
        }
    };
}

/// Each histogram text decodes and, with the rounds' own histograms, none
/// holds a value above `highest` (the top of the target's records).
pub fn histograms_fit<'a>(
    texts: impl Iterator<Item = &'a str>,
    rounds: impl Iterator<Item = &'a hdrhistogram::Histogram<u64>>,
    highest: u64,
) -> Result<(), String> {
    let decoded: Vec<hdrhistogram::Histogram<u64>> = texts
        .map(crate::histogram::decode)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("a latency_histogram that is {e}"))?;
    let beyond = |h: &hdrhistogram::Histogram<u64>| !h.is_empty() && h.max() > highest;
    let worst = decoded
        .iter()
        .find(|h| beyond(h))
        .map(|h| h.max())
        .or_else(|| rounds.into_iter().find(|h| beyond(h)).map(|h| h.max()));
    match worst {
        Some(max) => Err(format!("a latency of {max} µs, beyond the {highest} µs histograms hold")),
        None => Ok(()),
    }
}
