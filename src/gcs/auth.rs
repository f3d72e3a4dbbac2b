//! Credentials for real GCS, looked up in the original tool's order:
//! `--credentials`, GOOGLE_APPLICATION_CREDENTIALS, GCP_SERVICE_ACCOUNT_JSON,
//! GOOGLE_CREDENTIALS, GCP_SERVICE_ACCOUNT_JSON_B64, ./service-account.json,
//! then Application Default Credentials. Which source was used is reported;
//! its content never is.

use gcp_auth::{CustomServiceAccount, TokenProvider};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const SCOPE: &str = "https://www.googleapis.com/auth/devstorage.read_write";
const LOCAL_KEY_FILE: &str = "service-account.json";

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("cannot read the credentials file {path}: {reason}; check the path and its permissions")]
    Unreadable { path: PathBuf, reason: String },
    #[error(
        "{source_name} is not a service account key (a JSON file with \"type\": \"service_account\", client_email and private_key); for user credentials run `gcloud auth application-default login` and leave it unset"
    )]
    NotAServiceAccount { source_name: String },
    #[error("{source_name} is not JSON: a credentials file is the JSON key file downloaded for a service account")]
    NotJson { source_name: String },
    #[error("{path} is not a text file: a credentials file is JSON; check that the path names the key file")]
    NotText { path: PathBuf },
    #[error("the private_key in {source_name} is not a valid PEM key: download a new key for that service account")]
    BadPrivateKey { source_name: String },
    #[error("GCP_SERVICE_ACCOUNT_JSON_B64 is not valid base64; encode the key with `base64 -w0 key.json`")]
    BadBase64,
    #[error(
        "no credentials found: pass --credentials KEY.json, set GOOGLE_APPLICATION_CREDENTIALS, or run `gcloud auth application-default login` (or use --emulator to try without GCP)"
    )]
    NoneFound,
    #[error("could not get an access token from {source_name}: {reason}")]
    Token { source_name: String, reason: String },
}

/// The variables the lookup reads, passed in so that tests need no globals.
#[derive(Clone, Debug, Default)]
pub struct CredentialEnv {
    pub google_application_credentials: Option<String>,
    pub gcp_service_account_json: Option<String>,
    pub google_credentials: Option<String>,
    pub gcp_service_account_json_b64: Option<String>,
    /// Where `./service-account.json` is looked for.
    pub working_dir: PathBuf,
}

impl CredentialEnv {
    pub fn from_process() -> Self {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.trim().is_empty());
        Self {
            google_application_credentials: var("GOOGLE_APPLICATION_CREDENTIALS"),
            gcp_service_account_json: var("GCP_SERVICE_ACCOUNT_JSON"),
            google_credentials: var("GOOGLE_CREDENTIALS"),
            gcp_service_account_json_b64: var("GCP_SERVICE_ACCOUNT_JSON_B64"),
            working_dir: std::env::current_dir().unwrap_or_default(),
        }
    }
}

/// Bearer tokens for requests, or none for emulators.
#[derive(Clone)]
pub struct Auth {
    source: String,
    provider: Option<Arc<dyn TokenProvider>>,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Auth({})", self.source)
    }
}

impl Auth {
    /// Emulators and private endpoints take no credentials.
    pub fn none() -> Self {
        Self { source: "none (emulator)".into(), provider: None }
    }

    /// Finds credentials; the first source that is set is used, and a broken
    /// one is an error rather than a silent fall-through.
    pub async fn discover(flag: Option<&Path>, env: &CredentialEnv) -> Result<Auth, AuthError> {
        if let Some(path) = flag {
            return from_file(path, format!("--credentials {}", path.display()));
        }
        if let Some(path) = &env.google_application_credentials {
            return from_file(Path::new(path), format!("GOOGLE_APPLICATION_CREDENTIALS ({path})"));
        }
        if let Some(json) = &env.gcp_service_account_json {
            return from_json(json, "GCP_SERVICE_ACCOUNT_JSON");
        }
        if let Some(json) = &env.google_credentials {
            return from_json(json, "GOOGLE_CREDENTIALS");
        }
        if let Some(encoded) = &env.gcp_service_account_json_b64 {
            use base64::Engine;
            let raw =
                base64::engine::general_purpose::STANDARD.decode(encoded.trim()).map_err(|_| AuthError::BadBase64)?;
            let json = String::from_utf8(raw).map_err(|_| AuthError::BadBase64)?;
            return from_json(&json, "GCP_SERVICE_ACCOUNT_JSON_B64");
        }
        let local = env.working_dir.join(LOCAL_KEY_FILE);
        if local.exists() {
            return from_file(&local, format!("./{LOCAL_KEY_FILE}"));
        }
        let provider = gcp_auth::provider().await.map_err(|_| AuthError::NoneFound)?;
        Ok(Auth { source: "Application Default Credentials".into(), provider: Some(provider) })
    }

    /// Where the credentials came from, safe to print.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// `Bearer TOKEN` for the next request (tokens are cached until they expire).
    pub async fn bearer(&self) -> Result<Option<String>, AuthError> {
        let Some(provider) = &self.provider else {
            return Ok(None);
        };
        let token = provider
            .token(&[SCOPE])
            .await
            .map_err(|e| AuthError::Token { source_name: self.source.clone(), reason: redact(&e.to_string()) })?;
        Ok(Some(format!("Bearer {}", token.as_str())))
    }
}

fn from_file(path: &Path, source_name: String) -> Result<Auth, AuthError> {
    let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => AuthError::NotText { path: path.to_path_buf() },
        kind => AuthError::Unreadable { path: path.to_path_buf(), reason: kind.to_string() },
    })?;
    from_json(&text, &source_name)
}

fn from_json(json: &str, source_name: &str) -> Result<Auth, AuthError> {
    let not_a_key = || AuthError::NotAServiceAccount { source_name: source_name.to_string() };
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|_| AuthError::NotJson { source_name: source_name.to_string() })?;
    if value["type"] != "service_account" || !value["private_key"].is_string() || !value["client_email"].is_string() {
        return Err(not_a_key());
    }
    let account = CustomServiceAccount::from_json(json)
        .map_err(|_| AuthError::BadPrivateKey { source_name: source_name.to_string() })?;
    Ok(Auth { source: source_name.to_string(), provider: Some(Arc::new(account)) })
}

/// Error texts from token endpoints can echo request parts: keep only what
/// cannot carry a secret.
fn redact(text: &str) -> String {
    if text.contains("PRIVATE KEY") || text.contains("Bearer") || text.contains("ya29.") {
        "the token endpoint refused the request".into()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A syntactically valid key whose private key is a throwaway test key.
    pub(crate) fn fake_key() -> String {
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

    const TEST_PRIVATE_KEY: &str = include_str!("../../tests/data/test-key.pem");

    fn env() -> CredentialEnv {
        CredentialEnv { working_dir: std::env::temp_dir().join("gcs-speed-tui-no-key-here"), ..Default::default() }
    }

    #[tokio::test]
    async fn the_flag_wins_and_names_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let key = dir.path().join("key.json");
        std::fs::write(&key, fake_key()).unwrap();
        let e = CredentialEnv { gcp_service_account_json: Some("{}".into()), ..env() };
        let auth = Auth::discover(Some(&key), &e).await.unwrap();
        assert!(auth.source().starts_with("--credentials"));
        assert!(!format!("{auth:?}").contains("PRIVATE"));
    }

    #[tokio::test]
    async fn env_sources_are_taken_in_order() {
        let e =
            CredentialEnv { gcp_service_account_json: Some(fake_key()), google_credentials: Some("x".into()), ..env() };
        assert_eq!(Auth::discover(None, &e).await.unwrap().source(), "GCP_SERVICE_ACCOUNT_JSON");
        let e = CredentialEnv { google_credentials: Some(fake_key()), ..env() };
        assert_eq!(Auth::discover(None, &e).await.unwrap().source(), "GOOGLE_CREDENTIALS");
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD.encode(fake_key());
        let e = CredentialEnv { gcp_service_account_json_b64: Some(b64), ..env() };
        assert_eq!(Auth::discover(None, &e).await.unwrap().source(), "GCP_SERVICE_ACCOUNT_JSON_B64");
    }

    #[tokio::test]
    async fn the_local_key_file_is_found() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LOCAL_KEY_FILE), fake_key()).unwrap();
        let e = CredentialEnv { working_dir: dir.path().into(), ..Default::default() };
        assert_eq!(Auth::discover(None, &e).await.unwrap().source(), "./service-account.json");
    }

    #[tokio::test]
    async fn broken_sources_say_what_is_wrong_without_content() {
        let missing = Auth::discover(Some(Path::new("/nonexistent/key.json")), &env()).await.unwrap_err();
        assert!(missing.to_string().contains("cannot read the credentials file /nonexistent/key.json"));
        let e = CredentialEnv { gcp_service_account_json_b64: Some("!!!".into()), ..env() };
        assert!(matches!(Auth::discover(None, &e).await, Err(AuthError::BadBase64)));
        let user = r#"{"type":"authorized_user","refresh_token":"secret-refresh"}"#;
        let e = CredentialEnv { google_credentials: Some(user.into()), ..env() };
        let error = Auth::discover(None, &e).await.unwrap_err().to_string();
        assert!(error.contains("GOOGLE_CREDENTIALS is not a service account key"));
        assert!(!error.contains("secret-refresh"));
        let e = CredentialEnv { google_credentials: Some("not json".into()), ..env() };
        let error = Auth::discover(None, &e).await.unwrap_err().to_string();
        assert!(error.starts_with("GOOGLE_CREDENTIALS is not JSON"), "{error}");
        let bad_pem = fake_key().replace("MII", "xxMII");
        let e = CredentialEnv { google_credentials: Some(bad_pem), ..env() };
        let error = Auth::discover(None, &e).await.unwrap_err().to_string();
        assert!(error.starts_with("the private_key in GOOGLE_CREDENTIALS is not a valid PEM key"), "{error}");
        let dir = tempfile::tempdir().unwrap();
        let binary = dir.path().join("key.p12");
        std::fs::write(&binary, [0x30, 0x82, 0xff, 0xfe, 0x00]).unwrap();
        let error = Auth::discover(Some(&binary), &env()).await.unwrap_err().to_string();
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
}
