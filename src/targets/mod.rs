//! The registry: the one place in the front ends that names every target.
//! The CLI, the app, `merge` and `compare` read a finished run through
//! `engine::finished::FinishedRun`, which `Finished` derefs to; only
//! reading a report back, merging one target's hosts and starting a run
//! need to know which target it is, and that is said here.

mod commands;
pub mod config;
mod fields;
mod form;
mod run;
mod welcome;
pub use crate::config::Environment;
/// The app's flags, which prefill its form: `run`'s (the first target's).
pub use crate::gcs::flags::BenchArgs as AppFlags;
pub use commands::{Action, Doctor, DoctorArgs, EtcdArgs, EtcdCommand, EtcdRunCommand, RunArgs, TargetCommand};
pub use engine::planned::{Remains, Start};
pub use etcd::form::EtcdOptions;
pub use fields::{ESSENTIALS, ETCD_ESSENTIALS, ETCD_FIELDS, FIELDS, GRPC_ESSENTIALS, GRPC_FIELDS};
pub use form::FormOptions;
pub use run::{Planned, plan};
pub use welcome::Welcome;
use welcome::{etcd_welcome, gcs_welcome, grpc_welcome};

use crate::tui::fields::FieldSpec;

use crate::config::ConfigError;
use crate::etcd::report::EtcdReport;
use crate::gcs::planned::GcsPlan;
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
    /// Its form's run, validated as the target validates its options.
    pub plan: fn(&FormOptions, &Environment) -> Result<Planned, ConfigError>,
    /// How its reports say where they ran.
    pub report_names: ReportNames,
    /// Its report read back from JSON.
    pub read_report: fn(serde_json::Value) -> Result<Box<dyn FinishedRun>, String>,
}

/// How a target's report says where it ran: by the target's name, or (GCS,
/// as its reports always have) by an object saying the place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportNames {
    Target,
    Place,
}

/// A report of type `R`, read from its JSON.
fn read_as<R: FinishedRun + serde::de::DeserializeOwned>(
    value: serde_json::Value,
) -> Result<Box<dyn FinishedRun>, String> {
    Ok(Box::new(serde_json::from_value::<R>(value).map_err(|e| e.to_string())?))
}

/// Every target, in the order the form offers them: a line each.
pub static REGISTRY: [Registered; 3] = [
    Registered {
        name: "gcs",
        fields: &FIELDS,
        essentials: ESSENTIALS,
        command: &["run"],
        welcome: gcs_welcome,
        plan: |form, env| Ok(Box::new(GcsPlan::check(&form.gcs, env, &crate::built_in::BUILT_IN)?)),
        report_names: ReportNames::Place,
        read_report: read_as::<RunReport>,
    },
    Registered {
        name: "etcd",
        fields: &ETCD_FIELDS,
        essentials: ETCD_ESSENTIALS,
        command: &["etcd", "run"],
        welcome: etcd_welcome,
        plan: |form, _| Ok(Box::new(form.etcd_run_args().validate()?)),
        report_names: ReportNames::Target,
        read_report: read_as::<EtcdReport>,
    },
    Registered {
        name: "grpc",
        fields: &GRPC_FIELDS,
        essentials: GRPC_ESSENTIALS,
        command: &["grpc", "run"],
        welcome: grpc_welcome,
        plan: |form, _| Ok(Box::new(form.grpc_run_args().validate()?)),
        report_names: ReportNames::Target,
        read_report: read_as::<GrpcReport>,
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
#[derive(Debug)]
pub struct Finished(Box<dyn FinishedRun>);

impl<R: FinishedRun> From<R> for Finished {
    fn from(report: R) -> Self {
        Finished(Box::new(report))
    }
}

impl Finished {
    /// Any target's report, as a run returns it.
    pub fn new(report: Box<dyn FinishedRun>) -> Self {
        Finished(report)
    }
}

impl Clone for Finished {
    fn clone(&self) -> Self {
        Finished(self.0.boxed())
    }
}

impl PartialEq for Finished {
    fn eq(&self, other: &Finished) -> bool {
        self.0.same_as(other.0.as_ref())
    }
}

impl serde::Serialize for Finished {
    fn serialize<S: serde::Serializer>(&self, writing: S) -> Result<S::Ok, S::Error> {
        self.0.to_value().serialize(writing)
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
        self.0.as_ref()
    }
}

impl std::ops::DerefMut for Finished {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.0.as_mut()
    }
}

impl Finished {
    /// The report as its target's own type.
    pub fn downcast_ref<R: FinishedRun>(&self) -> Option<&R> {
        self.0.as_any().downcast_ref()
    }

    pub fn downcast_mut<R: FinishedRun>(&mut self) -> Option<&mut R> {
        self.0.as_any_mut().downcast_mut()
    }

    /// The report as its target's own type, or itself when it is another's.
    pub fn downcast<R: FinishedRun>(self) -> Result<R, Finished> {
        match self.0.as_any().is::<R>() {
            true => Ok(*self.0.into_any().downcast().expect("checked just above")),
            false => Err(self),
        }
    }

    /// A report read back from its JSON, by the target it names: a GCS
    /// report's `target` is an object (where it went), the others' their
    /// name; any other is said, never read as some other target's report.
    pub fn from_json(value: serde_json::Value) -> Result<Finished, String> {
        let target = match value.get("target") {
            Some(serde_json::Value::Object(_)) => REGISTRY.iter().find(|r| r.report_names == ReportNames::Place),
            Some(serde_json::Value::String(name)) => match registered(name)? {
                r if r.report_names == ReportNames::Target => Some(r),
                r => {
                    return Err(format!(
                        "a report of target '{}' names it by a string, which no such report does",
                        r.name
                    ));
                }
            },
            _ => None,
        };
        let target = target.ok_or("it names no target: not a report this tool wrote")?;
        (target.read_report)(value).map(Finished)
    }

    /// One report of every host that `reports` hold, all of the first's
    /// target (the caller checked they are alike).
    pub fn merge(reports: &[&Finished]) -> Finished {
        let all: Vec<&dyn FinishedRun> = reports.iter().map(|r| r.0.as_ref()).collect();
        Finished(reports[0].merged_with(&all))
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
        assert!(Finished::from_json(etcd.clone()).unwrap().downcast_ref::<EtcdReport>().is_some());
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
