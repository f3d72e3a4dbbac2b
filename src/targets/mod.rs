//! The registry: the one place in the front ends that names every target.
//! The CLI, the app, `merge` and `compare` read a finished run through
//! `engine::finished::FinishedRun`, which `Finished` derefs to; only
//! reading a report back, merging one target's hosts and starting a run
//! need to know which target it is, and that is said here.

mod commands;
pub mod config;
pub mod doctor;
mod fields;
mod form;
pub mod gcs;
mod gcs_flags;
mod grpc_form;
mod run;
mod welcome;
pub use crate::config::Environment;
pub use commands::{Action, Doctor, DoctorArgs, EtcdArgs, EtcdCommand, EtcdRunCommand, RunArgs, TargetCommand};
pub use fields::{ESSENTIALS, ETCD_ESSENTIALS, ETCD_FIELDS, FIELDS, GRPC_ESSENTIALS, GRPC_FIELDS};
pub use form::{EtcdOptions, FormOptions};
/// The app's flags, which prefill its form: `run`'s (the first target's).
pub use gcs_flags::BenchArgs as AppFlags;
pub use run::{Planned, Remains, Start};
pub use welcome::{Welcome, welcome};

use crate::tui::fields::FieldSpec;

use crate::etcd::report::EtcdReport;
use crate::gcs::report::RunReport;
use engine::finished::FinishedRun;
use grpc_service::report::GrpcReport;

/// The form's first field: what to benchmark.
pub const TARGETS: [&str; 3] = ["gcs", "etcd", "grpc"];

/// The Target field's help.
pub const TARGET_HELP: &str = "What to benchmark, HTTP/JSON against gRPC: gcs (uploads), etcd (puts, ranges, watches) or grpc (any service's .proto)";

/// The form's fields for `target` (one of `TARGETS`).
pub fn fields_of(target: &str) -> &'static [FieldSpec] {
    match target {
        "etcd" => &ETCD_FIELDS,
        "grpc" => &GRPC_FIELDS,
        _ => &FIELDS,
    }
}

/// How many of `target`'s fields show before the advanced group.
pub fn essentials_of(target: &str) -> usize {
    match target {
        "etcd" => ETCD_ESSENTIALS,
        "grpc" => GRPC_ESSENTIALS,
        _ => ESSENTIALS,
    }
}

/// The subcommand whose flags `target`'s fields are: a field's help is its flag's.
pub fn command_of(target: &str) -> &'static [&'static str] {
    match target {
        "etcd" => &["etcd", "run"],
        "grpc" => &["grpc", "run"],
        _ => &["run"],
    }
}

/// The fields forgotten with `key` when a remembered value no longer
/// validates: a user goes with its password, which is never remembered.
pub fn forgotten_with(key: &str) -> &'static [&'static str] {
    match key {
        "user" | "password" => &["user", "password"],
        _ => &[],
    }
}

/// A finished run of any target. Read back untagged: a GCS report's
/// `target` is an object, an etcd report's the string "etcd", so each text
/// has one reading.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Finished {
    Gcs(Box<RunReport>),
    Etcd(Box<EtcdReport>),
    Grpc(Box<GrpcReport>),
}

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

impl From<GrpcReport> for Finished {
    fn from(report: GrpcReport) -> Self {
        Finished::Grpc(Box::new(report))
    }
}

impl std::ops::Deref for Finished {
    type Target = dyn FinishedRun;

    fn deref(&self) -> &Self::Target {
        match self {
            Finished::Gcs(r) => r.as_ref(),
            Finished::Etcd(r) => r.as_ref(),
            Finished::Grpc(r) => r.as_ref(),
        }
    }
}

impl std::ops::DerefMut for Finished {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Finished::Gcs(r) => r.as_mut(),
            Finished::Etcd(r) => r.as_mut(),
            Finished::Grpc(r) => r.as_mut(),
        }
    }
}

impl Finished {
    /// The report with `label` as its host's name (`--host-label`).
    pub fn host_labelled(self, label: String) -> Finished {
        match self {
            Finished::Gcs(r) => Finished::from((*r).host_label(label)),
            Finished::Etcd(r) => Finished::from((*r).host_label(label)),
            Finished::Grpc(r) => Finished::from((*r).host_label(label)),
        }
    }

    /// A report read back from its JSON, by the target it names.
    pub fn from_json(value: serde_json::Value) -> Result<Finished, serde_json::Error> {
        Ok(match value.get("target").and_then(|t| t.as_str()) {
            Some("etcd") => Finished::Etcd(Box::new(serde_json::from_value(value)?)),
            Some("grpc") => Finished::Grpc(Box::new(serde_json::from_value(value)?)),
            _ => Finished::Gcs(Box::new(serde_json::from_value(value)?)),
        })
    }

    /// One report of every host that `reports` hold, all of the first's
    /// target (the caller checked they are alike).
    pub fn merge(reports: &[&Finished]) -> Finished {
        let gcs = |f: &&Finished| match f {
            Finished::Gcs(r) => Some(r.host_runs()),
            _ => None,
        };
        let etcd = |f: &&Finished| match f {
            Finished::Etcd(r) => Some(r.host_runs()),
            _ => None,
        };
        let grpc = |f: &&Finished| match f {
            Finished::Grpc(r) => Some(r.host_runs()),
            _ => None,
        };
        match reports[0] {
            Finished::Gcs(first) => {
                let runs = reports.iter().filter_map(gcs).flatten().collect();
                Finished::Gcs(Box::new(crate::gcs::report::merge::merge(runs, first)))
            }
            Finished::Etcd(first) => {
                let runs = reports.iter().filter_map(etcd).flatten().collect();
                Finished::Etcd(Box::new(crate::etcd::merge::merge(runs, first)))
            }
            Finished::Grpc(first) => {
                let runs = reports.iter().filter_map(grpc).flatten().collect();
                Finished::Grpc(Box::new(grpc_service::merge::merge(runs, first)))
            }
        }
    }
}
