//! The `emulator` command as a process of its own, and the `run` arguments
//! its ready hint gives for it.

/// Starts `gcs-speed-tui emulator --bucket BUCKET EXTRA...`; the child and
/// the `run` arguments that point at it.
pub fn emulator(bucket: &str, extra: &[&str]) -> (std::process::Child, Vec<String>) {
    use std::io::BufRead;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui"));
    command.args(["emulator", "--bucket", bucket]).args(extra);
    let mut child = command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let (hint, heard) = std::sync::mpsc::channel();
    // The hint is on stderr (stdout has the addresses alone, for scripts).
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    // Read on to the end: a closed pipe would fail the emulator's next line.
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            if let Some(args) = line.trim().strip_prefix("gcs-speed-tui run ") {
                let _ = hint.send(args.split_whitespace().map(String::from).collect::<Vec<_>>());
            }
        }
    });
    let args = heard.recv_timeout(std::time::Duration::from_secs(30)).expect("the emulator's ready hint");
    (child, args)
}
