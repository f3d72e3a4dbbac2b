//! The app's form as text: which target it runs, the schedule every target
//! shares, each target's own options (its `TargetForm`) and the sweep.
//! Remembered as one flat JSON object, as before targets were a list: the
//! schedule's keys and the first target's at the top, the others' each
//! under its name, so remembered forms still load.

use super::{REGISTRY, fields::is_shared, registered};
use target_api::form::{Field, Kind, TargetForm, text_of, toggle_of};
use target_api::schedule::{SCHEDULE_FIELDS, ScheduleArgs};

/// Every field of the app's form, as typed.
#[derive(Debug)]
pub struct FormOptions {
    /// What the app benchmarks: a name in the registry (a remembered form
    /// naming another is not read, rather than run as some other target).
    pub target: String,
    pub schedule: ScheduleArgs,
    /// Each registered target's own options, in the registry's order.
    pub forms: Vec<Box<dyn TargetForm>>,
    /// The app's sweep: `run --sweep`'s values, an option a `;` apart
    /// (`size=1KiB,1MiB; concurrency=1,8`); empty runs one comparison.
    /// Not remembered: a sweep is many runs, never to begin unseen from a
    /// field a later session keeps folded away.
    pub sweep: String,
    /// `run --sweep-budget`: the time shared out over the sweep's points.
    pub sweep_budget: String,
}

impl Default for FormOptions {
    fn default() -> Self {
        FormOptions {
            target: REGISTRY[0].name().into(),
            schedule: ScheduleArgs::default(),
            forms: REGISTRY.iter().map(|t| t.new_form()).collect(),
            sweep: String::new(),
            sweep_budget: String::new(),
        }
    }
}

impl Clone for FormOptions {
    fn clone(&self) -> Self {
        FormOptions { forms: self.forms.iter().map(|f| f.boxed()).collect(), ..self.shared_clone() }
    }
}

/// Two forms are alike when they would be remembered alike (a first target
/// that keeps its own copy of the schedule's fields is read with the
/// form's), and hold the same sweep.
impl PartialEq for FormOptions {
    fn eq(&self, other: &FormOptions) -> bool {
        let remembered = |f: &FormOptions| serde_json::to_value(f).ok();
        (&self.sweep, &self.sweep_budget) == (&other.sweep, &other.sweep_budget)
            && self.forms.len() == other.forms.len()
            && remembered(self) == remembered(other)
    }
}

impl Eq for FormOptions {}

impl FormOptions {
    fn shared_clone(&self) -> FormOptions {
        FormOptions {
            target: self.target.clone(),
            schedule: self.schedule.clone(),
            forms: Vec::new(),
            sweep: self.sweep.clone(),
            sweep_budget: self.sweep_budget.clone(),
        }
    }

    /// A form that runs `target` (registered) with its `form` and `schedule`,
    /// every other target at its defaults: what a command's flags give.
    pub fn of(target: &'static dyn target_api::Target, form: Box<dyn TargetForm>, schedule: ScheduleArgs) -> Self {
        let mut options = FormOptions { target: target.name().into(), schedule, ..FormOptions::default() };
        options.forms[index_of(target.name())] = form;
        options
    }

    /// A form that runs the target whose options are of type `T`, with
    /// `options` and `schedule` (tests and benches build forms this way).
    pub fn with<T: 'static>(options: T, schedule: ScheduleArgs) -> Self {
        let mut form = FormOptions { schedule, ..FormOptions::default() };
        let index = form.forms.iter().position(|f| f.as_any().is::<T>()).expect("a registered target's options");
        *form.forms[index].as_any_mut().downcast_mut::<T>().expect("checked just above") = options;
        form.target = REGISTRY[index].name().into();
        form
    }

    /// The chosen target's own options.
    pub fn own(&self) -> &dyn TargetForm {
        self.forms[index_of(&self.target)].as_ref()
    }

    /// The options of type `T` (a registered target's), whichever target is chosen.
    pub fn options<T: 'static>(&self) -> &T {
        self.forms.iter().find_map(|f| f.as_any().downcast_ref()).expect("a registered target's options")
    }

    pub fn options_mut<T: 'static>(&mut self) -> &mut T {
        self.forms.iter_mut().find_map(|f| f.as_any_mut().downcast_mut()).expect("a registered target's options")
    }

    /// The text (or choice) field `key` of `target`'s form.
    pub fn text_in(&mut self, target: &str, key: &str) -> Option<&mut String> {
        match key {
            "target" => Some(&mut self.target),
            "sweep" => Some(&mut self.sweep),
            "sweep_budget" => Some(&mut self.sweep_budget),
            key if is_shared(key) => text_of(&SCHEDULE_FIELDS, &mut self.schedule, key),
            key => self.forms[index_of(target)].text(key),
        }
    }

    /// The toggle `key` of `target`'s form.
    pub fn toggle_in(&mut self, target: &str, key: &str) -> Option<&mut bool> {
        match key {
            key if is_shared(key) => toggle_of(&SCHEDULE_FIELDS, &mut self.schedule, key),
            key => self.forms[index_of(target)].toggle(key),
        }
    }

    /// The text (or choice) field `key` of the chosen target's form.
    pub fn text(&mut self, key: &str) -> Option<&mut String> {
        let target = self.target.clone();
        self.text_in(&target, key)
    }

    pub fn toggle(&mut self, key: &str) -> Option<&mut bool> {
        let target = self.target.clone();
        self.toggle_in(&target, key)
    }

    /// The text `field` shows (toggles as on/off).
    pub fn value(&self, field: &Field) -> String {
        let mut options = self.clone();
        match field.kind {
            Kind::Toggle => if options.toggle(field.key).is_some_and(|on| *on) { "on" } else { "off" }.into(),
            _ => options.text(field.key).cloned().unwrap_or_default(),
        }
    }

    /// `field` of `target`'s form as `from` has it.
    pub fn copy_field(&mut self, target: &str, field: &Field, from: &FormOptions) {
        let mut from = from.clone();
        match field.kind {
            Kind::Toggle => {
                if let (Some(to), Some(value)) = (self.toggle_in(target, field.key), from.toggle_in(target, field.key))
                {
                    *to = *value;
                }
            }
            _ => {
                if let (Some(to), Some(value)) = (self.text_in(target, field.key), from.text_in(target, field.key)) {
                    *to = value.clone();
                }
            }
        }
    }

    /// What the live pane says before the first run of this form. The
    /// targets' words are about comparing two transports: with one chosen,
    /// that is said instead.
    pub fn welcome(&self) -> target_api::Welcome {
        let mut words = super::named(&self.target).welcome(self.own(), &self.schedule);
        if let Some(alone) = crate::engine::plan::TransportKind::named(self.schedule.transports.trim()) {
            words.what = format!(
                "Only {} runs (the Transports field): this pane shows it live, and the table below its figures when the run ends, with nothing to compare and no verdict. Set Transports to both to compare.",
                alone.name()
            );
        }
        words
    }
}

/// The registry's index of a registered target (a form's target is checked
/// where it is read).
fn index_of(target: &str) -> usize {
    REGISTRY.iter().position(|t| t.name() == target).unwrap_or_else(|| unreachable!("checked as it is read: {target}"))
}

impl serde::Serialize for FormOptions {
    fn serialize<S: serde::Serializer>(&self, writing: S) -> Result<S::Ok, S::Error> {
        let mut top = serde_json::Map::new();
        for (target, form) in REGISTRY.iter().zip(&self.forms) {
            match (target.remembered_under(), form.to_json().map_err(serde::ser::Error::custom)?) {
                (None, serde_json::Value::Object(fields)) => top.extend(fields),
                (Some(key), value) => drop(top.insert(key.into(), value)),
                (None, _) => {}
            }
        }
        // The schedule's, after a first target's options that keep their own copy.
        if let serde_json::Value::Object(fields) =
            serde_json::to_value(&self.schedule).map_err(serde::ser::Error::custom)?
        {
            top.extend(fields);
        }
        top.insert("target".into(), self.target.clone().into());
        top.serialize(writing)
    }
}

impl<'de> serde::Deserialize<'de> for FormOptions {
    fn deserialize<D: serde::Deserializer<'de>>(reading: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = <serde_json::Value as serde::Deserialize>::deserialize(reading)?;
        let target = match value.get("target") {
            None => REGISTRY[0].name().to_string(),
            Some(name) => {
                let name = name.as_str().ok_or_else(|| D::Error::custom("the target is not a name"))?;
                registered(name).map_err(D::Error::custom)?.name().to_string()
            }
        };
        let schedule = serde_json::from_value(value.clone()).map_err(D::Error::custom)?;
        let mut forms = Vec::new();
        for target in REGISTRY {
            let remembered = match target.remembered_under() {
                None => value.clone(),
                Some(key) => value.get(key).cloned().unwrap_or_else(|| serde_json::json!({})),
            };
            forms.push(target.read_form(remembered).map_err(D::Error::custom)?);
        }
        Ok(FormOptions { target, schedule, forms, sweep: String::new(), sweep_budget: String::new() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_transport_is_welcomed_as_one_in_every_target() {
        for target in REGISTRY {
            let mut form = FormOptions { target: target.name().into(), ..FormOptions::default() };
            let compared = form.welcome().what;
            assert!(compared.contains("compare") && !compared.contains("Only"), "{}: {compared}", target.name());
            for (alone, name) in [("grpc", "grpc"), ("json", "http-json")] {
                form.schedule.transports = alone.into();
                let what = form.welcome().what;
                assert!(what.starts_with(&format!("Only {name} runs")), "{}: {what}", target.name());
                assert!(!what.contains("Both") && !what.contains("in turn"), "{what}");
            }
        }
    }
}
