//! The emulator as a GCS lookalike (`--tls --require-auth`) for the tests
//! of the real-GCS path, and the binary run against it as a user would:
//! credential files made here, their token URLs pointing at it.

use gcs_speed_tui::emulator::authority::AuthOptions;
use gcs_speed_tui::emulator::tls::TlsMode;
use gcs_speed_tui::emulator::{Emulator, EmulatorOptions};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

pub const KEY_PEM: &str = include_str!("../data/test-key.pem");
pub const SA_EMAIL: &str = "bench@test-project.iam.gserviceaccount.com";
pub const TARGET_EMAIL: &str = "target@test-project.iam.gserviceaccount.com";

/// Where the test's files live, and the emulator they point at.
pub struct Place {
    pub dir: tempfile::TempDir,
    pub emulator: Emulator,
}

impl Place {
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn ca(&self) -> PathBuf {
        self.path("ca.pem")
    }
}

pub fn service_account(token_uri: &str, pem: &str) -> Value {
    json!({"type": "service_account", "project_id": "test-project", "private_key_id": "k1",
        "private_key": pem, "client_email": SA_EMAIL, "client_id": "1", "token_uri": token_uri})
}

pub fn authorized_user(token_uri: &str) -> Value {
    json!({"type": "authorized_user", "client_id": "client-1.apps.googleusercontent.com",
        "client_secret": "user-secret-value", "refresh_token": "1//user-refresh-value", "token_uri": token_uri})
}

pub fn impersonated(base: &str) -> Value {
    json!({"type": "impersonated_service_account",
        "service_account_impersonation_url": format!("{base}/v1/projects/-/serviceAccounts/{TARGET_EMAIL}:generateAccessToken"),
        "source_credentials": authorized_user(&format!("{base}/token"))})
}

pub fn external_account(base: &str, subject_file: &Path) -> Value {
    json!({"type": "external_account",
        "audience": "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/pool/providers/p",
        "subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
        "token_url": format!("{base}/v1/token"),
        "credential_source": {"file": subject_file.to_str().unwrap()}})
}

/// A TLS emulator that wants tokens and trusts every credential made above.
pub async fn place_with(ttl: Duration, denied: &[&str], tls: Option<TlsMode>) -> Place {
    let dir = tempfile::tempdir().unwrap();
    // The ports are known only once it listens: trust needs no URL, the
    // files that point at it are written after.
    let subject = dir.path().join("subject-token");
    std::fs::write(&subject, "eyJzdWJqZWN0.workload-subject.token-value").unwrap();
    let placeholder = "https://127.0.0.1:1";
    let trusted = vec![
        service_account(&format!("{placeholder}/token"), KEY_PEM),
        authorized_user(placeholder),
        impersonated(placeholder),
        external_account(placeholder, &subject),
    ];
    let auth = AuthOptions {
        required: true,
        token_ttl: ttl,
        trusted,
        denied: denied.iter().map(|d| d.to_string()).collect(),
        ..AuthOptions::default()
    };
    let options = EmulatorOptions {
        tls: Some(tls.unwrap_or(TlsMode::Generated)),
        auth,
        buckets: vec![super::BUCKET.into()],
        retain: true,
        ..EmulatorOptions::default()
    };
    let emulator = Emulator::start(options).await.expect("the TLS emulator starts");
    if let Some(ca) = emulator.ca_pem() {
        std::fs::write(dir.path().join("ca.pem"), ca).unwrap();
    }
    let place = Place { dir, emulator };
    let base = place.emulator.json_url();
    let write = |name: &str, value: Value| std::fs::write(place.path(name), value.to_string()).unwrap();
    write("key.json", service_account(&format!("{base}/token"), KEY_PEM));
    write("user.json", authorized_user(&format!("{base}/token")));
    write("impersonated.json", impersonated(&base));
    write("external.json", external_account(&base, &subject));
    place
}

pub async fn place() -> Place {
    place_with(Duration::from_secs(3600), &[], None).await
}

/// The binary against the place, with only the credential variables given
/// (none of the shell's), in `cwd`, trusting the emulator's CA through
/// SSL_CERT_FILE as the whole process (and its auth libraries) reads it.
pub fn run_in(place: &Place, cwd: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let json = place.emulator.json_url();
    let grpc = place.emulator.grpc_url();
    let mut args = vec!["run", "--endpoint", &json, "--grpc-endpoint", &grpc, "--bucket", super::BUCKET];
    args.extend(["--iterations", "3", "--warmup=false"]);
    // Tokens, small objects and JSON unless the case says otherwise.
    for (flag, default) in [("--auth", "gcs"), ("--format", "json"), ("--size", "256KiB")] {
        if !extra.contains(&flag) {
            args.extend([flag, default]);
        }
    }
    args.extend(extra);
    let mut command = Command::new(super::binary());
    command.args(&args).current_dir(cwd);
    for var in [
        "STORAGE_EMULATOR_HOST",
        "STORAGE_EMULATOR_HOST_GRPC",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GCP_SERVICE_ACCOUNT_JSON",
        "GOOGLE_CREDENTIALS",
        "GCP_SERVICE_ACCOUNT_JSON_B64",
        "CLOUDSDK_CONFIG",
        "GCE_METADATA_HOST",
        "RUST_LOG",
    ] {
        command.env_remove(var);
    }
    let ca = place.ca();
    command.env("SSL_CERT_FILE", &ca).env("HOME", place.path("home"));
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

pub fn run(place: &Place, extra: &[&str], env: &[(&str, &str)]) -> Output {
    run_in(place, place.dir.path(), extra, env)
}

pub fn report(output: &Output) -> Value {
    assert!(output.status.success(), "exit {:?}: {}", output.status.code(), String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Both transports finished every round and left nothing.
pub fn assert_uploaded(report: &Value, what: &str) {
    assert_eq!(report["outcome"], "completed", "{what}");
    for t in report["transports"].as_array().unwrap() {
        assert_eq!((t["runs"].as_u64(), t["errors"].as_u64()), (Some(3), Some(0)), "{what}: {t}");
        assert!(t["protocol"].as_str().unwrap().contains("TLS"), "{what}: {t}");
    }
    assert_eq!(report["cleanup"]["deleted"].as_u64(), Some(6), "{what}");
}

pub fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// One sentence on stderr and exit 2.
pub fn refused(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    let said = String::from_utf8_lossy(&output.stderr).trim().to_string();
    assert_eq!(said.lines().count(), 1, "one sentence: {said}");
    assert!(said.starts_with("error: "), "{said}");
    said
}
