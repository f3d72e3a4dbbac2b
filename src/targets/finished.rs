//! A finished run of any target, as the front ends hold it: a boxed
//! `FinishedRun`, read back by the registered target its report names.

use super::{REGISTRY, registered};
use engine::finished::FinishedRun;
use target_api::ReportNames;

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
        self.0.to_value().map_err(serde::ser::Error::custom)?.serialize(writing)
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
        engine::report::readable(&value)?;
        let target = match value.get("target") {
            Some(serde_json::Value::Object(_)) => {
                REGISTRY.iter().copied().find(|r| r.report_names() == ReportNames::Place)
            }
            Some(serde_json::Value::String(name)) => match registered(name)? {
                r if r.report_names() == ReportNames::Target => Some(r),
                r => {
                    let name = r.name();
                    return Err(format!("a report of target '{name}' names it by a string, which no such report does"));
                }
            },
            _ => None,
        };
        let target = target.ok_or("it names no target: not a report this tool wrote")?;
        target.read_report(value).map(Finished)
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
        assert!(Finished::from_json(etcd.clone()).unwrap().downcast_ref::<crate::etcd::report::EtcdReport>().is_some());
        let mut grpc = etcd;
        grpc["target"] = "grpc".into();
        // etcd's settings are not a grpc run's: read as grpc, the report is refused.
        assert!(Finished::from_json(grpc).unwrap_err().contains("missing field"));
    }
}
