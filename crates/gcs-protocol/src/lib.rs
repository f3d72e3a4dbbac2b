//! Facts of GCS that its client and the built-in emulator both need, and
//! nothing else: the server must not share the client's code paths, or an
//! interop test of one would prove less about the other.

pub mod crc;
pub mod rules;

/// `.../serviceAccounts/EMAIL:generateAccessToken` names the account acted as.
pub fn impersonated_email(url: &str) -> Option<String> {
    let after = url.rsplit_once("/serviceAccounts/")?.1;
    Some(after.split(':').next()?.to_string()).filter(|e| !e.is_empty())
}
