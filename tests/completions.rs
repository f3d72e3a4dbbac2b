//! `completions SHELL` and `man`: scripts a shell accepts and that complete
//! nested commands and their flags (run here in a real bash), and a man page
//! that names every command.

mod common;

use common::run;

/// What bash offers for `words` (the last one being completed), with the
/// script the binary printed sourced.
fn bash_offers(script: &str, words: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gcs-speed-tui.bash");
    std::fs::write(&path, script).unwrap();
    let (current, previous) = (words[words.len() - 1], words[words.len() - 2]);
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; _gcs__speed__tui gcs-speed-tui '{current}' '{previous}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        path.display(),
        quoted.join(" "),
        words.len() - 1
    );
    let output = std::process::Command::new("bash").args(["-c", &program]).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).lines().filter(|l| !l.is_empty()).map(String::from).collect()
}

#[test]
fn the_bash_script_parses_and_completes_commands_nested_commands_and_their_flags() {
    let output = run(&["completions", "bash"], &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let script = String::from_utf8(output.stdout).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.bash");
    std::fs::write(&path, &script).unwrap();
    let parsed = std::process::Command::new("bash").arg("-n").arg(&path).output().unwrap();
    assert!(parsed.status.success(), "bash -n: {}", String::from_utf8_lossy(&parsed.stderr));
    assert_eq!(bash_offers(&script, &["gcs-speed-tui", "gr"]), ["grpc"]);
    assert_eq!(bash_offers(&script, &["gcs-speed-tui", "grpc", "d"]), ["doctor"]);
    assert_eq!(bash_offers(&script, &["gcs-speed-tui", "grpc", "run", "--sam"]), ["--samples"]);
    assert_eq!(bash_offers(&script, &["gcs-speed-tui", "etcd", "run", "--key-s"]), ["--key-size", "--key-space"]);
    assert_eq!(bash_offers(&script, &["gcs-speed-tui", "run", "--worklo"]), ["--workload"]);
    assert_eq!(bash_offers(&script, &["gcs-speed-tui", "completions", "fi"]), ["fish"]);
}

#[test]
fn every_shell_gets_a_script_and_the_man_page_names_every_command() {
    for shell in ["zsh", "fish", "powershell", "elvish"] {
        let output = run(&["completions", shell], &[]);
        let script = String::from_utf8_lossy(&output.stdout);
        // Each names the nested doctor and a flag of grpc run's (fish without the dashes).
        assert!(output.status.success() && script.contains("doctor") && script.contains("samples"), "{shell}");
    }
    let output = run(&["completions", "ksh"], &[]);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(said.contains("'ksh'") && said.contains("bash, elvish, fish, powershell, zsh"), "{said}");
    let output = run(&["man"], &[]);
    let page = String::from_utf8(output.stdout).unwrap();
    assert!(page.contains(".TH gcs-speed-tui 1"), "{page}");
    for command in ["run", "doctor", "etcd", "grpc", "emulator", "merge", "compare", "completions", "man"] {
        assert!(page.contains(&format!("gcs\\-speed\\-tui\\-{command}(1)")), "{command}: {page}");
    }
}
