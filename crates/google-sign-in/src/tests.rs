//! Where credentials are found, and what is said of broken ones.

use super::*;

/// A syntactically valid key whose private key is a throwaway test key.
fn fake_key() -> String {
    serde_json::json!({
        "type": "service_account",
        "project_id": "test-project",
        "private_key_id": "abc",
        "private_key": TEST_PRIVATE_KEY,
        "client_email": "bench@test-project.iam.gserviceaccount.com",
        "client_id": "1",
        "token_uri": "http://127.0.0.1:9/token",
    })
    .to_string()
}

const TEST_PRIVATE_KEY: &str = include_str!("../../../tests/data/test-key.pem");

fn env() -> CredentialEnv {
    CredentialEnv {
        working_dir: std::env::temp_dir().join("gcs-speed-tui-no-key-here"),
        // Nothing listens there: no metadata server.
        metadata_host: Some("127.0.0.1:9".into()),
        ..Default::default()
    }
}

#[tokio::test]
async fn the_flag_wins_and_names_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("key.json");
    std::fs::write(&key, fake_key()).unwrap();
    let e = CredentialEnv { gcp_service_account_json: Some("{}".into()), ..env() };
    let auth = Auth::discover(Some(&key), &e, &[CLOUD_PLATFORM]).await.unwrap();
    assert!(auth.source().starts_with("--credentials"));
    assert!(!format!("{auth:?}").contains("PRIVATE"));
}

#[tokio::test]
async fn env_sources_are_taken_in_order() {
    let e = CredentialEnv { gcp_service_account_json: Some(fake_key()), google_credentials: Some("x".into()), ..env() };
    assert_eq!(Auth::discover(None, &e, &[CLOUD_PLATFORM]).await.unwrap().source(), "GCP_SERVICE_ACCOUNT_JSON");
    let e = CredentialEnv { google_credentials: Some(fake_key()), ..env() };
    assert_eq!(Auth::discover(None, &e, &[CLOUD_PLATFORM]).await.unwrap().source(), "GOOGLE_CREDENTIALS");
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(fake_key());
    let e = CredentialEnv { gcp_service_account_json_b64: Some(b64), ..env() };
    assert_eq!(Auth::discover(None, &e, &[CLOUD_PLATFORM]).await.unwrap().source(), "GCP_SERVICE_ACCOUNT_JSON_B64");
}

#[tokio::test]
async fn the_local_key_file_is_found() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(LOCAL_KEY_FILE), fake_key()).unwrap();
    let e = CredentialEnv { working_dir: dir.path().into(), ..env() };
    assert_eq!(Auth::discover(None, &e, &[CLOUD_PLATFORM]).await.unwrap().source(), "./service-account.json");
}

#[tokio::test]
async fn broken_sources_say_what_is_wrong_without_content() {
    let missing =
        Auth::discover(Some(Path::new("/nonexistent/key.json")), &env(), &[CLOUD_PLATFORM]).await.unwrap_err();
    assert!(missing.to_string().contains("cannot read the credentials file /nonexistent/key.json"));
    let e = CredentialEnv { gcp_service_account_json_b64: Some("!!!".into()), ..env() };
    assert!(matches!(Auth::discover(None, &e, &[CLOUD_PLATFORM]).await, Err(AuthError::BadBase64)));
    let p12 = r#"{"type":"p12","secret":"secret-refresh"}"#;
    let e = CredentialEnv { google_credentials: Some(p12.into()), ..env() };
    let error = Auth::discover(None, &e, &[CLOUD_PLATFORM]).await.unwrap_err().to_string();
    assert!(error.starts_with("GOOGLE_CREDENTIALS is a \"p12\" credential, which this tool cannot use"), "{error}");
    assert!(!error.contains("secret-refresh"));
    let e = CredentialEnv { google_credentials: Some("not json".into()), ..env() };
    let error = Auth::discover(None, &e, &[CLOUD_PLATFORM]).await.unwrap_err().to_string();
    assert!(error.starts_with("GOOGLE_CREDENTIALS is not JSON"), "{error}");
    let bad_pem = fake_key().replace("MII", "xxMII");
    let e = CredentialEnv { google_credentials: Some(bad_pem), ..env() };
    let error = Auth::discover(None, &e, &[CLOUD_PLATFORM]).await.unwrap_err().to_string();
    assert!(error.starts_with("the private_key in GOOGLE_CREDENTIALS is not a valid PEM key"), "{error}");
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("key.p12");
    std::fs::write(&binary, [0x30, 0x82, 0xff, 0xfe, 0x00]).unwrap();
    let error = Auth::discover(Some(&binary), &env(), &[CLOUD_PLATFORM]).await.unwrap_err().to_string();
    assert!(
        error.ends_with(
            "key.p12 is not a text file: a credentials file is JSON; check that the path names the key file"
        ),
        "{error}"
    );
}

#[tokio::test]
async fn emulators_send_no_token() {
    assert_eq!(Auth::none().bearer().await.unwrap(), None);
}
