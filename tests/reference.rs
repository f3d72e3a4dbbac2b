//! docs/reference.md is every command's `--help`, rendered from the CLI
//! itself, so the reference and the help never disagree: this test fails
//! when they do, and `REGENERATE_REFERENCE=1 cargo nextest run --test
//! reference` writes it again.

use clap::CommandFactory;

const REFERENCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/reference.md");

/// `command`'s help and its subcommands', depth first, each under a heading of its path.
fn render(command: &mut clap::Command, path: &str, out: &mut String) {
    let name = if path.is_empty() { command.get_name().to_string() } else { format!("{path} {}", command.get_name()) };
    let help = command.render_long_help().to_string();
    out.push_str(&format!("## `{name}`\n\n```text\n{}\n```\n\n", help.trim_end()));
    let mut subcommands: Vec<clap::Command> = command.get_subcommands().cloned().collect();
    for sub in subcommands.iter_mut().filter(|s| s.get_name() != "help") {
        render(sub, &name, out);
    }
}

fn reference() -> String {
    let mut command = gcs_speed_tui::cli::Cli::command();
    command.build();
    let mut out = String::from(
        "# Command reference\n\nEvery command's `--help`, as the binary prints it (made from the CLI by \
         `tests/reference.rs`; do not edit by hand: `REGENERATE_REFERENCE=1 cargo nextest run --test reference`).\n\n",
    );
    render(&mut command, "", &mut out);
    out
}

#[test]
fn the_reference_is_the_clis_own_help() {
    let made = reference();
    if std::env::var_os("REGENERATE_REFERENCE").is_some() {
        std::fs::write(REFERENCE, &made).unwrap();
    }
    let kept = std::fs::read_to_string(REFERENCE).unwrap_or_default();
    // Every command is in it, the nested ones too.
    for heading in ["## `gcs-speed-tui run`", "## `gcs-speed-tui grpc doctor`", "## `gcs-speed-tui etcd run`"] {
        assert!(made.contains(heading), "{heading}");
    }
    assert!(made.contains("--samples <FILE>") && made.contains("--auth <MODE>"), "flags with their help");
    assert!(
        kept == made,
        "docs/reference.md is out of date: REGENERATE_REFERENCE=1 cargo nextest run --test reference"
    );
}
