//! `completions SHELL` and `man`: a shell's completion script and the man
//! page, both made from the CLI's own definition (clap_complete,
//! clap_mangen), so they name every command and flag there is.

use clap::CommandFactory;
use std::io::Write;
use std::process::ExitCode;

/// The binary's name as a shell sees it.
const NAME: &str = "gcs-speed-tui";

/// Prints `shell`'s completion script.
pub fn completions(shell: clap_complete::Shell) -> ExitCode {
    written(script(shell).as_bytes())
}

/// `shell`'s completion script. clap_complete's bash script spells the
/// states of a hyphenated binary's subcommands two ways (the loop's
/// `gcs__speed__tui__subcmd__grpc`, the arms' `gcs__subcmd__speed__...`),
/// so nothing past the first word would complete (clap-rs/clap#6421, open):
/// the arms are spelled as the loop spells them.
pub fn script(shell: clap_complete::Shell) -> String {
    let mut command = super::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, NAME, &mut script);
    let script = String::from_utf8_lossy(&script).into_owned();
    match shell {
        clap_complete::Shell::Bash => script.replace("gcs__subcmd__speed__subcmd__tui", "gcs__speed__tui"),
        _ => script,
    }
}

/// Prints the man page (roff): `gcs-speed-tui man > gcs-speed-tui.1`.
pub fn man() -> ExitCode {
    let mut page = Vec::new();
    match clap_mangen::Man::new(super::Cli::command()).render(&mut page) {
        Ok(()) => written(&page),
        Err(error) => {
            engine::say_on_stderr!("error: cannot render the man page: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `bytes` to stdout; a reader that went away (`| head`) is no error.
fn written(bytes: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(bytes).and_then(|()| out.flush());
    ExitCode::SUCCESS
}
