//! A clap error as the one sentence a user reads: what is wrong, what to do.

use crate::units::parse_bool;

/// A clap error as one sentence (clap's own text runs to usage blocks and
/// tips): what was wrong, and where to look. `args` is the command line, to
/// name the flag a stray `false` belonged to.
pub fn one_sentence(error: &clap::Error, args: &[String]) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let rendered = error.render().to_string();
    let first = rendered.lines().next().unwrap_or("").trim().trim_start_matches("error: ");
    let invalid = match error.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg.as_str(),
        _ => "",
    };
    if matches!(error.kind(), ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand) {
        let command = subcommand(args);
        return format!(
            "`{command}` needs what to do: `gcs-speed-tui {command} run ...` (see `gcs-speed-tui {command} --help`)"
        );
    }
    if error.kind() == ErrorKind::UnknownArgument && parse_bool(invalid).is_ok() {
        let flag = args
            .windows(2)
            .find(|pair| pair[1] == invalid && pair[0].starts_with("--"))
            .map_or("--cleanup", |pair| pair[0].as_str());
        return format!(
            "unexpected argument '{invalid}': a true/false flag takes its value after '=', like {flag}={invalid}"
        );
    }
    if error.kind() == ErrorKind::MissingRequiredArgument {
        let missing = match error.get(ContextKind::InvalidArg) {
            Some(ContextValue::Strings(missing)) => missing.join(", "),
            _ => String::new(),
        };
        let command = subcommand(args);
        return format!("`{command}` needs {missing}: see `gcs-speed-tui {command} --help`");
    }
    let values: Vec<String> = match error.get(ContextKind::ValidValue) {
        Some(ContextValue::Strings(values)) => values.clone(),
        _ => Vec::new(),
    };
    if values.is_empty() {
        format!("{first}; run with --help to see the options")
    } else {
        format!("{first}: use one of {}", values.join(", "))
    }
}

/// The subcommand typed (`etcd run`, `merge`), without its arguments: the
/// words that name a subcommand of the one before.
fn subcommand(args: &[String]) -> String {
    use clap::CommandFactory;
    let mut command = super::Cli::command();
    let mut words = Vec::new();
    for word in args.iter().skip(1) {
        let Some(next) = command.find_subcommand(word).cloned() else {
            // clap adds `help` itself, when it parses.
            words.extend((word == "help").then_some(word.as_str()));
            break;
        };
        words.push(word.as_str());
        command = next;
    }
    words.join(" ")
}
