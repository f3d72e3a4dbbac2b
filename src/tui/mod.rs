//! The interactive app.

use crate::config::Options;
use std::process::ExitCode;

pub async fn start(_options: Options) -> ExitCode {
    eprintln!("error: the interactive app is not built yet: use `gcs-speed-tui run`");
    ExitCode::from(2)
}
