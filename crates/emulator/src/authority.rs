//! `--require-auth`: every API call carries `Authorization: Bearer TOKEN`
//! with a token this emulator issued (and that has not expired or been
//! revoked) or a self-signed JWT of a service account it trusts. Tokens are
//! issued by its OAuth endpoints (see `oauth`) to the credentials it was
//! told to trust (`--trust FILE`), as Google issues them to the keys and
//! accounts it knows. `--deny PERMISSION` takes a permission away from
//! every caller, to see what a client says when one is missing.

use super::jwt::{self, TrustedKey};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

#[derive(Clone, Debug)]
pub struct AuthOptions {
    pub required: bool,
    /// How long an issued token is good for (GCS: an hour).
    pub token_ttl: Duration,
    /// Credential files (parsed) whose holders may get tokens.
    pub trusted: Vec<serde_json::Value>,
    /// Permissions no caller has (`storage.objects.delete`).
    pub denied: Vec<String>,
    /// The metadata server's default service account.
    pub metadata_email: String,
}

impl Default for AuthOptions {
    fn default() -> Self {
        Self {
            required: false,
            token_ttl: Duration::from_secs(3600),
            trusted: Vec::new(),
            denied: Vec::new(),
            metadata_email: "default@emulator.iam.gserviceaccount.com".into(),
        }
    }
}

/// The permissions the emulator checks (and `--deny` can take away).
pub const PERMISSIONS: [&str; 4] =
    ["storage.objects.create", "storage.objects.delete", "storage.objects.get", "storage.objects.list"];

/// A user's refresh token, as an `authorized_user` file holds it.
struct TrustedUser {
    client_id: String,
    client_secret: String,
    refresh_token: String,
}

struct Issued {
    principal: String,
    issued: Instant,
    expires: Instant,
    revoked: bool,
    requests: u64,
    last_used: Option<Instant>,
}

/// How one issued token was used: what shows whether a client reuses a
/// token while it is good and renews it in time.
#[derive(Clone, Copy, Debug)]
pub struct TokenUse {
    pub issued: Instant,
    /// Requests it was accepted for.
    pub requests: u64,
    pub last_used: Option<Instant>,
}

pub struct Authority {
    pub required: bool,
    pub ttl: Duration,
    keys: Vec<TrustedKey>,
    users: Vec<TrustedUser>,
    /// External accounts' subject tokens (what their credential source holds).
    subject_tokens: Vec<String>,
    /// Accounts trusted callers may impersonate.
    impersonable: Vec<String>,
    denied: Vec<String>,
    pub metadata_email: String,
    issued: Mutex<HashMap<String, Issued>>,
    pub tokens_issued: AtomicU64,
    pub refused: AtomicU64,
}

/// Why a request was refused: said in the 401's message.
pub type Refusal = String;

impl Authority {
    pub fn new(options: &AuthOptions) -> Result<Authority, String> {
        if let Some(unknown) = options.denied.iter().find(|p| !PERMISSIONS.contains(&p.as_str())) {
            return Err(format!(
                "--deny {unknown} is not a permission it checks: use one of {}",
                PERMISSIONS.join(", ")
            ));
        }
        let mut authority = Authority {
            required: options.required,
            ttl: options.token_ttl,
            keys: Vec::new(),
            users: Vec::new(),
            subject_tokens: Vec::new(),
            impersonable: Vec::new(),
            denied: options.denied.clone(),
            metadata_email: options.metadata_email.clone(),
            issued: Mutex::default(),
            tokens_issued: AtomicU64::new(0),
            refused: AtomicU64::new(0),
        };
        for credential in &options.trusted {
            authority.trust(credential).map_err(|e| format!("--trust: {e}"))?;
        }
        Ok(authority)
    }

    /// Takes in a credential file: its key, refresh token or subject token
    /// may get tokens, and an account it impersonates may be impersonated.
    fn trust(&mut self, credential: &serde_json::Value) -> Result<(), String> {
        let text = |field: &str| credential[field].as_str().unwrap_or_default().to_string();
        match credential["type"].as_str() {
            Some("service_account") => self.keys.push(TrustedKey::from_key_file(credential)?),
            Some("authorized_user") => self.users.push(TrustedUser {
                client_id: text("client_id"),
                client_secret: text("client_secret"),
                refresh_token: text("refresh_token"),
            }),
            Some("impersonated_service_account") => {
                self.trust(&credential["source_credentials"])?;
                self.impersonable.extend(gcs_protocol::impersonated_email(&text("service_account_impersonation_url")));
            }
            Some("external_account") => {
                let path = credential["credential_source"]["file"]
                    .as_str()
                    .ok_or("an external_account to trust needs a file credential_source")?;
                let token = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
                self.subject_tokens.push(token.trim().to_string());
                self.impersonable.extend(gcs_protocol::impersonated_email(&text("service_account_impersonation_url")));
            }
            other => return Err(format!("cannot trust a {other:?} credential")),
        }
        Ok(())
    }

    /// A new token for `principal`, good for the configured time.
    pub fn issue(&self, principal: &str) -> (String, Duration) {
        let token = format!("ya29.emulator-{:016x}{:016x}", units::random_u64(), units::random_u64());
        let now = Instant::now();
        let issued = Issued {
            principal: principal.to_string(),
            issued: now,
            expires: now + self.ttl,
            revoked: false,
            requests: 0,
            last_used: None,
        };
        self.issued.lock().unwrap().insert(token.clone(), issued);
        self.tokens_issued.fetch_add(1, Ordering::Relaxed);
        (token, self.ttl)
    }

    /// Revokes a token (Google's /revoke): later requests with it are refused.
    pub fn revoke(&self, token: &str) -> bool {
        self.issued.lock().unwrap().get_mut(token).map(|t| t.revoked = true).is_some()
    }

    /// Revokes every token issued so far (as a key's deletion would).
    pub fn revoke_all(&self) -> usize {
        let mut issued = self.issued.lock().unwrap();
        issued.values_mut().for_each(|t| t.revoked = true);
        issued.len()
    }

    /// Each token issued so far, in the order issued.
    pub fn token_uses(&self) -> Vec<TokenUse> {
        let issued = self.issued.lock().unwrap();
        let mut uses: Vec<TokenUse> = issued
            .values()
            .map(|t| TokenUse { issued: t.issued, requests: t.requests, last_used: t.last_used })
            .collect();
        uses.sort_by_key(|u| u.issued);
        uses
    }

    /// Who a request's `Authorization` header speaks for, or why not.
    pub fn principal(&self, authorization: Option<&str>) -> Result<String, Refusal> {
        let refused = |why: &str| {
            self.refused.fetch_add(1, Ordering::Relaxed);
            Err(why.to_string())
        };
        let Some(token) = authorization.and_then(|h| h.strip_prefix("Bearer ")).map(str::trim) else {
            return refused("the request has no Authorization: Bearer token");
        };
        if let Some(issued) = self.issued.lock().unwrap().get_mut(token) {
            let now = Instant::now();
            return if issued.revoked {
                refused("the token was revoked")
            } else if issued.expires <= now {
                refused("the token has expired")
            } else {
                issued.requests += 1;
                issued.last_used = Some(now);
                Ok(issued.principal.clone())
            };
        }
        if token.matches('.').count() == 2 {
            // A service account's self-signed JWT, used as the access token.
            return match self.self_signed(token) {
                Ok(email) => Ok(email),
                Err(why) => refused(&why),
            };
        }
        refused("the token was not issued by this emulator")
    }

    fn self_signed(&self, token: &str) -> Result<String, String> {
        let verified = jwt::verify(token, &self.keys)?;
        jwt::check_times(&verified.claims, now_s())?;
        let iat = verified.claims["iat"].as_u64().unwrap_or_default();
        if iat + self.ttl.as_secs() <= now_s() {
            return Err("the token has expired (--token-ttl)".into());
        }
        let scope = verified.claims["scope"].as_str().unwrap_or_default();
        let audience = verified.claims["aud"].as_str().unwrap_or_default();
        if !jwt::grants_storage(scope) && !audience.contains("storage.googleapis.com") {
            return Err("the JWT grants no Cloud Storage scope".into());
        }
        Ok(verified.signer.email)
    }

    /// A JWT-bearer grant's assertion: signed by a trusted key, for our
    /// token endpoint, current, asking for Cloud Storage.
    pub fn assertion(&self, assertion: &str) -> Result<String, String> {
        let verified = jwt::verify(assertion, &self.keys)?;
        jwt::check_times(&verified.claims, now_s())?;
        if !verified.claims["aud"].as_str().is_some_and(|aud| aud.ends_with("/token")) {
            return Err("the assertion's aud is not this token endpoint".into());
        }
        if !jwt::grants_storage(verified.claims["scope"].as_str().unwrap_or_default()) {
            return Err("the assertion asks for no Cloud Storage scope".into());
        }
        Ok(verified.signer.email)
    }

    /// The `authorized_user` whose refresh token this is.
    pub fn refresh_grant(&self, client_id: &str, client_secret: &str, refresh_token: &str) -> Option<String> {
        self.users
            .iter()
            .find(|u| u.client_id == client_id && u.client_secret == client_secret && u.refresh_token == refresh_token)
            .map(|u| format!("user of OAuth client {}", u.client_id))
    }

    /// An external account's subject token exchanged at the STS endpoint.
    pub fn subject_token(&self, token: &str) -> Option<String> {
        self.subject_tokens.contains(&token.trim().to_string()).then(|| "external account (workload identity)".into())
    }

    pub fn may_impersonate(&self, email: &str) -> bool {
        self.impersonable.iter().any(|e| e == email)
    }

    /// Whether callers hold `permission` (all do, but those `--deny`ed).
    pub fn grants(&self, permission: &str) -> bool {
        !self.denied.iter().any(|d| d == permission)
    }
}

pub fn now_s() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn issued_tokens_expire_and_can_be_revoked() {
        let authority =
            Authority::new(&AuthOptions { token_ttl: Duration::from_millis(50), ..AuthOptions::default() }).unwrap();
        let (token, _) = authority.issue("sa@p");
        assert_eq!(authority.principal(Some(&format!("Bearer {token}"))), Ok("sa@p".into()));
        assert_eq!(authority.token_uses().iter().map(|u| u.requests).collect::<Vec<_>>(), [1]);
        assert_eq!(authority.principal(None).unwrap_err(), "the request has no Authorization: Bearer token");
        assert_eq!(authority.principal(Some("Bearer nope")).unwrap_err(), "the token was not issued by this emulator");
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(authority.principal(Some(&format!("Bearer {token}"))).unwrap_err(), "the token has expired");
        let (other, _) = authority.issue("sa@p");
        assert!(authority.revoke(&other));
        assert_eq!(authority.principal(Some(&format!("Bearer {other}"))).unwrap_err(), "the token was revoked");
        assert_eq!(authority.refused.load(Ordering::Relaxed), 4);
    }

    #[test]
    fn a_trusted_keys_self_signed_jwt_is_accepted_and_a_strangers_is_not() {
        let key = serde_json::json!({
            "type": "service_account",
            "client_email": "sa@p.iam.gserviceaccount.com",
            "private_key": include_str!("../../../tests/data/test-key.pem"),
        });
        let authority = Authority::new(&AuthOptions { trusted: vec![key], ..AuthOptions::default() }).unwrap();
        let now = now_s();
        let claims = |iss: &str| {
            serde_json::json!({"iss": iss, "sub": iss, "iat": now, "exp": now + 3600,
                "scope": "https://www.googleapis.com/auth/devstorage.read_write"})
        };
        let pem = include_str!("../../../tests/data/test-key.pem");
        let token = jwt::tests::sign(&claims("sa@p.iam.gserviceaccount.com"), pem);
        assert_eq!(authority.principal(Some(&format!("Bearer {token}"))), Ok("sa@p.iam.gserviceaccount.com".into()));
        let stranger = jwt::tests::sign(&claims("x@p.iam.gserviceaccount.com"), pem);
        assert!(authority.principal(Some(&format!("Bearer {stranger}"))).unwrap_err().contains("no trusted key"));
    }

    #[test]
    fn a_denied_permission_is_no_callers() {
        let options = AuthOptions { denied: vec!["storage.objects.delete".into()], ..AuthOptions::default() };
        let authority = Authority::new(&options).unwrap();
        assert!(!authority.grants("storage.objects.delete"));
        assert!(authority.grants("storage.objects.create"));
    }
}
