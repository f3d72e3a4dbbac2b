//! The app keeps faith with what the user typed: flags given at launch win
//! and choose their target, remembered state never makes a launch invalid,
//! a field shows what it stores, and the form's sentences name its fields.

use gcs_speed_tui::config::{Environment, FormOptions, Options};
use gcs_speed_tui::etcd::form::EtcdOptions;
use gcs_speed_tui::tui::form::{Form, forget_invalid, merge};

/// A form that runs GCS with `options` (their schedule the form's).
fn gcs_form(options: Options) -> FormOptions {
    FormOptions::with(options.clone(), options.schedule_args())
}

fn etcd_remembered() -> FormOptions {
    let mut remembered = FormOptions { target: "etcd".into(), ..FormOptions::default() };
    remembered.options_mut::<EtcdOptions>().user = "alice".into(); // its password is never remembered
    remembered
}

#[test]
fn a_gcs_flag_at_launch_opens_on_gcs_whatever_was_remembered() {
    let typed = gcs_form(Options { bucket: "my-bucket".into(), ..Options::default() });
    let merged = merge(etcd_remembered(), &typed, &["bucket".into()]);
    assert_eq!((merged.target.as_str(), merged.options::<Options>().bucket.as_str()), ("gcs", "my-bucket"));
    // Without flags, the remembered target stays.
    assert_eq!(merge(etcd_remembered(), &FormOptions::default(), &[]).target, "etcd");
}

#[test]
fn remembered_state_never_makes_a_launch_invalid_but_a_typed_mistake_is_kept() {
    let env = Environment::default();
    let invalid = Form::new(etcd_remembered(), env.clone());
    assert!(invalid.checked.is_err(), "a user without a password is invalid, so it must not be restored as is");
    let launched = forget_invalid(etcd_remembered(), &[], &env);
    assert!(Form::new(launched.clone(), env.clone()).checked.is_ok());
    assert_eq!(
        (launched.target.as_str(), launched.options::<EtcdOptions>().user.as_str()),
        ("etcd", ""),
        "the user went, the target stayed"
    );
    let remembered = gcs_form(Options { size: "12XB".into(), ..Options::default() });
    assert_eq!(forget_invalid(remembered.clone(), &[], &env).options::<Options>().size, Options::default().size);
    assert_eq!(
        forget_invalid(remembered, &["size".into()], &env).options::<Options>().size,
        "12XB",
        "typed: kept and said"
    );
}

#[test]
fn the_endpoints_field_shows_what_it_stores_and_sentences_name_fields() {
    let form = Form::new(etcd_remembered(), Environment::default());
    let endpoints = form.fields().iter().position(|f| f.key == "endpoints").unwrap();
    assert_eq!(form.value(endpoints), "http://127.0.0.1:2379", "the form it accepts, scheme and all");
    let said = form.error_message().unwrap();
    assert!(said.starts_with("User needs Password"), "field labels, not flags: {said}");
    assert!(!said.contains("--"), "{said}");
}

/// Switching the Target field is remembered when it happens, not only when
/// a run starts: quitting right after reopens on the new target (the
/// remembered form then loses to any GCS flag given at launch, as above).
#[test]
fn a_new_target_is_remembered_when_it_changes() {
    use gcs_speed_tui::tui::app::{App, Effect, Message};
    use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    let mut app = App::new(FormOptions::default(), Environment::default(), false);
    let mut press = |code| app.update(Message::Terminal(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))));
    // The cursor opens on Target, the first field: gcs → etcd → gcs.
    assert_eq!(press(KeyCode::Right), [Effect::SaveTarget("etcd".into())]);
    assert_eq!(press(KeyCode::Down), [], "moving is no change");
    assert_eq!(press(KeyCode::Up), []);
    assert_eq!(press(KeyCode::Left), [Effect::SaveTarget("gcs".into())]);
    assert_eq!(press(KeyCode::Enter), [Effect::SaveTarget("etcd".into())], "Enter steps the choice too");
}
