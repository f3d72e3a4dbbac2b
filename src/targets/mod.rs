//! The registry: the one place in the front ends that names every target.
//! The CLI, the app, `merge` and `compare` read a finished run through
//! `engine::finished::FinishedRun`, which `Finished` derefs to; only
//! reading a report back, merging one target's hosts and starting a run
//! need to know which target it is, and that is said here.

mod commands;
pub mod config;
mod fields;
mod form;
pub mod gcs;
mod run;
mod welcome;
pub use crate::config::Environment;
/// The app's flags, which prefill its form: `run`'s (the first target's).
pub use crate::gcs::flags::BenchArgs as AppFlags;
pub use commands::{Action, Doctor, DoctorArgs, EtcdArgs, EtcdCommand, EtcdRunCommand, RunArgs, TargetCommand};
pub use etcd::form::EtcdOptions;
pub use fields::{ESSENTIALS, ETCD_ESSENTIALS, ETCD_FIELDS, FIELDS, GRPC_ESSENTIALS, GRPC_FIELDS};
pub use form::FormOptions;
pub use run::{Planned, Remains, Start};
pub use welcome::Welcome;
use welcome::{etcd_welcome, gcs_welcome, grpc_welcome};

use crate::tui::fields::FieldSpec;

use crate::etcd::report::EtcdReport;
use crate::gcs::report::RunReport;
use engine::finished::FinishedRun;
use grpc_service::report::GrpcReport;

/// A target as the front ends see it before it runs: its name, its form
/// and the command whose flags its fields are.
pub struct Registered {
    /// As the Target field, `--open` and a report's `target` spell it.
    pub name: &'static str,
    /// Its form's fields, in the order the form shows them.
    pub fields: &'static [FieldSpec],
    /// How many of `fields` show before the advanced group.
    pub essentials: usize,
    /// Its subcommand: a field's help is its flag's.
    pub command: &'static [&'static str],
    /// What the live pane says before the first run of its form.
    pub welcome: fn(&FormOptions) -> Welcome,
}

/// Every target, in the order the form offers them: a line each.
pub static REGISTRY: [Registered; 3] = [
    Registered { name: "gcs", fields: &FIELDS, essentials: ESSENTIALS, command: &["run"], welcome: gcs_welcome },
    Registered {
        name: "etcd",
        fields: &ETCD_FIELDS,
        essentials: ETCD_ESSENTIALS,
        command: &["etcd", "run"],
        welcome: etcd_welcome,
    },
    Registered {
        name: "grpc",
        fields: &GRPC_FIELDS,
        essentials: GRPC_ESSENTIALS,
        command: &["grpc", "run"],
        welcome: grpc_welcome,
    },
];

/// The targets' names, as the Target field offers them.
pub static TARGETS: [&str; REGISTRY.len()] = {
    let mut names = [""; REGISTRY.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = REGISTRY[i].name;
        i += 1;
    }
    names
};

/// The Target field's help.
pub const TARGET_HELP: &str = "What to benchmark, HTTP/JSON against gRPC: gcs (uploads), etcd (puts, ranges, watches) or grpc (any service's .proto)";

/// The target named `name`, or the sentence that says it is not one.
pub fn registered(name: &str) -> Result<&'static Registered, String> {
    REGISTRY
        .iter()
        .find(|r| r.name == name)
        .ok_or_else(|| format!("'{name}' is not a target this tool knows: one of {}", TARGETS.join(", ")))
}

/// The registered target a form holds. A form's target is checked where a
/// form is read (`FormOptions` refuses an unknown one), so every form names
/// one of `REGISTRY`.
pub fn named(target: &str) -> &'static Registered {
    registered(target).unwrap_or_else(|_| unreachable!("a form's target is checked as it is read: {target}"))
}

/// The fields forgotten with `key` when a remembered value no longer
/// validates: a user goes with its password, which is never remembered.
pub fn forgotten_with(key: &str) -> &'static [&'static str] {
    match key {
        "user" | "password" => &["user", "password"],
        _ => &[],
    }
}

/// A finished run of any target, written as its target's report and read
/// back by the target it names (`Finished::from_json`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
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

impl<'de> serde::Deserialize<'de> for Finished {
    fn deserialize<D: serde::Deserializer<'de>>(reading: D) -> Result<Self, D::Error> {
        let value = <serde_json::Value as serde::Deserialize>::deserialize(reading)?;
        Finished::from_json(value).map_err(serde::de::Error::custom)
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

    /// A report read back from its JSON, by the target it names: a GCS
    /// report's `target` is an object (where it went), the others' their
    /// name; any other is said, never read as some other target's report.
    pub fn from_json(value: serde_json::Value) -> Result<Finished, String> {
        let read = |e: serde_json::Error| e.to_string();
        match value.get("target") {
            Some(serde_json::Value::Object(_)) => Ok(Finished::Gcs(serde_json::from_value(value).map_err(read)?)),
            Some(serde_json::Value::String(name)) => match registered(name)?.name {
                "etcd" => Ok(Finished::Etcd(serde_json::from_value(value).map_err(read)?)),
                "grpc" => Ok(Finished::Grpc(serde_json::from_value(value).map_err(read)?)),
                other => Err(format!("a report of target '{other}' names it by a string, which no such report does")),
            },
            _ => Err("it names no target: not a report this tool wrote".into()),
        }
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
                Finished::Etcd(Box::new(EtcdReport::merge(runs, first)))
            }
            Finished::Grpc(first) => {
                let runs = reports.iter().filter_map(grpc).flatten().collect();
                Finished::Grpc(Box::new(GrpcReport::merge(runs, first)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_read_by_the_target_it_names_and_no_other() {
        let said = |text: &str| serde_json::from_str::<Finished>(text).unwrap_err().to_string();
        assert!(
            said(r#"{"target":"redis","run_id":"r"}"#)
                .starts_with("'redis' is not a target this tool knows: one of gcs, etcd, grpc")
        );
        assert!(said(r#"{"run_id":"r"}"#).starts_with("it names no target"));
        // An etcd report that lacks its fields is an etcd report's error, not a GCS reading.
        assert!(said(r#"{"target":"etcd"}"#).starts_with("missing field"), "{}", said(r#"{"target":"etcd"}"#));
        // GCS's report names where it went (an object), never its name.
        assert!(said(r#"{"target":"gcs"}"#).starts_with("a report of target 'gcs' names it by a string"));
        // A report of each call target is read as that target's.
        let etcd = include_str!("../../tests/data/etcd-report-before-one-verdict.json");
        let etcd: serde_json::Value = serde_json::from_str(etcd).unwrap();
        assert!(matches!(Finished::from_json(etcd.clone()), Ok(Finished::Etcd(_))));
        let mut grpc = etcd;
        grpc["target"] = "grpc".into();
        // etcd's settings are not a grpc run's: read as grpc, the report is refused.
        assert!(Finished::from_json(grpc).unwrap_err().contains("missing field"));
    }

    #[test]
    fn every_target_is_registered_once_with_its_own_fields() {
        assert_eq!(TARGETS, ["gcs", "etcd", "grpc"]);
        for (i, target) in REGISTRY.iter().enumerate() {
            assert_eq!(named(target.name).name, target.name);
            assert!(target.essentials < target.fields.len(), "{}", target.name);
            assert_eq!(target.fields[0].key, "target", "the Target field comes first in {}", target.name);
            assert!(!REGISTRY[..i].iter().any(|r| r.name == target.name), "{} twice", target.name);
        }
        assert!(registered("gsc").is_err());
        // Each entry's own fields and command, not another's.
        let has = |target: &str, key: &str| named(target).fields.iter().any(|f| f.key == key);
        assert!(has("gcs", "bucket") && has("etcd", "endpoints") && has("grpc", "method"));
        assert!(!has("gcs", "endpoints") && !has("etcd", "method") && !has("grpc", "bucket"));
        let commands: Vec<&[&str]> = REGISTRY.iter().map(|r| r.command).collect();
        assert_eq!(commands, [&["run"][..], &["etcd", "run"], &["grpc", "run"]]);
    }
}
