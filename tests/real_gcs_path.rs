//! The real-GCS path on loopback: the emulator with TLS and tokens required
//! (`--tls --require-auth`), and the binary reaching it as it would reach
//! storage.googleapis.com: TLS on both transports, an OAuth token from each
//! of the seven credential sources (every credential type), refreshed when
//! it expires or is revoked, and one sentence for each thing that can be
//! wrong. Every credential file is made here, its token URL pointing at the
//! emulator, which trusts it.

mod common;

use common::lookalike::*;
use gcs_speed_tui::emulator::tls::TlsMode;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread")]
async fn every_source_and_type_gets_a_token_and_both_transports_upload_over_tls() {
    let place = place().await;
    let key = place.path("key.json");
    let key_text = std::fs::read_to_string(&key).unwrap();
    let external = std::fs::read_to_string(place.path("external.json")).unwrap();
    let impersonated = std::fs::read_to_string(place.path("impersonated.json")).unwrap();
    use base64::Engine;
    let key_b64 = base64::engine::general_purpose::STANDARD.encode(&key_text);
    let user = place.path("user.json");
    // gcloud's file, where CLOUDSDK_CONFIG says.
    let gcloud = place.path("gcloud");
    std::fs::create_dir_all(&gcloud).unwrap();
    std::fs::copy(&user, gcloud.join("application_default_credentials.json")).unwrap();
    let local = place.path("local");
    std::fs::create_dir_all(&local).unwrap();
    std::fs::write(local.join("service-account.json"), &key_text).unwrap();
    let metadata = place.emulator.metadata_addr().unwrap().to_string();
    let (key, user, gcloud) = (key.to_str().unwrap(), user.to_str().unwrap(), gcloud.to_str().unwrap());
    // (source as reported, flags, environment, working directory, type, account)
    type Case<'a> = (&'a str, Vec<&'a str>, Vec<(&'a str, &'a str)>, &'a Path, &'a str, Option<&'a str>);
    let cases: Vec<Case> = vec![
        ("--credentials", vec!["--credentials", key], vec![], place.dir.path(), "service_account", Some(SA_EMAIL)),
        (
            "GOOGLE_APPLICATION_CREDENTIALS",
            vec![],
            vec![("GOOGLE_APPLICATION_CREDENTIALS", user)],
            place.dir.path(),
            "authorized_user",
            None,
        ),
        (
            "GCP_SERVICE_ACCOUNT_JSON",
            vec![],
            vec![("GCP_SERVICE_ACCOUNT_JSON", &impersonated)],
            place.dir.path(),
            "impersonated_service_account",
            Some(TARGET_EMAIL),
        ),
        (
            "GOOGLE_CREDENTIALS",
            vec![],
            vec![("GOOGLE_CREDENTIALS", &external)],
            place.dir.path(),
            "external_account",
            None,
        ),
        (
            "GCP_SERVICE_ACCOUNT_JSON_B64",
            vec![],
            vec![("GCP_SERVICE_ACCOUNT_JSON_B64", &key_b64)],
            place.dir.path(),
            "service_account",
            Some(SA_EMAIL),
        ),
        ("./service-account.json", vec![], vec![], &local, "service_account", Some(SA_EMAIL)),
        (
            "Application Default Credentials (",
            vec![],
            vec![("CLOUDSDK_CONFIG", gcloud)],
            place.dir.path(),
            "authorized_user",
            None,
        ),
        (
            "Application Default Credentials (metadata server",
            vec![],
            vec![("GCE_METADATA_HOST", &metadata)],
            place.dir.path(),
            "gce_metadata",
            Some("default@emulator.iam.gserviceaccount.com"),
        ),
    ];
    for (source, flags, env, cwd, kind, principal) in cases {
        let issued_before = place.emulator.authority().tokens_issued.load(Ordering::Relaxed);
        let report = report(&run_in(&place, cwd, &flags, &env));
        assert_uploaded(&report, source);
        let target = &report["target"];
        assert!(text(&target["credentials"]).contains(&format!("from {source}")), "{source}: {target}");
        assert_eq!(text(&target["credential_type"]), kind, "{source}");
        assert_eq!(target["principal"].as_str(), principal, "{source}");
        let issued = place.emulator.authority().tokens_issued.load(Ordering::Relaxed) - issued_before;
        assert!(issued >= 1, "{source}: the emulator issued the token it used");
    }
    assert_eq!(place.emulator.authority().refused.load(Ordering::Relaxed), 0, "no request went without a good token");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_token_both_apis_answer_as_gcs_does() {
    let place = place().await;
    let client = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(place.emulator.ca_pem().unwrap().as_bytes()).unwrap())
        .build()
        .unwrap();
    gcs_speed_tui::tls::install_crypto_provider();
    let url = format!("{}/storage/v1/b/{}", place.emulator.json_url(), common::BUCKET);
    let answer = client.get(&url).send().await.unwrap();
    assert_eq!(answer.status(), 401);
    assert!(answer.headers()["www-authenticate"].to_str().unwrap().starts_with("Bearer realm="));
    let body: Value = answer.json().await.unwrap();
    assert_eq!((body["error"]["code"].as_u64(), text(&body["error"]["errors"][0]["reason"])), (Some(401), "authError"));
    // gRPC: the run's own client with no credentials meets UNAUTHENTICATED.
    let output = run(&place, &["--auth", "none", "--transports", "grpc"], &[]);
    assert_eq!(output.status.code(), Some(2));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("UNAUTHENTICATED") && said.contains("add --auth gcs"), "{said}");
}

/// The token library renews a token this long before it expires (gcp_auth's
/// `Token::has_expired`): a TTL under it would be renewed on every request.
const RENEWAL_MARGIN: Duration = Duration::from_secs(20);

#[tokio::test(flavor = "multi_thread")]
async fn a_token_is_reused_while_good_and_renewed_before_it_expires() {
    // Good for 3 s in the library's eyes: an 8 s run needs 2 to 4 of them.
    let ttl = RENEWAL_MARGIN + Duration::from_secs(3);
    let place = place_with(ttl, &[], None).await;
    let key = place.path("key.json");
    let report = report(&run(&place, &["--credentials", key.to_str().unwrap(), "--duration", "8s"], &[]));
    assert_eq!(report["outcome"], "completed");
    let samples = report["samples"].as_array().unwrap();
    assert!(!samples.is_empty() && samples.iter().all(|s| s["ok"] == true), "every upload finished");
    let authority = place.emulator.authority();
    assert_eq!(authority.refused.load(Ordering::Relaxed), 0, "no request carried an expired token");
    let uses = authority.token_uses();
    assert!((2..=4).contains(&uses.len()), "{} tokens for an 8 s run of 3 s tokens", uses.len());
    // Reused: each token but the newest carried many requests, not one.
    for used in &uses[..uses.len() - 1] {
        assert!(used.requests >= 5, "a token was used for {} requests only", used.requests);
    }
    // Renewed when the library's margin said, before expiry: a new token
    // each 3 s (not each request), each one before the last had expired.
    let good_for = ttl - RENEWAL_MARGIN;
    for pair in uses.windows(2) {
        let gap = pair[1].issued - pair[0].issued;
        assert!(gap >= good_for - Duration::from_millis(200), "renewed after {gap:?}, before {good_for:?}");
        assert!(gap < ttl, "renewed {gap:?} after, past its {ttl:?} life");
        assert!(pair[0].last_used.unwrap() <= pair[0].issued + ttl, "used while good");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_revoked_token_is_replaced_once_and_the_run_goes_on() {
    let place = place().await;
    let key = place.path("key.json").to_str().unwrap().to_string();
    let emulator = &place.emulator;
    let output = std::thread::scope(|scope| {
        let running = scope.spawn(|| run(&place, &["--credentials", &key, "--duration", "4s"], &[]));
        std::thread::sleep(Duration::from_millis(1500));
        assert!(emulator.authority().revoke_all() >= 1, "a token was in use");
        running.join().unwrap()
    });
    let report = report(&output);
    assert_eq!(report["outcome"], "completed", "{report}");
    assert!(report["auth_refreshes"].as_u64().unwrap() >= 1, "{}", report["auth_refreshes"]);
    let retries: u64 = report["transports"].as_array().unwrap().iter().map(|t| t["retries"].as_u64().unwrap()).sum();
    assert!(retries >= 1, "each refused request was retried once");
    assert!(emulator.authority().refused.load(Ordering::Relaxed) >= 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn tokens_and_keys_never_reach_logs_or_outputs_at_trace_level() {
    let place = place().await;
    let key = place.path("key.json");
    let user = place.path("user.json");
    let mut seen = String::new();
    for (flags, env) in [
        (vec!["--credentials", key.to_str().unwrap()], vec![("RUST_LOG", "trace")]),
        (
            vec!["--format", "csv"],
            vec![("RUST_LOG", "trace"), ("GOOGLE_APPLICATION_CREDENTIALS", user.to_str().unwrap())],
        ),
    ] {
        let output = run(&place, &flags, &env);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        seen += &String::from_utf8_lossy(&output.stdout);
        seen += &String::from_utf8_lossy(&output.stderr);
    }
    assert!(place.emulator.authority().tokens_issued.load(Ordering::Relaxed) >= 2, "tokens were really held");
    assert!(seen.contains("fetch_token") || seen.contains("TRACE"), "trace logging was on");
    let key_line = KEY_PEM.lines().nth(2).unwrap();
    for secret in
        ["ya29.emulator-", "PRIVATE KEY", key_line, "user-secret-value", "1//user-refresh-value", "Bearer ya29"]
    {
        assert!(!seen.contains(secret), "found {secret:?} in the output");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn what_can_be_wrong_is_one_sentence_each() {
    let place = place_with(Duration::from_secs(3600), &["storage.objects.delete"], None).await;
    let key = place.path("key.json");
    let key = key.to_str().unwrap();
    // An untrusted certificate: the CA is not given.
    let mut untrusted = Command::new(common::binary());
    let (json, grpc) = (place.emulator.json_url(), place.emulator.grpc_url());
    untrusted.args(["run", "--endpoint", &json, "--grpc-endpoint", &grpc, "--bucket", common::BUCKET]);
    untrusted.env_remove("SSL_CERT_FILE").env_remove("STORAGE_EMULATOR_HOST").env_remove("STORAGE_EMULATOR_HOST_GRPC");
    let said = refused(&untrusted.output().unwrap());
    assert!(said.contains("is not signed by a CA this machine trusts: pass --ca-cert FILE"), "{said}");
    // A missing permission, before any upload.
    let said = refused(&run(&place, &["--credentials", key], &[]));
    assert!(said.contains("may not delete objects in bucket test-bucket (missing storage.objects.delete)"), "{said}");
    assert!(said.contains(SA_EMAIL), "the principal is named: {said}");
    assert_eq!(place.emulator.store().objects_created.load(Ordering::Relaxed), 0, "nothing was uploaded");
    // A key the emulator does not know (a new one, made now).
    let stranger = place.path("stranger.pem");
    let made = Command::new("openssl")
        .args(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out"])
        .arg(&stranger)
        .output()
        .expect("openssl is installed (./scripts/test installs it)");
    assert!(made.status.success());
    let wrong =
        service_account(&format!("{}/token", place.emulator.json_url()), &std::fs::read_to_string(&stranger).unwrap());
    let wrong_key = place.path("wrong-key.json");
    std::fs::write(&wrong_key, wrong.to_string()).unwrap();
    let said = refused(&run(&place, &["--credentials", wrong_key.to_str().unwrap()], &[]));
    assert!(said.contains(&format!("from --credentials {}", wrong_key.display())), "the key's source: {said}");
    assert!(said.contains("could not get an access token"), "{said}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_certificate_for_another_host_is_said_to_be_for_another_host() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = gcs_speed_tui::emulator::tls::generate_for(&["storage.example.internal"]).unwrap();
    for (name, pem) in [("ca.pem", &ca), ("cert.pem", &cert), ("key.pem", &key)] {
        std::fs::write(dir.path().join(name), pem).unwrap();
    }
    let tls = TlsMode::Given { cert: dir.path().join("cert.pem"), key: dir.path().join("key.pem") };
    let place = place_with(Duration::from_secs(3600), &[], Some(tls)).await;
    std::fs::write(place.ca(), &ca).unwrap();
    let said = refused(&run(&place, &["--auth", "none"], &[]));
    assert!(said.contains("is not for 127.0.0.1"), "{said}");
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_need_their_permission_and_a_denied_one_is_said_before_anything_is_written() {
    let place = place_with(Duration::from_secs(3600), &["storage.objects.get"], None).await;
    let key = place.path("key.json");
    let said = refused(&run(&place, &["--credentials", key.to_str().unwrap(), "--workload", "w1r3"], &[]));
    assert!(said.contains("may not read objects in bucket test-bucket (missing storage.objects.get)"), "{said}");
    assert_eq!(place.emulator.store().objects_created.load(Ordering::Relaxed), 0);
    // Uploads alone do not need it.
    assert_uploaded(&report(&run(&place, &["--credentials", key.to_str().unwrap()], &[])), "uploads");
    // Credentials named for an endpoint are sent without --auth; with --auth none they contradict it.
    let json = place.emulator.json_url();
    let grpc = place.emulator.grpc_url();
    let base = ["run", "--endpoint", &json, "--grpc-endpoint", &grpc, "--credentials", key.to_str().unwrap()];
    let output = Command::new(common::binary())
        .args(base)
        .args(["--auth", "none"])
        .env("SSL_CERT_FILE", place.ca())
        .output()
        .unwrap();
    assert!(refused(&output).contains("--auth none sends no token, but --credentials names some"));
}

#[test]
fn the_emulator_refuses_a_permission_it_does_not_check() {
    let output = common::run(&["emulator", "--require-auth", "--deny", "storage.bogus"], &[]);
    let said = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{said}");
    assert!(
        said.contains("--deny storage.bogus is not a permission it checks: use one of storage.objects.create"),
        "{said}"
    );
}

/// Resumable uploads (the session URI must keep https) and reads, over TLS
/// with tokens, on both transports.
#[tokio::test(flavor = "multi_thread")]
async fn resumable_uploads_and_reads_go_over_tls_too() {
    let place = place().await;
    let key = place.path("key.json");
    let flags =
        ["--credentials", key.to_str().unwrap(), "--size", "1MiB", "--chunk-size", "256KiB", "--workload", "w1r3"];
    let report = report(&run(&place, &flags, &[]));
    assert_eq!(report["outcome"], "completed", "{report}");
    for t in report["transports"].as_array().unwrap() {
        assert_eq!((t["runs"].as_u64(), t["errors"].as_u64()), (Some(3), Some(0)), "{t}");
    }
    assert_eq!(report["cleanup"]["deleted"].as_u64(), Some(6));
}
