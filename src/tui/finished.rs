//! A finished run of either target, as the app shows, keeps and compares it.

use crate::config::TransportKind;
use crate::engine::report::RunOutcome;
use crate::etcd::report::EtcdReport;
use crate::gcs::report::{RunReport, TABLE_HEADERS, table_lines};
use crate::units::RateUnit;

/// Read back untagged: a GCS report's `target` is an object, an etcd
/// report's the string "etcd", so each text has one reading.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Finished {
    Gcs(Box<RunReport>),
    Etcd(Box<EtcdReport>),
}

/// The GCS table's columns in the order a reader needs them when space is short.
const GCS_PRIORITY: [usize; 12] = [0, 10, 4, 7, 9, 1, 11, 5, 8, 3, 6, 2];
const ETCD_PRIORITY: [usize; 10] = [0, 3, 4, 6, 8, 2, 9, 5, 7, 1];

impl From<RunReport> for Finished {
    fn from(report: RunReport) -> Self {
        Finished::Gcs(Box::new(report))
    }
}

impl From<EtcdReport> for Finished {
    fn from(report: EtcdReport) -> Self {
        Finished::Etcd(Box::new(report))
    }
}

impl Finished {
    pub fn run_id(&self) -> &str {
        match self {
            Finished::Gcs(r) => &r.run_id,
            Finished::Etcd(r) => &r.run_id,
        }
    }

    pub fn started_at(&self) -> &str {
        match self {
            Finished::Gcs(r) => &r.started_at,
            Finished::Etcd(r) => &r.started_at,
        }
    }

    /// Where it ran, briefly, and how many hosts a merged one had.
    pub fn place(&self) -> String {
        match self.fleet_size() {
            Some(n) => format!("fleet of {n} · {}", self.short_target()),
            None => self.short_target(),
        }
    }

    /// A merged report's number of hosts.
    pub fn fleet_size(&self) -> Option<usize> {
        let hosts = match self {
            Finished::Gcs(r) => r.hosts.len(),
            Finished::Etcd(r) => r.hosts.len(),
        };
        (hosts > 0).then_some(hosts)
    }

    pub fn outcome(&self) -> RunOutcome {
        match self {
            Finished::Gcs(r) => r.outcome,
            Finished::Etcd(r) => r.outcome,
        }
    }

    pub fn summary_line(&self) -> String {
        match self {
            Finished::Gcs(r) => r.summary_line(),
            Finished::Etcd(r) => r.summary_line(),
        }
    }

    /// The verdict, a line per operation (a GCS w1r3 run has two).
    pub fn verdict_lines(&self) -> Vec<String> {
        match self {
            Finished::Gcs(r) => r.verdict_lines(),
            Finished::Etcd(r) => vec![r.summary_line()],
        }
    }

    pub fn footer_lines(&self) -> Vec<String> {
        match self {
            Finished::Gcs(r) => r.footer_lines(),
            Finished::Etcd(r) => r.footer_lines(),
        }
    }

    /// Headers, cells, and which transport each row is.
    pub fn table(&self) -> (Vec<&'static str>, Vec<Vec<String>>, Vec<TransportKind>) {
        match self {
            Finished::Gcs(r) => {
                let (kinds, rows) = table_lines(r).into_iter().unzip();
                (TABLE_HEADERS.to_vec(), rows, kinds)
            }
            Finished::Etcd(r) => {
                let (kinds, rows) = r.table_lines().into_iter().unzip();
                (r.table_headers().to_vec(), rows, kinds)
            }
        }
    }

    /// Column indices, most needed first.
    pub fn column_priority(&self) -> &'static [usize] {
        match self {
            Finished::Gcs(_) => &GCS_PRIORITY,
            Finished::Etcd(_) => &ETCD_PRIORITY,
        }
    }

    pub fn to_json(&self) -> String {
        match self {
            Finished::Gcs(r) => r.to_json(),
            Finished::Etcd(r) => r.to_json(),
        }
    }

    /// As `--format` asks.
    /// What `threshold` asks of this report (see `engine::threshold`).
    pub fn crossed(&self, threshold: &crate::engine::threshold::Threshold) -> Vec<String> {
        let figures = match self {
            Finished::Gcs(r) => r.figures(threshold.metric, threshold.transport),
            Finished::Etcd(r) => r.figures(threshold.metric, threshold.transport),
        };
        threshold.crossed(&figures)
    }

    pub fn render(&self, format: crate::cli::Format) -> String {
        match format {
            crate::cli::Format::Table => self.to_table(),
            crate::cli::Format::Json => self.to_json() + "\n",
            crate::cli::Format::Csv => self.to_csv(),
        }
    }

    pub fn to_table(&self) -> String {
        match self {
            Finished::Gcs(r) => r.to_table(),
            Finished::Etcd(r) => r.to_table(),
        }
    }

    pub fn to_csv(&self) -> String {
        match self {
            Finished::Gcs(r) => r.to_csv(),
            Finished::Etcd(r) => r.to_csv(),
        }
    }

    /// Where it ran, briefly: `emulator`, `gs://b`, `etcd 127.0.0.1:2379`.
    pub fn short_target(&self) -> String {
        match self {
            Finished::Gcs(r) => r.target.short(),
            Finished::Etcd(r) => {
                let hosts: Vec<&str> = r.config.endpoints.iter().map(|e| e.split("://").last().unwrap_or(e)).collect();
                format!("etcd {}", hosts.join(","))
            }
        }
    }

    /// Both went to the same place (a comparison of options, not of targets).
    pub fn same_place(&self, other: &Finished) -> bool {
        match (self, other) {
            (Finished::Gcs(a), Finished::Gcs(b)) => a.target.same_place(&b.target),
            (Finished::Etcd(a), Finished::Etcd(b)) => a.config.endpoints == b.config.endpoints,
            _ => false,
        }
    }

    /// Each row's transport, name (`http-json`, or `grpc download` in a
    /// w1r3 run) and overall rate (MiB/s, or ops/s for etcd).
    /// Each row's transport, name and rate. The name always says the
    /// operation (`http-json upload`, `grpc put`), so that rows compare by
    /// what they did: a w1r3 run's uploads with an upload run's, never an
    /// upload with a download or a put with a range.
    pub fn row_rates(&self) -> Vec<(TransportKind, String, Option<f64>)> {
        match self {
            Finished::Gcs(r) => r
                .transports
                .iter()
                .map(|t| (t.transport, format!("{} {}", t.transport.name(), t.operation.name()), t.throughput_mib_s))
                .collect(),
            Finished::Etcd(r) => {
                let operation = crate::etcd::merge::operation(r.config.mode);
                r.transports
                    .iter()
                    .map(|t| (t.transport, format!("{} {operation}", t.transport.name()), t.ops_per_s))
                    .collect()
            }
        }
    }

    /// A transport's overall rate (MiB/s, or ops/s for etcd): its first row's.
    pub fn rate(&self, kind: TransportKind) -> Option<f64> {
        match self {
            Finished::Gcs(r) => r.transports.iter().find(|t| t.transport == kind).and_then(|t| t.throughput_mib_s),
            Finished::Etcd(r) => r.transports.iter().find(|t| t.transport == kind).and_then(|t| t.ops_per_s),
        }
    }

    pub fn unit(&self) -> RateUnit {
        match self {
            Finished::Gcs(r) => r.config.rate_unit,
            Finished::Etcd(r) if r.config.mode == crate::etcd::options::Mode::Watch => RateUnit::Events,
            Finished::Etcd(_) => RateUnit::Ops,
        }
    }

    /// (deleted, left behind, kept on purpose): objects, or keys for etcd
    /// (whose leftovers are named by the prefix that holds them).
    pub fn cleanup(&self) -> (usize, Vec<String>, usize) {
        match self {
            Finished::Gcs(r) => (r.cleanup.deleted, r.cleanup.left.clone(), r.cleanup.kept.len()),
            Finished::Etcd(r) => {
                let c = &r.cleanup;
                let left = if c.error.is_some() { vec![format!("etcd keys under {}", c.prefix)] } else { Vec::new() };
                (c.deleted as usize, left, usize::from(c.kept))
            }
        }
    }
}
