use super::*;
use crate::config::Options;

#[test]
fn go_style_booleans_and_defaults_parse() {
    let cli = Cli::try_parse_from(["gcs-speed-tui", "run", "--cleanup=false", "--warmup", "--size", "1MiB"]).unwrap();
    let Some(Command::Target(crate::targets::TargetCommand::Run(run))) = cli.command else { panic!("run") };
    assert!(!run.bench.schedule.cleanup);
    assert!(run.bench.schedule.warmup);
    assert!(!run.bench.disable_grpc_autochecksum);
    assert_eq!(run.bench.to_options().size, "1MiB");
    assert_eq!(run.report.format, Format::Table);
}

#[test]
fn flag_defaults_match_the_core_defaults() {
    let cli = Cli::try_parse_from(["gcs-speed-tui"]).unwrap();
    assert_eq!(cli.bench.to_options(), Options::default());
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
    assert!(one_sentence(&error, &[]).ends_with(": use one of table, json, csv"), "{}", one_sentence(&error, &[]));
}

#[test]
fn every_form_field_has_the_flags_help() {
    for (fields, target) in [(&crate::targets::FIELDS[..], "gcs"), (&crate::targets::ETCD_FIELDS[..], "etcd")] {
        for field in fields {
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
