//! A target's form: its fields over its own options (text as typed), and
//! the fields every target shares (the schedule's, the target's choice,
//! the sweep), which a target's list names by key where it wants them.

use std::any::Any;

/// How a field reads and writes its option in a target's options `F`.
pub enum Access<F> {
    Text(fn(&mut F) -> &mut String),
    Toggle(fn(&mut F) -> &mut bool),
    Choice(fn(&mut F) -> &mut String, &'static [&'static str]),
}

impl<F> Clone for Access<F> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<F> Copy for Access<F> {}

/// A field over options `F`: the `ConfigError::field` it answers for, its
/// label and its access.
pub struct FieldSpec<F> {
    pub key: &'static str,
    pub label: &'static str,
    pub access: Access<F>,
}

/// A line of a target's form: a field of its own, or a shared one by key
/// (the schedule's, `target`, `sweep`), with the choices it offers when a
/// target narrows or widens them (GCS's transports).
pub enum Slot<F: 'static> {
    Own(FieldSpec<F>),
    Shared(&'static str),
    SharedChoice(&'static str, &'static [&'static str]),
    /// Shared fields, in this order (`schedule::RUN_LENGTH`).
    Section(&'static [&'static str]),
}

/// What a field is, whatever options hold it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Text,
    Toggle,
    Choice(&'static [&'static str]),
}

impl<F> Access<F> {
    pub fn kind(&self) -> Kind {
        match self {
            Access::Text(_) => Kind::Text,
            Access::Toggle(_) => Kind::Toggle,
            Access::Choice(_, choices) => Kind::Choice(choices),
        }
    }
}

/// A field as the form shows it: its key, label and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub key: &'static str,
    pub label: &'static str,
    pub kind: Kind,
}

/// A line of a target's form, whatever its options' type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldRef {
    Own(Field),
    Shared(&'static str, Option<&'static [&'static str]>),
}

impl<F> Slot<F> {
    /// The form's lines this slot stands for.
    pub fn field_refs(&self) -> Vec<FieldRef> {
        match self {
            Slot::Own(spec) => {
                vec![FieldRef::Own(Field { key: spec.key, label: spec.label, kind: spec.access.kind() })]
            }
            Slot::Shared(key) => vec![FieldRef::Shared(key, None)],
            Slot::SharedChoice(key, choices) => vec![FieldRef::Shared(key, Some(choices))],
            Slot::Section(keys) => keys.iter().map(|key| FieldRef::Shared(key, None)).collect(),
        }
    }
}

/// The spec of `key` among `specs`.
pub fn spec<'a, F>(specs: impl IntoIterator<Item = &'a FieldSpec<F>>, key: &str) -> Option<&'a FieldSpec<F>>
where
    F: 'a,
{
    specs.into_iter().find(|s| s.key == key)
}

/// The text field `key` of `options`, by `specs` (a choice is text too).
pub fn text_of<'o, F>(specs: &[FieldSpec<F>], options: &'o mut F, key: &str) -> Option<&'o mut String> {
    match spec(specs, key)?.access {
        Access::Text(get) | Access::Choice(get, _) => Some(get(options)),
        Access::Toggle(_) => None,
    }
}

/// The toggle `key` of `options`, by `specs`.
pub fn toggle_of<'o, F>(specs: &[FieldSpec<F>], options: &'o mut F, key: &str) -> Option<&'o mut bool> {
    match spec(specs, key)?.access {
        Access::Toggle(get) => Some(get(options)),
        _ => None,
    }
}

/// A target's own options as the form holds them, whatever their type.
pub trait TargetForm: std::fmt::Debug + Send + Sync {
    /// The text (or choice) field `key`.
    fn text(&mut self, key: &str) -> Option<&mut String>;
    /// The toggle `key`.
    fn toggle(&mut self, key: &str) -> Option<&mut bool>;
    /// As the form is remembered.
    fn to_json(&self) -> Result<serde_json::Value, serde_json::Error>;
    fn boxed(&self) -> Box<dyn TargetForm>;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// Options `F` with the fields a target's form shows of them.
pub struct OwnForm<F: 'static> {
    pub options: F,
    slots: &'static [Slot<F>],
}

impl<F: 'static> OwnForm<F> {
    pub fn new(options: F, slots: &'static [Slot<F>]) -> Self {
        OwnForm { options, slots }
    }

    fn own(&self, key: &str) -> Option<Access<F>> {
        self.slots.iter().find_map(|slot| match slot {
            Slot::Own(spec) if spec.key == key => Some(spec.access),
            _ => None,
        })
    }
}

impl<F: std::fmt::Debug> std::fmt::Debug for OwnForm<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.options.fmt(f)
    }
}

impl<F> TargetForm for OwnForm<F>
where
    F: Clone + PartialEq + std::fmt::Debug + serde::Serialize + Send + Sync + 'static,
{
    fn text(&mut self, key: &str) -> Option<&mut String> {
        match self.own(key)? {
            Access::Text(get) | Access::Choice(get, _) => Some(get(&mut self.options)),
            Access::Toggle(_) => None,
        }
    }

    fn toggle(&mut self, key: &str) -> Option<&mut bool> {
        match self.own(key)? {
            Access::Toggle(get) => Some(get(&mut self.options)),
            _ => None,
        }
    }

    fn to_json(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::to_value(&self.options)
    }

    fn boxed(&self) -> Box<dyn TargetForm> {
        Box::new(OwnForm { options: self.options.clone(), slots: self.slots })
    }

    fn as_any(&self) -> &dyn Any {
        &self.options
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        &mut self.options
    }
}

/// The options `F` a target's form holds: the form handed to a target is
/// always its own, so another type is a bug in the registry.
pub fn own<F: 'static>(form: &dyn TargetForm) -> &F {
    form.as_any().downcast_ref().expect("a target is handed its own form")
}

/// A field of text: `text!("size", "Object size", size)`.
#[macro_export]
macro_rules! text {
    ($key:literal, $label:literal, $($field:ident).+) => {
        $crate::form::FieldSpec { key: $key, label: $label, access: $crate::form::Access::Text(|o| &mut o.$($field).+) }
    };
}

/// A field that is on or off.
#[macro_export]
macro_rules! toggle {
    ($key:literal, $label:literal, $($field:ident).+) => {
        $crate::form::FieldSpec { key: $key, label: $label, access: $crate::form::Access::Toggle(|o| &mut o.$($field).+) }
    };
}

/// A field of one of `values`.
#[macro_export]
macro_rules! choice {
    ($key:literal, $label:literal, $values:expr, $($field:ident).+) => {
        $crate::form::FieldSpec {
            key: $key,
            label: $label,
            access: $crate::form::Access::Choice(|o| &mut o.$($field).+, $values),
        }
    };
}
