//! `gcs-speed-tui doctor`: before any upload, each thing a run needs, a line
//! each: where it goes, the credentials (source, type, account), a token,
//! the bucket, permission to create and delete objects, and the gRPC
//! channel with one cheap call. A failed step says what to do, and the steps
//! after it that depend on it are not tried. Nothing is written (but the
//! built-in emulator's bucket, which a run would make too).

use crate::auth::Auth;
use crate::config::{BenchConfig, Target, TransportKind};
use crate::target::{Route, missing_permissions, needed_permissions, refused_credentials};
use std::fmt::Display;

/// Exit code when every step passed, and when one failed.
const OK: u8 = 0;
const FAILED: u8 = 2;

fn passed(step: &str, detail: impl Display) {
    println!("ok    {step}: {detail}");
}

fn failed(step: &str, what_to_do: impl Display) -> u8 {
    println!("FAIL  {step}: {what_to_do}");
    FAILED
}

/// Runs the checks for this configuration; the exit code. `built_in` is
/// the built-in emulator's JSON and gRPC URLs when the configuration goes to
/// it, started by the caller (this crate does not know the server), or why
/// it did not start.
pub async fn check(config: &BenchConfig, built_in: Result<Option<(String, String)>, String>) -> u8 {
    if config.target == Target::BuiltIn {
        // A bucket of its own on the built-in emulator means --emulator was given.
        match config.bucket.as_str() {
            crate::config::DEFAULT_EMULATOR_BUCKET => {
                println!("note  no --bucket and no endpoint: checking the built-in emulator (real GCS needs --bucket)")
            }
            bucket => println!(
                "note  --emulator: checking the built-in emulator with bucket {bucket} (real GCS: --bucket without \
                 --emulator)"
            ),
        }
    }
    let built_in = match built_in {
        Ok(urls) => urls,
        Err(error) => return failed("emulator", error),
    };
    let (auth, mut code) = credentials(config).await;
    let route = match Route::new(config, built_in, auth.clone().unwrap_or_else(Auth::none)) {
        Ok(route) => route,
        Err(error) => return failed("target", error),
    };
    passed("target", route_line(config, &route));
    let Some(auth) = auth else {
        // Each step below asks the server with a token: without one its
        // answer would be a 401, not news of the bucket or the channel.
        for step in ["bucket", "permissions", "grpc"] {
            println!("skip  {step}: not tried without a token (fix the line above first)");
        }
        return code;
    };
    if config.transports.contains(&TransportKind::Json) {
        code = code.max(check_json(config, &route, &auth).await);
    }
    if config.transports.iter().any(|kind| kind.is_grpc()) {
        code = code.max(check_grpc(config, &route, &auth).await);
    }
    if code == OK {
        println!("all checks passed: `gcs-speed-tui run` with the same options should work");
    }
    code
}

/// The credentials line and the token line; `None` (and FAILED) when
/// either failed, so the steps that need a token are skipped, not run.
async fn credentials(config: &BenchConfig) -> (Option<Auth>, u8) {
    if !config.auth {
        passed("credentials", format!("none sent ({})", crate::config::AUTH_AUTO_RULE));
        return (Some(Auth::none()), OK);
    }
    let auth = google_sign_in::doctor::sign_in_steps(config.credentials.as_deref(), &[crate::auth::SCOPE]).await;
    let code = if auth.is_some() { OK } else { FAILED };
    (auth, code)
}

fn route_line(config: &BenchConfig, route: &Route) -> String {
    let json = route.json_url.as_deref().unwrap_or("-");
    let grpc = route.grpc_url.as_deref().unwrap_or("-");
    let path =
        if config.target == Target::Gcs { " (CloudPath: TLS to Google's front end; DirectPath not used)" } else { "" };
    let https =
        [&route.json_url, &route.grpc_url].iter().any(|u| u.as_deref().is_some_and(|u| u.starts_with("https://")));
    let trust = match &config.ca_cert {
        Some(path) if https => format!("; also trusting the CA certificates in {}", path.display()),
        _ => String::new(),
    };
    format!("bucket {} over JSON {json} and gRPC {grpc}{path}{trust}", config.bucket)
}

async fn check_json(config: &BenchConfig, route: &Route, auth: &Auth) -> u8 {
    let json = match route.open(config, TransportKind::Json).await {
        Ok(json) => json,
        Err(error) => return failed("json", error),
    };
    // The built-in emulator starts empty: its bucket is made, as a run makes it.
    if let Err(error) = json.prepare_bucket(config.target == Target::BuiltIn).await {
        return failed("bucket", refused_credentials(error, auth).explained(&config.bucket));
    }
    passed("bucket", format!("{} exists (JSON API, {})", config.bucket, json.protocol()));
    if !config.auth {
        return OK;
    }
    let needed = needed_permissions(config);
    match json.granted_permissions(&needed).await {
        Ok(Some(granted)) => {
            let missing = missing_permissions(&needed, &granted);
            if missing.is_empty() {
                passed("permissions", format!("has {} on {}", needed.join(", "), config.bucket));
                OK
            } else {
                let who = auth.principal().unwrap_or("the account of these credentials");
                let member = match auth.principal() {
                    Some(email) if email.ends_with(".gserviceaccount.com") => format!("serviceAccount:{email}"),
                    Some(email) => format!("user:{email}"),
                    None => "PRINCIPAL".into(),
                };
                failed(
                    "permissions",
                    format!(
                        "{who} lacks {} on bucket {}: grant it roles/storage.objectUser there (gcloud storage buckets add-iam-policy-binding gs://{} --member={member} --role=roles/storage.objectUser)",
                        missing.join(" and "),
                        config.bucket,
                        config.bucket
                    ),
                )
            }
        }
        Ok(None) => OK,
        Err(error) => failed("permissions", error.explained(&config.bucket)),
    }
}

async fn check_grpc(config: &BenchConfig, route: &Route, auth: &Auth) -> u8 {
    let grpc = match route.open(config, TransportKind::Grpc).await {
        Ok(grpc) => grpc,
        Err(error) => return failed("grpc", error),
    };
    match grpc.prepare_bucket(config.target == Target::BuiltIn).await {
        Ok(()) => {
            passed("grpc", format!("channel open ({}), GetBucket answered", grpc.protocol()));
            OK
        }
        Err(error) => failed("grpc", refused_credentials(error, auth).explained(&config.bucket)),
    }
}
