//! `doctor` against the emulator as a GCS lookalike (TLS, tokens, a
//! permission taken away) and against the built-in emulator.

mod common;

use common::lookalike::*;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::Duration;

fn doctor(place: &Place, extra: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let (json, grpc) = (place.emulator.json_url(), place.emulator.grpc_url());
    let mut args = vec!["doctor", "--endpoint", &json, "--grpc-endpoint", &grpc, "--bucket", common::BUCKET];
    args.extend(extra);
    let output = Command::new(common::binary())
        .args(&args)
        .env("SSL_CERT_FILE", place.ca())
        .env("HOME", place.path("home"))
        .env_remove("GOOGLE_APPLICATION_CREDENTIALS")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned())
}

#[tokio::test(flavor = "multi_thread")]
async fn doctor_checks_each_step_and_says_what_fails() {
    let place = place().await;
    let key = place.path("key.json");
    let (code, said) = doctor(&place, &["--auth", "gcs", "--credentials", key.to_str().unwrap()], &[]);
    assert_eq!(code, Some(0), "{said}");
    let steps: Vec<&str> = said.lines().filter_map(|l| l.strip_prefix("ok    ")?.split(':').next()).collect();
    assert_eq!(steps, ["credentials", "token", "target", "bucket", "permissions", "grpc"], "{said}");
    assert!(said.contains(&format!("service_account {SA_EMAIL} from --credentials")), "{said}");
    assert!(said.contains("has storage.objects.create, storage.objects.delete on test-bucket"), "{said}");
    assert_eq!(place.emulator.store().objects_created.load(Ordering::Relaxed), 0, "doctor writes nothing");
    // No token: both APIs refuse, and it says how to send one.
    let (code, said) = doctor(&place, &["--auth", "none"], &[]);
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("FAIL  bucket: the endpoint asks for credentials") && said.contains("add --auth gcs"),
        "{said}"
    );
    // A permission taken away.
    let denied = place_with(Duration::from_secs(3600), &["storage.objects.create"], None).await;
    let key = denied.path("key.json");
    let (code, said) = doctor(&denied, &["--auth", "gcs", "--credentials", key.to_str().unwrap()], &[]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains(&format!("FAIL  permissions: {SA_EMAIL} lacks storage.objects.create")), "{said}");
}

#[tokio::test(flavor = "multi_thread")]
async fn after_a_refused_token_the_steps_that_need_one_are_said_skipped() {
    let place = place().await;
    let mut refused = authorized_user(&format!("{}/token", place.emulator.json_url()));
    refused["refresh_token"] = "1//a-refresh-token-it-never-issued".into();
    std::fs::write(place.path("refused.json"), refused.to_string()).unwrap();
    let refused = place.path("refused.json");
    let (code, said) = doctor(&place, &["--auth", "gcs", "--credentials", refused.to_str().unwrap()], &[]);
    assert_eq!(code, Some(2), "{said}");
    let steps: Vec<(&str, &str)> =
        said.lines().filter_map(|l| Some((l.get(..6)?.trim_end(), l.get(6..)?.split(':').next()?))).collect();
    assert_eq!(
        steps,
        [
            ("ok", "credentials"),
            ("FAIL", "token"),
            ("ok", "target"),
            ("skip", "bucket"),
            ("skip", "permissions"),
            ("skip", "grpc")
        ],
        "every step has its line, in order: {said}"
    );
    assert!(said.contains("skip  bucket: not tried without a token (fix the line above first)"), "{said}");
}

#[test]
fn doctor_says_why_no_token_was_sent_to_a_plaintext_endpoint() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let emulator = runtime.block_on(common::emulator());
    let grpc = emulator.grpc_addr().to_string();
    let args = ["doctor", "--endpoint", &emulator.json_url(), "--grpc-endpoint", &grpc, "--bucket", common::BUCKET];
    let output = common::run(&args, &[]);
    let said = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(
        said.starts_with(&format!("ok    credentials: none sent ({})\n", gcs_speed_tui::config::AUTH_AUTO_RULE)),
        "the rule README states, not a guess about the target: {said}"
    );
}

#[test]
fn doctor_checks_the_built_in_emulator_without_options() {
    let output = common::run(&["doctor"], &[]);
    let said = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(
        said.contains("ok    bucket: gcs-speed-tui-bench exists") && said.contains("ok    grpc: channel open"),
        "{said}"
    );
    assert!(said.ends_with("all checks passed: `gcs-speed-tui run` with the same options should work\n"), "{said}");
    assert!(said.starts_with("note  no --bucket and no endpoint: checking the built-in emulator"), "{said}");
}

/// `--emulator --bucket B`: the note says the emulator was asked for, with B,
/// not that no bucket was given.
#[test]
fn doctor_on_the_emulator_with_a_bucket_names_it() {
    let output = common::run(&["doctor", "--emulator", "--bucket", "my-bucket"], &[]);
    let said = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{said}");
    assert!(said.starts_with("note  --emulator: checking the built-in emulator with bucket my-bucket"), "{said}");
    assert!(!said.contains("no --bucket"), "{said}");
    assert!(said.contains("ok    bucket: my-bucket exists"), "{said}");
}
