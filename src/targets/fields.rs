//! Each target's form as the app shows it: its own fields, and the shared
//! ones its list names by key (which target, the schedule's, the sweep),
//! resolved once.

use super::{REGISTRY, TARGETS};
use target_api::form::FieldRef;
pub use target_api::form::{Field, Kind};
use target_api::schedule::SCHEDULE_FIELDS;

/// The fields of the form that are not a target's nor the schedule's.
fn form_field(key: &str) -> Option<Field> {
    match key {
        "target" => Some(Field { key: "target", label: "Target", kind: Kind::Choice(TARGETS.as_slice()) }),
        "sweep" => Some(Field { key: "sweep", label: "Sweep", kind: Kind::Text }),
        "sweep_budget" => Some(Field { key: "sweep_budget", label: "Sweep budget", kind: Kind::Text }),
        _ => None,
    }
}

/// A line of a target's form, its shared fields looked up.
fn resolved(field: FieldRef) -> Field {
    match field {
        FieldRef::Own(field) => field,
        FieldRef::Shared(key, choices) => {
            let schedule = || SCHEDULE_FIELDS.iter().find(|s| s.key == key);
            let shared = form_field(key)
                .or_else(|| schedule().map(|s| Field { key: s.key, label: s.label, kind: s.access.kind() }))
                .unwrap_or_else(|| unreachable!("a target names a shared field the form has not: {key}"));
            Field { kind: choices.map_or(shared.kind, Kind::Choice), ..shared }
        }
    }
}

static FIELDS: std::sync::LazyLock<Vec<Vec<Field>>> =
    std::sync::LazyLock::new(|| REGISTRY.iter().map(|t| t.fields().into_iter().map(resolved).collect()).collect());

/// The fields of the target named `target`, in the order its form shows them.
pub fn fields_of(target: &str) -> &'static [Field] {
    let index = REGISTRY.iter().position(|t| t.name() == target).unwrap_or(0);
    &FIELDS[index]
}

/// Every field's label by its key, `target`'s first (its labels differ
/// from another's for the same key: Prefix against Key prefix).
pub fn labels(target: &str) -> impl Iterator<Item = &'static Field> + Clone {
    let others = TARGETS.iter().filter(move |t| **t != target).flat_map(|t| fields_of(t));
    fields_of(target).iter().chain(others)
}

/// Whether `key` is one of the form's own fields or the schedule's.
pub(super) fn is_shared(key: &str) -> bool {
    form_field(key).is_some() || SCHEDULE_FIELDS.iter().any(|s| s.key == key)
}
