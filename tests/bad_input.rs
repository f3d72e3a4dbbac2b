//! Bad input, on the real binary: every mistake a person makes gets one
//! sentence on stderr (what is wrong, what to do) and exit 2, never a panic,
//! a Debug dump or a library's log lines.

mod common;
use common::*;
use std::process::Command;

#[test]
fn bad_input_is_one_sentence_and_exit_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--size", "12XB"], "error: --size: '12XB' is not a size"),
        (&["run", "--iterations", "0"], "error: --iterations must be between 1 and"),
        (&["run", "--bucket", "Not_Valid"], "error: --bucket: 'Not_Valid' is not a valid bucket name"),
        (&["run", "--timeout", "forever"], "error: --timeout: 'forever' is not a duration"),
        (&["run", "--output", "/nonexistent/dir/report.txt"], "error: cannot write /nonexistent/dir/report.txt"),
        (
            &["run", "--bucket", "my-bucket", "--credentials", "/nonexistent/key.json"],
            "error: cannot read the credentials file /nonexistent/key.json",
        ),
        (&["run", "--cleanup=maybe"], "'maybe' is not a boolean"),
        (&["run", "--cleanup", "false"], "a true/false flag takes its value after '=', like --cleanup=false"),
        (&["run", "--bucket", "192.168.1.1"], "GCS forbids IP addresses as names"),
        (&["run", "--endpoint", "ftp://x"], "error: --endpoint 'ftp://x' is not an http:// or https:// address"),
        (&["run", "--credentials", "key.json"], "error: --credentials needs --bucket"),
        (&["run", "--iterations", "2", "--iterations", "3"], "cannot be used multiple times; run with --help"),
        (&["--size", "12XB"], "error: --size: '12XB' is not a size"),
        (&["emulator", "--bucket", "Bad_Name"], "'Bad_Name' is not a valid bucket name"),
        (&["emulator", "--bandwidth", "200"], "error: --bandwidth: '200' is not a rate: use a number with a unit"),
        (&["emulator", "--bandwidth", "0Mbit"], "leave the flag out for an unlimited link"),
        (&["emulator", "--latency", "20"], "error: --latency: '20' is not a duration"),
        (&["emulator", "--frame-size", "8KiB"], "error: --frame-size: '8KiB' must be a size from 16KiB to 16777215B"),
        (&["emulator", "--frame-size", "16MiB"], "error: --frame-size: '16MiB' must be a size from 16KiB to 16777215B"),
    ];
    for (args, expected) in cases {
        let output = run(args, &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(stderr.starts_with("error: ") && stderr.lines().count() == 1, "{args:?}: one sentence: {stderr}");
        assert!(!stderr.contains("panicked") && !stderr.contains("{ "), "no panic or Debug dump: {stderr}");
        assert!(output.stdout.is_empty());
    }
}

/// A port already taken is said as such, for either port, and nothing panics.
#[test]
fn the_emulator_on_a_port_in_use_says_so() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    for flag in ["--http-port", "--grpc-port"] {
        let output = run(&["emulator", flag, &port], &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag}: {stderr}");
        let expected = format!(
            "error: cannot start the emulator: port {port} is already in use: choose another {flag}, or 0 for any free port\n"
        );
        assert_eq!(stderr, expected);
    }
}

#[test]
fn bad_emulator_flags_are_refused() {
    for (args, expected) in [
        (vec!["emulator", "--fault", "explode"], "error: --fault: 'explode' is not a fault instruction"),
        (vec!["emulator", "--latency", "slow"], "error: --latency:"),
        (vec!["emulator", "--bandwidth", "fast"], "error: --bandwidth:"),
    ] {
        let output = run(&args, &[]);
        assert_eq!(output.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&output.stderr).contains(expected));
    }
}

#[test]
fn more_bad_input_gets_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let user_key = dir.path().join("user.json");
    std::fs::write(&user_key, r#"{"type":"authorized_user","refresh_token":"r"}"#).unwrap();
    let user_key = user_key.to_str().unwrap().to_string();
    /// Arguments, environment, and the sentence expected on stderr.
    type Case<'a> = (Vec<&'a str>, Vec<(&'a str, &'a str)>, &'a str);
    let cases: Vec<Case> = vec![
        (vec!["run", "--concurrency", "100000"], vec![], "error: --concurrency must be between 1 and 1024"),
        (vec!["run", "--size", "6TiB"], vec![], "error: --size must be between 1 B and 5 TiB"),
        (vec!["run", "--bucket", "my-bucket", "--credentials", &user_key], vec![], "credentials from --credentials"),
        (
            vec!["run", "--bucket", "my-bucket"],
            vec![("GCP_SERVICE_ACCOUNT_JSON_B64", "not base64!")],
            "error: GCP_SERVICE_ACCOUNT_JSON_B64 is not valid base64",
        ),
        (vec!["run", "--grpc-window", "1KiB"], vec![], "error: --grpc-window must be from 64KiB to 2GiB"),
        (vec!["run", "--max-retries", "many"], vec![], "error: --max-retries 'many' is not a whole number"),
        (vec!["run", "--request-timeout", "0s"], vec![], "error: --request-timeout must be above zero"),
        (
            vec!["etcd", "run", "--transports", "grpc-read-object,grpc"],
            vec![],
            "error: --transports grpc-read-object is for GCS ranges runs",
        ),
    ];
    for (args, env, expected) in cases {
        let output = run(&args, &env);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
    }
}

/// No credentials anywhere: one sentence and exit 2, with no library log
/// lines (gcp_auth retrying the metadata server) before it; RUST_LOG still
/// shows them on request.
#[test]
fn missing_credentials_are_one_sentence_without_library_logs() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path().to_str().unwrap();
    let quiet = |extra: &[(&str, &str)]| {
        let mut command = Command::new(binary());
        command.args(["run", "--bucket", "my-bucket"]).current_dir(home).env("HOME", home);
        for name in ["GOOGLE_APPLICATION_CREDENTIALS", "GCP_SERVICE_ACCOUNT_JSON", "GOOGLE_CREDENTIALS"] {
            command.env_remove(name);
        }
        command.env_remove("GCP_SERVICE_ACCOUNT_JSON_B64").env_remove("RUST_LOG").env_remove("CLOUDSDK_CONFIG");
        command.envs(extra.iter().copied()).output().unwrap()
    };
    let output = quiet(&[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("error: no credentials found: pass --credentials KEY.json"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let verbose = quiet(&[("RUST_LOG", "debug")]);
    assert!(String::from_utf8_lossy(&verbose.stderr).lines().count() > 1, "RUST_LOG shows the library's logs");
}
