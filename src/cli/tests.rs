use super::*;
use crate::config::Options;

#[test]
fn go_style_booleans_and_defaults_parse() {
    let cli = Cli::try_parse_from(["gcs-speed-tui", "run", "--cleanup=false", "--warmup", "--size", "1MiB"]).unwrap();
    let Some(Command::Target(command)) = cli.command else { panic!("run") };
    let Ok(crate::targets::Action::Run(form, report)) = command.action(&Default::default()) else { panic!("run") };
    assert!(!form.schedule.cleanup);
    assert!(form.schedule.warmup);
    let options = form.options::<Options>();
    assert!(!options.disable_grpc_autochecksum);
    assert_eq!(options.size, "1MiB");
    assert_eq!(report.format, Format::Table);
}

#[test]
fn flag_defaults_match_the_core_defaults() {
    let cli = Cli::try_parse_from(["gcs-speed-tui"]).unwrap();
    assert_eq!(cli.bench.form().unwrap(), crate::targets::FormOptions::default());
    // The app's flags are read: the schedule's and GCS's own.
    let cli = Cli::try_parse_from(["gcs-speed-tui", "--size", "8MiB", "--iterations", "2"]).unwrap();
    let form = cli.bench.form().unwrap();
    assert_eq!((form.schedule.iterations.as_str(), form.options::<Options>().size.as_str()), ("2", "8MiB"));
}

#[test]
fn a_spaced_boolean_gets_the_equals_hint_in_one_sentence() {
    let args: Vec<String> = ["gcs-speed-tui", "run", "--warmup", "0"].map(String::from).to_vec();
    let error = Cli::try_parse_from(&args).unwrap_err();
    let sentence = one_sentence(&error, &args);
    assert!(sentence.ends_with("like --warmup=0"), "{sentence}");
    assert!(!sentence.contains('\n'));
    let error = Cli::try_parse_from(["gcs-speed-tui", "run", "--nope"]).unwrap_err();
    assert_eq!(one_sentence(&error, &[]), "unexpected argument '--nope' found; run with --help to see the options");
    let error = Cli::try_parse_from(["gcs-speed-tui", "run", "--format", "yaml"]).unwrap_err();
    assert!(
        one_sentence(&error, &[]).ends_with(": use one of table, json, csv, html"),
        "{}",
        one_sentence(&error, &[])
    );
}

#[test]
fn every_form_field_has_the_flags_help() {
    for target in crate::targets::TARGETS.iter() {
        for field in crate::targets::fields_of(target) {
            let help = help_for(field.key, target).unwrap_or_else(|| panic!("no --help text for {}", field.key));
            assert!(help.len() > 10, "{}: {help}", field.key);
        }
    }
    assert_eq!(
        help_for("chunk_size", "gcs").unwrap(),
        "Resumable chunk size, rounded up to 256 KiB; 0 = one request per object"
    );
}

#[test]
fn etcd_without_run_says_what_to_type() {
    let args: Vec<String> = ["gcs-speed-tui", "etcd"].map(String::from).to_vec();
    let error = Cli::try_parse_from(&args).unwrap_err();
    assert_eq!(
        one_sentence(&error, &args),
        "`etcd` needs what to do: `gcs-speed-tui etcd run ...` (see `gcs-speed-tui etcd --help`)"
    );
}

#[test]
fn a_bad_boolean_is_a_usage_error() {
    let error = Cli::try_parse_from(["gcs-speed-tui", "run", "--cleanup=maybe"]).unwrap_err();
    assert_eq!(error.exit_code(), 2);
}

#[test]
fn each_target_command_has_its_own_help() {
    use clap::CommandFactory;
    let root = Cli::command();
    for target in crate::targets::REGISTRY {
        let mut command = &root;
        for (name, about) in target.command() {
            command = command.find_subcommand(name).unwrap_or_else(|| panic!("no {name}"));
            assert_eq!(command.get_about().map(|a| a.to_string()).as_deref(), Some(*about), "{name}");
        }
        if let Some((name, about)) = target.doctor() {
            // At the top (`doctor`), or beside a grouped run (`grpc doctor`).
            let path = target.command();
            let group = match path.len() {
                1 => &root,
                _ => root.find_subcommand(path[0].0).unwrap(),
            };
            let doctor = group.find_subcommand(name).unwrap();
            assert_eq!(doctor.get_about().map(|a| a.to_string()).as_deref(), Some(about));
        }
    }
    let run = root.find_subcommand("run").unwrap();
    assert_eq!(
        run.get_about().map(|a| a.to_string()).as_deref(),
        Some("Run the benchmark without the interactive app and print a report.")
    );
}
