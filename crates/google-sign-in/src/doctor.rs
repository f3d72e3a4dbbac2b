//! `doctor`'s sign-in steps, the same for every target that signs in (GCS's
//! `doctor`, `grpc doctor --auth google`): a line for the credentials
//! found (source, type, account) and one for a token, never shown.

use super::{Auth, CredentialEnv};
use std::path::Path;

/// Prints the credentials line and the token line; the credentials when
/// both passed (`None`: a line said what to do, and what needs a token is
/// not to be tried).
pub async fn sign_in_steps(flag: Option<&Path>, scopes: &[&str]) -> Option<Auth> {
    let auth = match Auth::discover(flag, &CredentialEnv::from_process(), scopes).await {
        Ok(auth) => auth,
        Err(error) => {
            println!("FAIL  credentials: {error}");
            println!("skip  token: not asked for without credentials");
            return None;
        }
    };
    println!("ok    credentials: {}", auth.describe());
    if let Err(error) = auth.bearer().await {
        println!("FAIL  token: {error}");
        return None;
    }
    println!("ok    token: an access token was issued (not shown)");
    Some(auth)
}
