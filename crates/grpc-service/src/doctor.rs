//! `gcs-speed-tui grpc doctor`: before any call is timed, each thing a
//! `grpc run` needs, a line each: the method and its request, the sign-in
//! (the same steps as GCS's `doctor`), and call 0 over each transport. A
//! failed step says what to do; the steps that depend on it are skipped.

use crate::caller::Caller;
use crate::config::ServiceConfig;
use crate::grpc::GrpcCaller;
use crate::http::HttpCaller;
use crate::sign_in::with_token;
use crate::template::Call;
use engine::plan::TransportKind;
use google_sign_in::Auth;
use std::time::Instant;

/// Exit codes: every step passed, or one failed.
const OK: u8 = 0;
const FAILED: u8 = 2;

/// Runs the checks; the exit code.
pub async fn check(config: ServiceConfig) -> u8 {
    let method = config.method_name();
    println!("ok    method: {method} from {} (the request fits it)", config.schema);
    let auth = match &config.sign_in {
        None => {
            println!("ok    credentials: none sent (--auth none)");
            None
        }
        Some(sign_in) => {
            let scopes: Vec<&str> = sign_in.scopes.iter().map(String::as_str).collect();
            match google_sign_in::doctor::sign_in_steps(sign_in.credentials.as_deref(), &scopes).await {
                Some(auth) => Some(auth),
                None => {
                    for kind in &config.schedule.transports {
                        println!("skip  {}: not called without a token (fix the lines above first)", kind.name());
                    }
                    return FAILED;
                }
            }
        }
    };
    let mut code = OK;
    for &kind in &config.schedule.transports {
        code = code.max(call_zero(&config, kind, auth.as_ref()).await);
    }
    if code == OK {
        println!("all checks passed: `gcs-speed-tui grpc run` with the same options should work");
    }
    code
}

/// Call 0 over `kind`, as the run's check sends it.
async fn call_zero(config: &ServiceConfig, kind: TransportKind, auth: Option<&Auth>) -> u8 {
    let name = kind.name();
    let caller = match connect(config, kind).await {
        Ok(caller) => caller,
        Err(error) => return failed(name, error),
    };
    let call = Call { seq: 0, client: 0, run: "doctor", transport: name, round: 0 };
    let started = Instant::now();
    let answered = async {
        let messages = config.calling.request.messages(&config.calling.method, call)?;
        let headers = with_token(config.call_headers.of(call, messages.first())?, auth).await?;
        caller.call(&messages, &headers).await
    };
    match answered.await {
        Ok(answer) => {
            let ms = started.elapsed().as_secs_f64() * 1e3;
            let messages = engine::report::plural(answer.messages.len(), "message");
            println!("ok    {name}: call 0 answered ({messages}) in {ms:.1} ms over {}", caller.protocol());
            OK
        }
        Err(error) => failed(name, error),
    }
}

async fn connect(config: &ServiceConfig, kind: TransportKind) -> crate::error::Result<Caller> {
    let method = &config.calling.method;
    Ok(match (kind, &config.mapping) {
        (TransportKind::Json, Some(mapping)) => {
            let caller = HttpCaller::new(&config.reach, method, mapping.clone())?;
            caller.reachable().await?;
            Caller::Http(caller)
        }
        _ => Caller::Grpc(GrpcCaller::connect(&config.reach, method).await?),
    })
}

fn failed(step: &str, what_to_do: impl std::fmt::Display) -> u8 {
    println!("FAIL  {step}: {what_to_do}");
    FAILED
}
