//! Secrets never show: a run with a (throwaway) service account key and
//! trace logging prints neither the key, a token, a signed assertion nor an
//! Authorization header, and still says which source it used.

mod common;
use common::*;
use std::process::Command;

const KEY_PEM: &str = include_str!("data/test-key.pem");

fn fake_key() -> String {
    serde_json::json!({
        "type": "service_account",
        "project_id": "test-project",
        "private_key_id": "abc",
        "private_key": KEY_PEM,
        "client_email": "bench@test-project.iam.gserviceaccount.com",
        "client_id": "1",
        // Nothing listens there: the token request fails on loopback.
        "token_uri": "http://127.0.0.1:9/token",
    })
    .to_string()
}

fn assert_no_secret(text: &str) {
    let body_line = KEY_PEM.lines().nth(2).unwrap();
    for secret in ["PRIVATE KEY", body_line, "Bearer ", "eyJ", "ya29."] {
        assert!(!text.contains(secret), "found {secret:?} in:\n{text}");
    }
}

#[test]
fn a_key_and_its_tokens_never_reach_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("key.json");
    std::fs::write(&key, fake_key()).unwrap();
    let output = Command::new(binary())
        .args(["run", "--bucket", "some-bucket", "--credentials", key.to_str().unwrap()])
        .env("RUST_LOG", "trace")
        .env_remove("STORAGE_EMULATOR_HOST")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("could not get an access token with the service_account credentials from --credentials"),
        "{stderr}"
    );
    assert_no_secret(&stderr);
    assert_no_secret(&String::from_utf8_lossy(&output.stdout));
}

#[test]
fn keys_given_in_the_environment_are_not_echoed_either() {
    use base64::Engine;
    for (variable, value) in [
        ("GCP_SERVICE_ACCOUNT_JSON", fake_key()),
        ("GCP_SERVICE_ACCOUNT_JSON_B64", base64::engine::general_purpose::STANDARD.encode(fake_key())),
    ] {
        let output = Command::new(binary())
            .args(["run", "--bucket", "some-bucket"])
            .env(variable, &value)
            .env("RUST_LOG", "trace")
            .env_remove("GOOGLE_APPLICATION_CREDENTIALS")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!(
                "could not get an access token with the service_account credentials from {variable}"
            )),
            "{stderr}"
        );
        assert_no_secret(&stderr);
        assert!(!stderr.contains(&value[..40]), "the variable's value was echoed");
    }
}
