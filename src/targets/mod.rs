//! The registry: the one place in the front ends that names every target,
//! a line each. Everything else asks a target through `target_api::Target`
//! (its fields, flags, welcome, plan and reports), a run through
//! `engine::planned::PlannedRun` and a report through
//! `engine::finished::FinishedRun`.

mod commands;
pub mod config;
mod fields;
mod finished;
mod form;
mod run;
pub use commands::{Action, AppFlags, TargetCommand};
pub use engine::planned::{Begin, Remains, Start};
pub use fields::{Field, Kind, fields_of, labels};
pub use finished::Finished;
pub use form::FormOptions;
pub use run::{Planned, plan};
pub use target_api::{Environment, Target, Welcome};

/// GCS, with the emulator built into this binary for the runs that go to it.
static GCS: gcs::front::Gcs = gcs::front::Gcs { built_in: &crate::built_in::BUILT_IN };

/// Every target, in the order the form offers them: a line each.
pub static REGISTRY: [&dyn Target; 3] = [&GCS, &etcd::front::Etcd, &grpc_service::front::Grpc];

/// The targets' names, as the Target field offers them.
pub static TARGETS: std::sync::LazyLock<Vec<&'static str>> =
    std::sync::LazyLock::new(|| REGISTRY.iter().map(|t| t.name()).collect());

/// The Target field's help.
pub fn target_help() -> String {
    let said: Vec<&str> = REGISTRY.iter().map(|t| t.said()).collect();
    let (last, first) = said.split_last().expect("a target is registered");
    format!("What to benchmark, HTTP/JSON against gRPC: {} or {last}", first.join(", "))
}

/// The target named `name`, or the sentence that says it is not one.
pub fn registered(name: &str) -> Result<&'static dyn Target, String> {
    REGISTRY
        .iter()
        .copied()
        .find(|t| t.name() == name)
        .ok_or_else(|| format!("'{name}' is not a target this tool knows: one of {}", TARGETS.join(", ")))
}

/// The registered target a form holds. A form's target is checked where a
/// form is read (`FormOptions` refuses an unknown one), so every form names
/// one of `REGISTRY`.
pub fn named(target: &str) -> &'static dyn Target {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_is_registered_once_with_its_own_fields() {
        assert_eq!(*TARGETS, ["gcs", "etcd", "grpc"]);
        for (i, target) in REGISTRY.iter().enumerate() {
            let fields = fields_of(target.name());
            assert_eq!(named(target.name()).name(), target.name());
            assert!(target.essentials() < fields.len(), "{}", target.name());
            assert_eq!(fields[0].key, "target", "the Target field comes first in {}", target.name());
            assert!(!REGISTRY[..i].iter().any(|r| r.name() == target.name()), "{} twice", target.name());
            let mut keys: Vec<&str> = fields.iter().map(|f| f.key).collect();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(keys.len(), fields.len(), "a key twice in {}", target.name());
        }
        assert!(registered("gsc").is_err());
        // Each entry's own fields and command, not another's.
        let has = |target: &str, key: &str| fields_of(target).iter().any(|f| f.key == key);
        assert!(has("gcs", "bucket") && has("etcd", "endpoints") && has("grpc", "method"));
        assert!(!has("gcs", "endpoints") && !has("etcd", "method") && !has("grpc", "bucket"));
        let commands: Vec<Vec<&str>> =
            REGISTRY.iter().map(|r| r.command().iter().map(|(name, _)| *name).collect()).collect();
        assert_eq!(commands, [vec!["run"], vec!["etcd", "run"], vec!["grpc", "run"]]);
    }
}
