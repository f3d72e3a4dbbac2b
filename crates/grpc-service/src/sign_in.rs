//! `--auth google`: every call of both transports carries an OAuth token
//! from Google's sign-in (the crate GCS's `run` uses: every credential type,
//! tokens renewed before they expire, never printed), and only over https.

use crate::error::{Result, ServiceError};
use crate::options::ServiceArgs;
use crate::reach::Reach;
use engine::plan::TransportKind;
use engine::plan::flags::{ConfigError, fail};
use google_sign_in::{Auth, CLOUD_PLATFORM, CredentialEnv};
use http::{HeaderMap, HeaderValue, header::AUTHORIZATION};
use std::path::PathBuf;

/// Where a short scope name (`pubsub`) is a URL.
const SCOPE_ROOT: &str = "https://www.googleapis.com/auth/";

/// A run's sign-in, checked: its credentials file and scopes.
#[derive(Clone, Debug, PartialEq)]
pub struct SignIn {
    pub credentials: Option<PathBuf>,
    pub scopes: Vec<String>,
}

impl SignIn {
    /// `--auth`, `--credentials` and `--scopes` against where the calls go.
    pub fn of(args: &ServiceArgs, reach: &Reach, transports: &[TransportKind]) -> Result<Option<SignIn>, ConfigError> {
        let credentials = Some(args.credentials.trim()).filter(|c| !c.is_empty()).map(PathBuf::from);
        let scopes: Vec<String> = args.scopes.split(',').map(str::trim).filter(|s| !s.is_empty()).map(scope).collect();
        match args.auth.trim() {
            "none" | "" if credentials.is_some() => {
                fail("credentials", "--credentials is given without --auth google: add --auth google, or drop it")
            }
            "none" | "" if !scopes.is_empty() => {
                fail("scopes", "--scopes is given without --auth google: add --auth google, or drop it")
            }
            "none" | "" => Ok(None),
            "google" => {
                if reach.headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("authorization")) {
                    return fail("auth", "--header authorization and --auth google both sign in: give one of them");
                }
                for kind in transports {
                    let (url, flag) = match kind {
                        TransportKind::Json => (&reach.http_endpoint, "--http-endpoint"),
                        _ => (&reach.grpc_endpoint, "--grpc-endpoint"),
                    };
                    if !url.starts_with("https://") {
                        return fail(
                            "auth",
                            format!(
                                "--auth google sends tokens over TLS only, and {flag} {url} is plaintext: give its https:// URL"
                            ),
                        );
                    }
                }
                let scopes = if scopes.is_empty() { vec![CLOUD_PLATFORM.to_string()] } else { scopes };
                Ok(Some(SignIn { credentials, scopes }))
            }
            other => fail("auth", format!("--auth '{other}' is not one of none, google")),
        }
    }

    /// The credentials found, with a first token fetched, so that a bad
    /// key is said now, its source named, and not on the first call.
    pub async fn signed_in(&self) -> Result<Auth> {
        let scopes: Vec<&str> = self.scopes.iter().map(String::as_str).collect();
        let said =
            |e: google_sign_in::AuthError| ServiceError::Own { kind: crate::error::INPUT, message: e.to_string() };
        let auth =
            Auth::discover(self.credentials.as_deref(), &CredentialEnv::from_process(), &scopes).await.map_err(said)?;
        auth.bearer().await.map_err(said)?;
        Ok(auth)
    }

    /// `google (cloud-platform)`, as the plan says it before signing in.
    pub fn said(&self) -> String {
        let short: Vec<&str> = self.scopes.iter().map(|s| s.strip_prefix(SCOPE_ROOT).unwrap_or(s)).collect();
        format!("google ({})", short.join(", "))
    }
}

/// `pubsub` as `https://www.googleapis.com/auth/pubsub`; a URL as it is.
fn scope(text: &str) -> String {
    if text.contains("://") { text.to_string() } else { format!("{SCOPE_ROOT}{text}") }
}

/// A call's headers with its token, when the run signs in.
pub async fn with_token(mut headers: HeaderMap, auth: Option<&Auth>) -> Result<HeaderMap> {
    let Some(auth) = auth else { return Ok(headers) };
    let bearer = auth.bearer().await.map_err(|e| ServiceError::Own { kind: "token", message: e.to_string() })?;
    if let Some(bearer) = bearer {
        let mut value = HeaderValue::from_str(&bearer).map_err(|_| ServiceError::Own {
            kind: "token",
            message: "the credentials gave a token HTTP cannot carry".into(),
        })?;
        value.set_sensitive(true);
        headers.insert(AUTHORIZATION, value);
    }
    Ok(headers)
}

/// A refused token (revoked, or expired early) makes the credential start
/// over, so that the next call fetches a new one.
pub fn refused(error: &ServiceError, auth: Option<&Auth>) {
    if let Some(auth) = auth
        && matches!(error.kind().as_str(), "UNAUTHENTICATED" | "HTTP 401")
    {
        auth.refresh();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(auth: &str, credentials: &str, scopes: &str) -> ServiceArgs {
        ServiceArgs { auth: auth.into(), credentials: credentials.into(), scopes: scopes.into(), ..Default::default() }
    }

    fn reach(grpc: &str, http: &str) -> Reach {
        Reach { grpc_endpoint: grpc.into(), http_endpoint: http.into(), ..Reach::default() }
    }

    #[test]
    fn google_signs_in_over_tls_only_with_cloud_platform_unless_scopes_say_otherwise() {
        let both = [TransportKind::Json, TransportKind::Grpc];
        let tls = reach("https://127.0.0.1:1", "https://127.0.0.1:2");
        let sign_in = SignIn::of(&args("google", "", ""), &tls, &both).unwrap().unwrap();
        assert_eq!(sign_in.scopes, [CLOUD_PLATFORM]);
        assert_eq!(sign_in.said(), "google (cloud-platform)");
        let scoped = SignIn::of(&args("google", "k.json", "pubsub, https://x/y"), &tls, &both).unwrap().unwrap();
        assert_eq!(scoped.scopes, ["https://www.googleapis.com/auth/pubsub", "https://x/y"]);
        assert_eq!(scoped.credentials, Some(PathBuf::from("k.json")));
        let plain = reach("https://127.0.0.1:1", "http://127.0.0.1:2");
        let said = SignIn::of(&args("google", "", ""), &plain, &both).unwrap_err().message;
        assert_eq!(
            said,
            "--auth google sends tokens over TLS only, and --http-endpoint http://127.0.0.1:2 is plaintext: give its https:// URL"
        );
        assert!(SignIn::of(&args("google", "", ""), &plain, &[TransportKind::Grpc]).is_ok(), "gRPC alone is over TLS");
        assert_eq!(SignIn::of(&args("none", "", ""), &plain, &both).unwrap(), None);
        let stray = SignIn::of(&args("none", "k.json", ""), &tls, &both).unwrap_err().message;
        assert!(stray.starts_with("--credentials is given without --auth google"), "{stray}");
        let bad = SignIn::of(&args("gcs", "", ""), &tls, &both).unwrap_err().message;
        assert_eq!(bad, "--auth 'gcs' is not one of none, google");
    }
}
