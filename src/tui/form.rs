//! The option form: the chosen target's fields (`crate::targets::fields_of`)
//! over one `FormOptions` value, validated by the same code as the CLI flags.

use crate::engine::plan::ConfigError;
use crate::targets::{Environment, FormOptions, Planned, TARGETS, fields_of, forgotten_with, named};
use ratatui::crossterm::event::Event;
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

pub use super::fields::{Field, Kind};

/// One line of the form as shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row {
    Field(usize),
    /// The header of the advanced group: opens and closes it.
    Advanced,
}

pub struct Form {
    pub options: FormOptions,
    /// The cursor, an index into `rows()`.
    pub cursor: usize,
    pub advanced_open: bool,
    /// The text being edited, while a text field is open.
    pub editing: Option<Input>,
    /// The options' validation, after every change.
    pub checked: Result<Planned, ConfigError>,
    env: Environment,
}

impl Form {
    pub fn new(options: FormOptions, env: Environment) -> Self {
        let checked = check(&options, &env);
        Self { options, cursor: 0, advanced_open: false, editing: None, checked, env }
    }

    /// The fields of the target chosen.
    pub fn fields(&self) -> &'static [Field] {
        fields_of(&self.options.target)
    }

    pub fn essentials(&self) -> usize {
        named(&self.options.target).essentials()
    }

    /// The lines shown: the essential fields, the advanced group's header,
    /// and its fields when it is open.
    pub fn rows(&self) -> Vec<Row> {
        let essentials = self.essentials();
        let mut rows: Vec<Row> = (0..essentials).map(Row::Field).collect();
        rows.push(Row::Advanced);
        if self.advanced_open {
            rows.extend((essentials..self.fields().len()).map(Row::Field));
        }
        rows
    }

    /// The field under the cursor (none on the group header).
    pub fn selected(&self) -> Option<usize> {
        match self.rows().get(self.cursor) {
            Some(Row::Field(index)) => Some(*index),
            _ => None,
        }
    }

    /// Puts the cursor on a field, opening its group if need be.
    pub fn select_field(&mut self, index: usize) {
        if index >= self.essentials() {
            self.advanced_open = true;
        }
        self.cursor = self.rows().iter().position(|r| *r == Row::Field(index)).unwrap_or(0);
    }

    pub fn toggle_advanced(&mut self) {
        self.advanced_open = !self.advanced_open;
        self.cursor = self.essentials(); // stay on the header
    }

    /// Moves to the first or last row.
    pub fn move_to_end(&mut self, last: bool) {
        self.cursor = if last { self.rows().len() - 1 } else { 0 };
    }

    /// The text a field shows (toggles as on/off).
    pub fn value(&self, index: usize) -> String {
        let field = &self.fields()[index];
        match self.options.value(field) {
            // Typed, but never shown.
            typed if field.key == "password" => "•".repeat(typed.chars().count()),
            value => value,
        }
    }

    /// Why the form is invalid, in the form's own words: the CLI's sentence
    /// with each `--flag` said as its field's label (`--user needs
    /// --password` reads "User needs Password").
    pub fn error_message(&self) -> Option<String> {
        let error = self.checked.as_ref().err()?;
        Some(super::fields::in_form_words(&error.message, &self.options.target))
    }

    pub fn error_for(&self, index: usize) -> Option<&str> {
        match &self.checked {
            Err(error) if error.field == self.fields()[index].key => Some(&error.message),
            _ => None,
        }
    }

    fn changed(&mut self) {
        self.checked = check(&self.options, &self.env);
    }

    /// Checks the options again after a change made from outside the form.
    pub fn recheck(&mut self) {
        self.changed();
    }

    /// One step wraps around; a page stops at either end.
    pub fn move_by(&mut self, step: isize) {
        let n = self.rows().len() as isize;
        self.cursor = if step.abs() == 1 {
            (self.cursor as isize + step).rem_euclid(n) as usize
        } else {
            (self.cursor as isize + step).clamp(0, n - 1) as usize
        };
    }

    /// Enter on a field: opens a text field for editing, flips a toggle,
    /// steps a choice; on the group header, opens or closes the group.
    pub fn activate(&mut self) {
        let Some(selected) = self.selected() else {
            return self.toggle_advanced();
        };
        match self.fields()[selected].kind {
            Kind::Text => {
                let value = self.options.value(&self.fields()[selected]);
                self.editing = Some(Input::new(value));
            }
            Kind::Toggle => self.flip(),
            Kind::Choice(..) => self.step_choice(1),
        }
    }

    pub fn flip(&mut self) {
        let Some(selected) = self.selected() else {
            return self.toggle_advanced();
        };
        let field = self.fields()[selected];
        if let (Kind::Toggle, Some(value)) = (field.kind, self.options.toggle(field.key)) {
            *value = !*value;
            self.changed();
        }
    }

    pub fn step_choice(&mut self, step: isize) {
        let Some(selected) = self.selected() else {
            // → opens the group, ← closes it.
            if (step > 0) != self.advanced_open {
                self.toggle_advanced();
            }
            return;
        };
        let field = self.fields()[selected];
        if let (Kind::Choice(choices), Some(value)) = (field.kind, self.options.text(field.key)) {
            let current = choices.iter().position(|c| c == value).unwrap_or(0) as isize;
            *value = choices[(current + step).rem_euclid(choices.len() as isize) as usize].to_string();
            if field.key == "target" {
                // The other target's fields: the cursor stays on this one.
                self.advanced_open = false;
                self.cursor = 0;
            }
            self.changed();
        }
    }

    /// Keys while editing go to the text field.
    pub fn edit(&mut self, event: &Event) {
        if let Some(input) = &mut self.editing {
            input.handle_event(event);
        }
    }

    /// Enter while editing: keep the new text.
    pub fn accept(&mut self) {
        let Some(selected) = self.selected() else { return };
        let field = self.fields()[selected];
        if let (Some(input), Kind::Text) = (self.editing.take(), field.kind)
            && let Some(value) = self.options.text(field.key)
        {
            *value = input.value().trim().to_string();
            self.changed();
        }
    }

    /// Esc while editing: the field keeps its old value.
    pub fn revert(&mut self) {
        self.editing = None;
    }
}

/// `127.0.0.1:2379` for `http://127.0.0.1:2379`, `tls 10.0.0.5:2379` for
/// https: a host and port fit the form where a whole URL is cut before its port.
/// Flags given on the command line (`given`: their option names) win over
/// the remembered form, even when a flag's value is its default
/// (`--iterations 3`); a flag not given takes the remembered value.
pub fn merge(remembered: FormOptions, command_line: &FormOptions, given: &[String]) -> FormOptions {
    let mut merged = remembered;
    let target = &command_line.target;
    let flags: Vec<&Field> = fields_of(target).iter().filter(|f| given.iter().any(|g| g == f.key)).collect();
    for field in &flags {
        merged.copy_field(target, field, command_line);
    }
    // Given any flag, the app opens on the command line's target (the app's
    // flags are `run`'s) whatever the last session's target was.
    if !flags.is_empty() {
        merged.target = command_line.target.clone();
    }
    merged
}

/// The form's run as the target plans it, and its sweep (when the Sweep
/// field is set) planned too, so that a bad point is said under the form.
fn check(options: &FormOptions, env: &Environment) -> Result<Planned, ConfigError> {
    let planned = crate::targets::plan(options, env)?;
    crate::sweep::of_form(options, env)?;
    Ok(planned)
}

/// The form's sweep, planned afresh (each run of it in its own shuffled order).
impl Form {
    pub fn sweep(&self) -> Result<Option<crate::sweep::Sweep>, ConfigError> {
        crate::sweep::of_form(&self.options, &self.env)
    }
}

/// A remembered value that no longer validates (a user whose password is
/// never remembered, a value an older version took) is put back to its
/// default, so that remembered state never makes a launch invalid; what
/// the command line gave is kept, and said if wrong.
pub fn forget_invalid(mut options: FormOptions, given: &[String], env: &Environment) -> FormOptions {
    let defaults = FormOptions::default();
    let all_fields = TARGETS.iter().map(|t| fields_of(t).len()).sum();
    for _ in 0..all_fields {
        let Err(error) = check(&options, env) else { break };
        let target = options.target.clone();
        let fields = fields_of(&target);
        let Some(field) = fields.iter().find(|f| f.key == error.field) else {
            break;
        };
        if given.iter().any(|g| g == field.key) {
            break;
        }
        options.copy_field(&target, field, &defaults);
        for also in fields.iter().filter(|f| forgotten_with(field.key).contains(&f.key)) {
            options.copy_field(&target, also, &defaults);
        }
    }
    options
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Options;
    use crate::etcd::form::EtcdOptions;

    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    fn key(code: KeyCode) -> Event {
        Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn field(key: &str) -> usize {
        fields_of("gcs").iter().position(|f| f.key == key).unwrap()
    }

    #[test]
    fn every_option_has_a_field_and_defaults_validate() {
        assert_eq!(fields_of("gcs").len(), 48);
        let form = Form::new(FormOptions::default(), Environment::default());
        assert!(form.checked.is_ok());
        assert_eq!(form.value(field("size")), "64MiB");
        assert_eq!(form.value(field("cleanup")), "on");
    }

    #[test]
    fn editing_accepts_or_reverts_and_revalidates() {
        let mut form = Form::new(FormOptions::default(), Environment::default());
        form.select_field(field("size"));
        form.activate();
        form.edit(&Event::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)));
        for c in "12XB".chars() {
            form.edit(&key(KeyCode::Char(c)));
        }
        form.accept();
        assert_eq!(form.options.options::<Options>().size, "12XB");
        let message = form.error_for(field("size")).unwrap();
        assert_eq!(
            message,
            "--size: '12XB' is not a size: use a number with B, KiB, MiB, GiB, KB, MB or GB, like 64MiB"
        );

        form.activate();
        form.edit(&key(KeyCode::Backspace));
        form.revert();
        assert_eq!(form.options.options::<Options>().size, "12XB", "Esc keeps the old value");
    }

    #[test]
    fn toggles_flip_and_choices_cycle() {
        let mut form = Form::new(FormOptions::default(), Environment::default());
        form.select_field(field("cleanup"));
        assert!(form.advanced_open, "selecting an advanced field opens its group");
        form.flip();
        assert!(!form.options.schedule.cleanup);
        form.select_field(field("transports"));
        form.step_choice(1);
        assert_eq!(form.options.schedule.transports, "http-json");
        form.step_choice(-2);
        assert_eq!(form.options.schedule.transports, "grpc-read-object,grpc", "back past the first, to the last");
        form.move_by(-2);
        assert_eq!(form.selected(), Some(0));
        form.move_by(-1);
        assert_eq!(form.selected(), Some(fields_of("gcs").len() - 1), "wraps around");
    }

    #[test]
    fn the_target_choice_brings_the_other_targets_fields() {
        let mut form = Form::new(FormOptions::default(), Environment::default());
        assert!(form.checked.as_ref().unwrap().as_any().is::<crate::gcs::planned::GcsPlan>());
        form.select_field(0);
        form.step_choice(1);
        assert_eq!(form.options.target, "etcd");
        assert_eq!((form.fields().len(), form.rows().len()), (fields_of("etcd").len(), named("etcd").essentials() + 1));
        let config =
            form.checked.as_ref().unwrap().as_any().downcast_ref::<crate::etcd::options::EtcdConfig>().unwrap();
        assert_eq!(config.reach.endpoints, ["http://127.0.0.1:2379"]);
        form.select_field(fields_of("etcd").iter().position(|f| f.key == "requests").unwrap());
        form.activate();
        form.edit(&Event::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)));
        form.edit(&key(KeyCode::Char('0')));
        form.accept();
        let error = form.checked.as_ref().unwrap_err();
        assert_eq!((error.field, error.message.as_str()), ("requests", "--requests must be between 1 and 100000000"));
        assert!(form.error_for(5).is_some(), "the field is marked");
        // The schedule is shared: iterations typed for one target are the other's too.
        form.select_field(fields_of("etcd").iter().position(|f| f.key == "iterations").unwrap());
        assert_eq!(form.value(form.selected().unwrap()), "3");
        let password = fields_of("etcd").iter().position(|f| f.key == "password").unwrap();
        form.options.options_mut::<EtcdOptions>().password = "secret".into();
        assert_eq!(form.value(password), "••••••", "a password is never shown");
    }

    #[test]
    fn the_advanced_group_opens_and_closes_and_pages_stop_at_the_ends() {
        let mut form = Form::new(FormOptions::default(), Environment::default());
        assert_eq!(
            form.rows().len(),
            named("gcs").essentials() + 1,
            "closed at first: essentials and the group's header"
        );
        form.move_to_end(true);
        assert_eq!((form.rows()[form.cursor], form.selected()), (Row::Advanced, None));
        form.activate();
        assert_eq!(form.rows().len(), fields_of("gcs").len() + 1);
        form.move_by(8);
        assert_eq!(form.selected(), Some(named("gcs").essentials() + 7));
        form.move_by(100);
        assert_eq!(form.selected(), Some(fields_of("gcs").len() - 1), "a page stops at the end");
        form.move_by(-100);
        assert_eq!(form.cursor, 0);
        form.select_field(named("gcs").essentials());
        form.move_by(-1);
        form.step_choice(-1);
        assert!(!form.advanced_open, "← on the header closes the group");
    }

    #[test]
    fn command_line_flags_win_over_remembered_values() {
        let mut remembered = FormOptions::default();
        (remembered.options_mut::<Options>().size, remembered.schedule.iterations) = ("1GiB".into(), "9".into());
        remembered.schedule.cleanup = false;
        let mut given = FormOptions::default();
        given.schedule.iterations = "2".into();
        let merged = merge(remembered.clone(), &given, &["iterations".into()]);
        assert_eq!(
            (merged.options::<Options>().size.as_str(), merged.schedule.iterations.as_str(), merged.schedule.cleanup),
            ("1GiB", "2", false)
        );
        // A flag typed with its default value still wins.
        let merged = merge(remembered, &FormOptions::default(), &["iterations".into(), "cleanup".into()]);
        assert_eq!(
            (merged.options::<Options>().size.as_str(), merged.schedule.iterations.as_str(), merged.schedule.cleanup),
            ("1GiB", "3", true)
        );
    }
}
