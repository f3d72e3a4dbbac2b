//! `gcs-speed-tui emulator` as a server of its own: two at once, each with
//! TLS, must not share (or overwrite) each other's CA file, and the file each
//! made is gone when it stops.

mod common;
use common::*;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Child, ChildStderr};

struct TlsEmulator {
    child: Child,
    json: String,
    grpc: String,
    ca: PathBuf,
    stderr: BufReader<ChildStderr>,
}

fn start_tls_emulator(bucket: &str) -> TlsEmulator {
    let (mut child, first) = spawn_emulator(&["--tls", "--bucket", bucket]);
    let (json, grpc) = first.split_once(' ').expect(&first);
    let (json, grpc) =
        (json.strip_prefix("json=").unwrap().to_string(), grpc.strip_prefix("grpc=").unwrap().to_string());
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    let ca = loop {
        let mut line = String::new();
        assert!(stderr.read_line(&mut line).unwrap() > 0, "the emulator said where its CA is: {said}");
        said.push_str(&line);
        if let Some(rest) = line.strip_prefix("TLS: the emulator's CA is in ") {
            break PathBuf::from(rest.split(" (").next().unwrap());
        }
    };
    TlsEmulator { child, json, grpc, ca, stderr }
}

impl TlsEmulator {
    /// Ctrl-C, then everything else it printed.
    fn stop(mut self) -> String {
        // SAFETY: a signal to a child we started and have not reaped.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGINT) };
        assert!(self.child.wait().unwrap().success());
        let mut rest = String::new();
        self.stderr.read_to_string(&mut rest).unwrap();
        rest
    }
}

#[test]
fn two_tls_emulators_keep_a_ca_file_each_and_remove_it_when_they_stop() {
    let first = start_tls_emulator("first-bucket");
    let second = start_tls_emulator("second-bucket");
    assert_ne!(first.ca, second.ca, "each emulator has a CA file of its own");
    for emulator in [&first, &second] {
        let pem = std::fs::read_to_string(&emulator.ca).unwrap();
        assert!(pem.starts_with("-----BEGIN CERTIFICATE-----"), "{pem}");
    }
    let first_pem = std::fs::read_to_string(&first.ca).unwrap();
    assert_ne!(first_pem, std::fs::read_to_string(&second.ca).unwrap(), "two CAs made, neither overwritten");
    // A client of each trusts its own emulator's file, while both run.
    for (emulator, bucket) in [(&first, "first-bucket"), (&second, "second-bucket")] {
        let ca = emulator.ca.to_str().unwrap();
        let args = ["run", "--size", "256KiB", "--iterations", "1", "--warmup-size", "256KiB", "--bucket", bucket];
        let output = run(
            &[&args[..], &["--endpoint", &emulator.json, "--grpc-endpoint", &emulator.grpc, "--ca-cert", ca]].concat(),
            &[],
        );
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    let (first_ca, second_ca) = (first.ca.clone(), second.ca.clone());
    first.stop();
    assert!(!first_ca.exists(), "the first emulator removed {} when it stopped", first_ca.display());
    assert!(second_ca.exists(), "and left the second's alone");
    second.stop();
    assert!(!second_ca.exists(), "{} removed", second_ca.display());
}

#[test]
fn a_ca_out_file_is_the_users_and_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let asked = dir.path().join("ca.pem");
    let (mut child, _) = spawn_emulator(&["--tls", "--ca-out", asked.to_str().unwrap()]);
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert_eq!(
        line.trim(),
        format!("TLS: the emulator's CA is in {} (clients trust it with --ca-cert)", asked.display())
    );
    // SAFETY: a signal to a child we started and have not reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    assert!(child.wait().unwrap().success());
    assert!(std::fs::read_to_string(&asked).unwrap().starts_with("-----BEGIN CERTIFICATE-----"));
}

#[test]
fn the_ready_hint_names_the_bucket_it_was_given() {
    let emulator = start_tls_emulator("hinted-bucket");
    let ca = emulator.ca.display().to_string();
    let (json, grpc) = (emulator.json.clone(), emulator.grpc.clone());
    let mut hint = String::new();
    let mut stderr = emulator.stderr;
    stderr.read_line(&mut hint).unwrap();
    stderr.read_line(&mut hint).unwrap();
    let emulator = TlsEmulator { stderr, ..emulator };
    emulator.stop();
    assert!(
        hint.contains(&format!(
            "gcs-speed-tui run --endpoint {json} --grpc-endpoint {grpc} --ca-cert {ca} --bucket hinted-bucket"
        )),
        "{hint}"
    );
}
