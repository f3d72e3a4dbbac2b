//! Google sign-in for any target that calls a Google API (GCS's `run`,
//! `grpc run --auth google`). Credentials are looked up in the original
//! tool's order: `--credentials`, GOOGLE_APPLICATION_CREDENTIALS,
//! GCP_SERVICE_ACCOUNT_JSON, GOOGLE_CREDENTIALS, GCP_SERVICE_ACCOUNT_JSON_B64,
//! ./service-account.json, then Application Default Credentials (gcloud's
//! file, then the metadata server of a GCE VM or GKE pod). Any type Google's
//! client libraries accept (see `credential`). Which source and type were
//! used is reported, and the account when the file names it; the content
//! never is.

mod credential;
pub mod doctor;

pub use credential::Kind;
use credential::{Parsed, Provider};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What `grpc run --auth google` asks for unless `--scopes` says otherwise.
pub const CLOUD_PLATFORM: &str = "https://www.googleapis.com/auth/cloud-platform";
const LOCAL_KEY_FILE: &str = "service-account.json";
const METADATA_HOST: &str = "metadata.google.internal";

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("cannot read the credentials file {path}: {reason}; check the path and its permissions")]
    Unreadable { path: PathBuf, reason: String },
    #[error(
        "{source_name} is a {} credential, which this tool cannot use: give a service_account key, an authorized_user file (`gcloud auth application-default login`), an impersonated_service_account or an external_account (workload identity federation) file",
        found.as_deref().map(|t| format!("{t:?}")).unwrap_or_else(|| "typeless".into())
    )]
    UnknownType { source_name: String, found: Option<String> },
    #[error(
        "{source_name} is a service account key without client_email or private_key: download a new key for that service account"
    )]
    IncompleteKey { source_name: String },
    #[error(
        "{source_name} is not JSON: a credentials file is the JSON file Google gives (a key, or gcloud's application_default_credentials.json)"
    )]
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
    #[error("the {kind} credentials from {source_name} cannot be used: {reason}")]
    Unusable { source_name: String, kind: &'static str, reason: String },
    #[error("could not get an access token with the {kind} credentials from {source_name}: {reason}")]
    Token { source_name: String, kind: &'static str, reason: String },
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
    /// gcloud's configuration directory (CLOUDSDK_CONFIG, else ~/.config/gcloud),
    /// where `application_default_credentials.json` lives.
    pub gcloud_config: Option<PathBuf>,
    /// GCE_METADATA_HOST: the metadata server, when not metadata.google.internal.
    pub metadata_host: Option<String>,
}

impl CredentialEnv {
    pub fn from_process() -> Self {
        let var = |name| std::env::var(name).ok().filter(|v: &String| !v.trim().is_empty());
        let gcloud_config = var("CLOUDSDK_CONFIG")
            .map(PathBuf::from)
            .or_else(|| var("HOME").map(|home| Path::new(&home).join(".config/gcloud")));
        Self {
            google_application_credentials: var("GOOGLE_APPLICATION_CREDENTIALS"),
            gcp_service_account_json: var("GCP_SERVICE_ACCOUNT_JSON"),
            google_credentials: var("GOOGLE_CREDENTIALS"),
            gcp_service_account_json_b64: var("GCP_SERVICE_ACCOUNT_JSON_B64"),
            working_dir: std::env::current_dir().unwrap_or_default(),
            gcloud_config,
            metadata_host: var("GCE_METADATA_HOST"),
        }
    }
}

/// Bearer tokens for requests, or none for emulators.
#[derive(Clone)]
pub struct Auth {
    source: String,
    credential: Option<Arc<Held>>,
}

/// A credential in use: what it is, its current token source, and how many
/// times a refused token made it start over.
struct Held {
    parsed: Parsed,
    /// The OAuth scopes its tokens are asked for.
    scopes: Vec<String>,
    provider: std::sync::Mutex<(Provider, Instant)>,
    refreshes: AtomicU64,
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Auth({})", self.describe())
    }
}

/// Refusals closer together than this share one refresh (many requests in
/// flight are refused at once when a token is revoked).
const REFRESH_COALESCE: Duration = Duration::from_secs(1);

impl Auth {
    /// Emulators and private endpoints take no credentials.
    pub fn none() -> Self {
        Self { source: "none (emulator)".into(), credential: None }
    }

    /// Finds credentials whose tokens are for `scopes`; the first source
    /// that is set is used, and a broken one is an error rather than a
    /// silent fall-through.
    pub async fn discover(flag: Option<&Path>, env: &CredentialEnv, scopes: &[&str]) -> Result<Auth, AuthError> {
        let scopes: Vec<String> = scopes.iter().map(|s| s.to_string()).collect();
        let (parsed, source) = match Self::found(flag, env).await? {
            Found::File(path, source) => (Parsed::from_json(&read(&path)?, &source)?, source),
            Found::Text(json, source) => (Parsed::from_json(&json, &source)?, source),
            Found::MetadataServer(email, host) => (
                Parsed::metadata_server(Some(email)),
                format!("Application Default Credentials (metadata server {host})"),
            ),
        };
        held(parsed, source, scopes)
    }

    /// The first source that is set, in the libraries' order.
    async fn found(flag: Option<&Path>, env: &CredentialEnv) -> Result<Found, AuthError> {
        if let Some(path) = flag {
            return Ok(Found::File(path.to_path_buf(), format!("--credentials {}", path.display())));
        }
        if let Some(path) = &env.google_application_credentials {
            return Ok(Found::File(path.into(), format!("GOOGLE_APPLICATION_CREDENTIALS ({path})")));
        }
        if let Some(json) = &env.gcp_service_account_json {
            return Ok(Found::Text(json.clone(), "GCP_SERVICE_ACCOUNT_JSON".into()));
        }
        if let Some(json) = &env.google_credentials {
            return Ok(Found::Text(json.clone(), "GOOGLE_CREDENTIALS".into()));
        }
        if let Some(encoded) = &env.gcp_service_account_json_b64 {
            use base64::Engine;
            let raw =
                base64::engine::general_purpose::STANDARD.decode(encoded.trim()).map_err(|_| AuthError::BadBase64)?;
            let json = String::from_utf8(raw).map_err(|_| AuthError::BadBase64)?;
            return Ok(Found::Text(json, "GCP_SERVICE_ACCOUNT_JSON_B64".into()));
        }
        let local = env.working_dir.join(LOCAL_KEY_FILE);
        if local.exists() {
            return Ok(Found::File(local, format!("./{LOCAL_KEY_FILE}")));
        }
        if let Some(file) = env.gcloud_config.as_ref().map(|dir| dir.join("application_default_credentials.json"))
            && file.exists()
        {
            let source = format!("Application Default Credentials ({})", file.display());
            return Ok(Found::File(file, source));
        }
        let host = env.metadata_host.as_deref().unwrap_or(METADATA_HOST);
        let email = metadata_email(host).await.ok_or(AuthError::NoneFound)?;
        Ok(Found::MetadataServer(email, host.to_string()))
    }

    /// Where the credentials came from, safe to print.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The credential's type (`service_account`, ...), if there is one.
    pub fn kind(&self) -> Option<Kind> {
        self.credential.as_ref().map(|c| c.parsed.kind)
    }

    /// The account the credential acts as, when it says.
    pub fn principal(&self) -> Option<&str> {
        self.credential.as_ref().and_then(|c| c.parsed.principal.as_deref())
    }

    /// `service_account sa@p.iam.gserviceaccount.com from GOOGLE_APPLICATION_CREDENTIALS (/k.json)`.
    pub fn describe(&self) -> String {
        match &self.credential {
            None => self.source.clone(),
            Some(held) => {
                let principal = held.parsed.principal.as_deref().map(|p| format!(" {p}")).unwrap_or_default();
                format!("{}{principal} from {}", held.parsed.kind.name(), self.source)
            }
        }
    }

    /// Times a refused token (401, UNAUTHENTICATED) made the credential start over.
    pub fn refreshes(&self) -> u64 {
        self.credential.as_ref().map_or(0, |c| c.refreshes.load(Ordering::Relaxed))
    }

    /// `Bearer TOKEN` for the next request (each library caches its tokens
    /// and fetches the next before this one expires).
    pub async fn bearer(&self) -> Result<Option<String>, AuthError> {
        let Some(held) = &self.credential else {
            return Ok(None);
        };
        let provider = held.provider.lock().unwrap().0.clone();
        let token = provider.token(&held.scopes).await.map_err(|reason| AuthError::Token {
            source_name: self.source.clone(),
            kind: held.parsed.kind.name(),
            reason: explain_token_failure(&redact(&reason)),
        })?;
        Ok(Some(format!("Bearer {token}")))
    }

    /// The server refused our token (revoked, or expired early): start over
    /// with a new token source, so that the next `bearer` fetches a new token.
    /// Says whether there is a credential to refresh.
    pub fn refresh(&self) -> bool {
        let Some(held) = &self.credential else {
            return false;
        };
        let mut current = held.provider.lock().unwrap();
        if current.1.elapsed() < REFRESH_COALESCE {
            return true; // another refused request has just done it
        }
        if let Ok(fresh) = held.parsed.provider(&self.source, &held.scopes) {
            *current = (fresh, Instant::now());
            held.refreshes.fetch_add(1, Ordering::Relaxed);
        }
        true
    }
}

/// Where a credential was found: a file, text from a variable, or the
/// metadata server (its account's e-mail and host).
enum Found {
    File(PathBuf, String),
    Text(String, String),
    MetadataServer(String, String),
}

fn held(parsed: Parsed, source: String, scopes: Vec<String>) -> Result<Auth, AuthError> {
    let provider = parsed.provider(&source, &scopes)?;
    // Never "just refreshed": the first refusal refreshes at once.
    let long_ago = Instant::now().checked_sub(REFRESH_COALESCE).unwrap_or_else(Instant::now);
    let provider = std::sync::Mutex::new((provider, long_ago));
    let credential = Held { parsed, scopes, provider, refreshes: AtomicU64::new(0) };
    Ok(Auth { source, credential: Some(Arc::new(credential)) })
}

/// The e-mail of the metadata server's default account, when there is a
/// metadata server (a GCE VM, a GKE pod with Workload Identity).
pub async fn metadata_email(host: &str) -> Option<String> {
    let url = format!("http://{host}/computeMetadata/v1/instance/service-accounts/default/email");
    wire::tls::install_crypto_provider();
    let client = reqwest::Client::builder().timeout(Duration::from_secs(2)).build().ok()?;
    let response = client.get(url).header("Metadata-Flavor", "Google").send().await.ok()?;
    if !response.status().is_success() {
        return None;
    }
    response.text().await.ok().map(|e| e.trim().to_string()).filter(|e| !e.is_empty())
}

fn read(path: &Path) -> Result<String, AuthError> {
    std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => AuthError::NotText { path: path.to_path_buf() },
        kind => AuthError::Unreadable { path: path.to_path_buf(), reason: kind.to_string() },
    })
}

/// What a failed token request most likely means, with what to do: the
/// libraries say little ("token request failed", "client error (Connect)").
fn explain_token_failure(reason: &str) -> String {
    let hint = if reason.contains("Connect") || reason.contains("certificate") || reason.contains("dns error") {
        "; the token endpoint could not be reached: check the token URL in the file, and that its TLS certificate is trusted (token requests trust the system roots or SSL_CERT_FILE, not --ca-cert)"
    } else if reason.contains("token request failed") || reason.contains("invalid_grant") {
        "; the token endpoint refused the credentials: the key may be deleted or unknown to it (RUST_LOG=gcp_auth=warn shows its answer)"
    } else {
        ""
    };
    format!("{reason}{hint}")
}

/// Error texts from token endpoints can echo request parts: keep only what
/// cannot carry a secret.
fn redact(text: &str) -> String {
    let secret = ["PRIVATE KEY", "Bearer", "ya29.", "refresh_token", "assertion", "subject_token"];
    if secret.iter().any(|s| text.contains(s)) {
        "the token endpoint refused the request".into()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests;
