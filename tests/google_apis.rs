//! `grpc run` against a Google API as its users have it: googleapis' protos
//! from npm's google-proto-files (their descriptor.proto newer than the
//! compiler reads: the built-in one is used), Google sign-in with a service
//! account key, TLS, and the routing header Google's clients send. GCS v2
//! over gRPC against the built-in emulator in its TLS + OAuth mode, and
//! Pub/Sub's Publish both ways against a lookalike served by Connect for
//! Node (tests/connect_server/pubsub.mjs); what arrived is read back from
//! each server.

mod common;
mod connect;

use common::lookalike::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// npm's google-proto-files, which ./scripts/test installs.
fn google_protos() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/google_protos/node_modules/google-proto-files");
    assert!(dir.join("google/storage/v2/storage.proto").exists(), "./scripts/test runs npm ci in tests/google_protos");
    dir
}

/// `grpc run` of GetBucket against the place, with only the variables
/// given (none of the shell's credentials).
fn get_bucket(place: &Place, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let extra = [extra, &["--format", "json"]].concat();
    command(place, "run", &extra, env)
}

/// `grpc doctor` of the same.
fn get_bucket_as(place: &Place, command_name: &str, extra: &[&str]) -> Output {
    command(place, command_name, extra, &[])
}

fn command(place: &Place, command_name: &str, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let protos = google_protos();
    let grpc = format!("https://{}", place.emulator.grpc_url().trim_start_matches("https://"));
    let data = format!(r#"{{"name":"projects/_/buckets/{}"}}"#, common::BUCKET);
    let ca = place.ca();
    let mut args =
        vec!["grpc", command_name, "--proto", "google/storage/v2/storage.proto", "-I", protos.to_str().unwrap()];
    args.extend(["--method", "google.storage.v2.Storage/GetBucket", "--transports", "grpc"]);
    // Another endpoint is the case's own, without the emulator's CA.
    if !extra.contains(&"--grpc-endpoint") {
        args.extend(["--grpc-endpoint", &grpc, "--cacert", ca.to_str().unwrap()]);
    }
    args.extend(["--data", &data]);
    args.extend(extra);
    let mut command = Command::new(common::binary());
    command.args(&args).current_dir(place.dir.path());
    for var in ["GOOGLE_APPLICATION_CREDENTIALS", "GCP_SERVICE_ACCOUNT_JSON", "GOOGLE_CREDENTIALS"] {
        command.env_remove(var);
    }
    command.env_remove("GCP_SERVICE_ACCOUNT_JSON_B64").env_remove("CLOUDSDK_CONFIG");
    // Token requests trust the emulator's CA as the whole process reads it; no metadata server.
    command.env("SSL_CERT_FILE", &ca).env("HOME", place.path("home")).env("GCE_METADATA_HOST", "127.0.0.1:9");
    command.envs(env.iter().copied());
    command.output().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn get_bucket_over_grpc_signs_in_with_a_key_and_routes_by_the_bucket() {
    let place = place().await;
    let key = place.path("key.json");
    let shape = ["--clients", "2", "--requests", "5", "--iterations", "3"];
    let sign_in = ["--auth", "google", "--credentials", key.to_str().unwrap()];
    let output = get_bucket(&place, &[&shape[..], &sign_in].concat(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let (clients, requests, rounds) = (2u64, 5u64, 3u64);
    let grpc = &report["transports"][0];
    assert_eq!((grpc["ops"].as_u64(), grpc["errors"].as_u64()), (Some(rounds * clients * requests), Some(0)), "{grpc}");
    // Every call, the warmup's (up to 100 a client: all 5 here) too, came
    // with a token the emulator issued and the routing its clients send.
    let calls = clients * requests + rounds * clients * requests;
    let signed: u64 = place.emulator.authority().token_uses().iter().map(|u| u.requests).sum();
    assert_eq!(signed, calls, "each call signed in");
    let routed = place.emulator.routed();
    let expected = format!("bucket=projects/_/buckets/{}", common::BUCKET);
    assert_eq!(routed.get(&expected), Some(&calls), "{routed:?}");
    assert_eq!(routed.len(), 1, "{routed:?}");
    let sign_in = report["config"]["sign_in"].as_str().unwrap();
    assert_eq!(
        sign_in,
        format!("google (cloud-platform): service_account {SA_EMAIL} from --credentials {}", key.display())
    );
    let everything = format!("{stderr}{}", String::from_utf8_lossy(&output.stdout));
    for secret in ["PRIVATE KEY", "Bearer", "ya29.", KEY_PEM.lines().nth(1).unwrap()] {
        assert!(!everything.contains(secret), "{secret} printed: {everything}");
    }
    // An hour's token serves the whole run.
    assert_eq!(place.emulator.authority().token_uses().len(), 1, "one token, reused");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_credentials_or_over_plaintext_it_is_one_sentence_and_exit_2() {
    let place = place().await;
    let said = refused(&get_bucket(&place, &["--auth", "google"], &[]));
    assert!(said.starts_with("error: no credentials found: pass --credentials KEY.json"), "{said}");
    // Without --auth google the emulator refuses every call: a run of failures, not a secret sent.
    let output = get_bucket(&place, &["--iterations", "1", "--requests", "1", "--clients", "1"], &[]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(1), "a run whose calls failed");
    assert_eq!(report["transports"][0]["ops"], 0, "{report}");
    assert_eq!(report["transports"][0]["errors"].as_u64(), Some(1), "the round's one call, refused: {report}");
    let signed: u64 = place.emulator.authority().token_uses().iter().map(|u| u.requests).sum();
    assert_eq!(signed, 0, "no token sent");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("UNAUTHENTICATED"), "{stderr}");
    let plain = ["--auth", "google", "--grpc-endpoint", "http://127.0.0.1:1"];
    let said = refused(&get_bucket(&place, &plain, &[]));
    assert_eq!(
        said,
        "error: --auth google sends tokens over TLS only, and --grpc-endpoint http://127.0.0.1:1 is plaintext: give its https:// URL"
    );
}

/// tests/connect_server/pubsub.mjs, listening over TLS with a certificate
/// made here, issuing tokens to the test key's holder.
struct Pubsub {
    child: Child,
    grpc: String,
    https: String,
    dir: tempfile::TempDir,
}

impl Pubsub {
    fn start() -> Pubsub {
        let dir = tempfile::tempdir().unwrap();
        let (ca, cert, key) = gcs_speed_tui::emulator::tls::generate().unwrap();
        for (name, pem) in
            [("ca.pem", &ca), ("cert.pem", &cert), ("key.pem", &key), ("account.pem", &KEY_PEM.to_string())]
        {
            std::fs::write(dir.path().join(name), pem).unwrap();
        }
        let files = gcs_speed_tui::grpc_service::schema::ProtoFiles {
            files: vec!["google/pubsub/v1/pubsub.proto".into()],
            includes: vec![google_protos()],
        };
        let pool = gcs_speed_tui::grpc_service::schema::compile(&files).unwrap();
        std::fs::write(dir.path().join("pubsub.binpb"), pool.encode_to_vec()).unwrap();
        let mut child = Command::new("node")
            .arg(Path::new(connect::SERVER).join("pubsub.mjs"))
            .args(["pubsub.binpb", "cert.pem", "key.pem", "account.pem"].map(|f| dir.path().join(f)))
            .stdout(Stdio::piped())
            .spawn()
            .expect("node runs");
        let ports = connect::first_line(&mut child);
        let url = |port: &Value| format!("https://127.0.0.1:{port}");
        let https = url(&ports["https"]);
        let key_file = service_account(&format!("{https}/token"), KEY_PEM);
        std::fs::write(dir.path().join("key.json"), key_file.to_string()).unwrap();
        Pubsub { grpc: url(&ports["grpc"]), https, child, dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// GET /stats, over the server's own TLS.
    async fn stats(&self) -> Value {
        gcs_speed_tui::tls::install_crypto_provider();
        let ca = reqwest::Certificate::from_pem(&std::fs::read(self.path("ca.pem")).unwrap()).unwrap();
        let client = reqwest::Client::builder().add_root_certificate(ca).build().unwrap();
        client.get(format!("{}/stats", self.https)).send().await.unwrap().json().await.unwrap()
    }
}

impl Drop for Pubsub {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn publish_goes_both_ways_each_call_signed_in_and_routed_by_its_topic() {
    let server = Pubsub::start();
    let protos = google_protos();
    let (ca, key) = (server.path("ca.pem"), server.path("key.json"));
    let data = r#"{"topic":"projects/p/topics/t","messages":[{"data":"{{base64 message {{seq}}}}"}]}"#;
    let mut args = vec!["grpc", "run", "--proto", "google/pubsub/v1/pubsub.proto", "-I", protos.to_str().unwrap()];
    args.extend(["--method", "google.pubsub.v1.Publisher/Publish", "--data", data]);
    args.extend(["--grpc-endpoint", &server.grpc, "--http-endpoint", &server.https, "--cacert", ca.to_str().unwrap()]);
    args.extend(["--auth", "google", "--credentials", key.to_str().unwrap(), "--scopes", "pubsub"]);
    args.extend(["--clients", "2", "--requests", "5", "--iterations", "2", "--format", "json"]);
    let output = Command::new(common::binary())
        .args(&args)
        .env("SSL_CERT_FILE", &ca)
        .env_remove("GOOGLE_APPLICATION_CREDENTIALS")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["config"]["http_mapping"], "POST /v1/{topic=**}:publish (body *)", "{report}");
    let (clients, requests, rounds) = (2u64, 5u64, 2u64);
    assert_eq!(report["transports"].as_array().unwrap().len(), 2, "{report}");
    for t in report["transports"].as_array().unwrap() {
        assert_eq!((t["ops"].as_u64(), t["errors"].as_u64()), (Some(rounds * clients * requests), Some(0)), "{t}");
        // The server offers HTTP/2 by ALPN, as Google's front ends do: both went over it.
        assert_eq!(t["protocol"], "HTTP/2 + TLS", "{t}");
    }
    // Per protocol: the check's call 0, the warmup's 5 a client, every round's.
    let calls = 1 + clients * requests + rounds * clients * requests;
    let stats = server.stats().await;
    for protocol in ["grpc", "http"] {
        assert_eq!(stats["calls"][protocol], calls, "{stats}");
        assert_eq!(stats["signed"][protocol], calls, "every call carried a token the server issued: {stats}");
        assert_eq!(stats["messages"][protocol], calls, "{stats}");
        assert_eq!(stats["routing"][format!("{protocol} topic=projects/p/topics/t")], calls, "{stats}");
    }
    let issued = stats["tokens_issued"].as_u64().unwrap();
    assert!((1..=2).contains(&issued), "a token reused, not one a call: {stats}");
    assert_eq!(stats["assertions_refused"], 0, "{stats}");
    let sign_in = report["config"]["sign_in"].as_str().unwrap();
    assert_eq!(sign_in, format!("google (pubsub): service_account {SA_EMAIL} from --credentials {}", key.display()));
    assert!(!stderr.contains("tok-") && !String::from_utf8_lossy(&output.stdout).contains("tok-"), "a token printed");
}

#[tokio::test(flavor = "multi_thread")]
async fn grpc_doctor_signs_in_and_calls_once_or_says_what_to_do() {
    let place = place().await;
    let key = place.path("key.json");
    // The doctor takes grpc run's flags, as a user would retype the command.
    let run = |args: &[&str]| {
        let output = get_bucket_as(&place, "doctor", args);
        (output.status.code(), String::from_utf8_lossy(&output.stdout).to_string())
    };
    let (code, said) = run(&["--auth", "google", "--credentials", key.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{said}");
    let lines: Vec<&str> = said.lines().collect();
    assert!(lines[0].starts_with("ok    method: google.storage.v2.Storage/GetBucket"), "{said}");
    assert_eq!(lines[1], format!("ok    credentials: service_account {SA_EMAIL} from --credentials {}", key.display()));
    assert_eq!(lines[2], "ok    token: an access token was issued (not shown)");
    assert!(lines[3].starts_with("ok    grpc: call 0 answered (1 message) in "), "{said}");
    assert_eq!(lines[4], "all checks passed: `gcs-speed-tui grpc run` with the same options should work");
    let signed: u64 = place.emulator.authority().token_uses().iter().map(|u| u.requests).sum();
    assert_eq!(signed, 1, "one call, signed in");
    let (code, said) = run(&["--auth", "google"]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.starts_with("ok    method: "), "{said}");
    assert!(said.contains("\nFAIL  credentials: no credentials found: pass --credentials KEY.json"), "{said}");
    assert!(
        said.contains("\nskip  token: not asked for without credentials\nskip  grpc: not called without a token"),
        "{said}"
    );
}
