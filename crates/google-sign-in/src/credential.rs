//! One credential, whatever its type, as something that hands out access
//! tokens. Service-account keys go through gcp_auth, which makes the
//! standard JWT-bearer grant at the key's `token_uri` (as Google's Go,
//! Python and Java libraries do for scoped keys). Every other type goes
//! through Google's own Rust crate, google-cloud-auth, which honours the URLs
//! in the file (`token_uri`, `token_url`, `service_account_impersonation_url`)
//! and `GCE_METADATA_HOST`; gcp_auth hard-codes Google's hosts for
//! `authorized_user` and the metadata server and has no impersonated or
//! external accounts. Neither flow is written here.

use super::AuthError;
use std::sync::Arc;

/// The credential types Google's client libraries accept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    ServiceAccount,
    AuthorizedUser,
    Impersonated,
    ExternalAccount,
    MetadataServer,
}

impl Kind {
    /// As the `type` field of a credentials file says it (the metadata
    /// server has no file: `gce_metadata`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::ServiceAccount => "service_account",
            Kind::AuthorizedUser => "authorized_user",
            Kind::Impersonated => "impersonated_service_account",
            Kind::ExternalAccount => "external_account",
            Kind::MetadataServer => "gce_metadata",
        }
    }
}

/// What a credentials file holds: its type and, when it says, who it acts as.
#[derive(Clone, Debug)]
pub struct Parsed {
    pub kind: Kind,
    pub principal: Option<String>,
    json: serde_json::Value,
}

impl Parsed {
    /// Reads the `type` of a credentials file (never its secrets).
    pub fn from_json(text: &str, source: &str) -> Result<Parsed, AuthError> {
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|_| AuthError::NotJson { source_name: source.to_string() })?;
        let unknown = || AuthError::UnknownType {
            source_name: source.to_string(),
            found: json["type"].as_str().map(String::from),
        };
        let kind = match json["type"].as_str() {
            Some("service_account") => Kind::ServiceAccount,
            Some("authorized_user") => Kind::AuthorizedUser,
            Some("impersonated_service_account") => Kind::Impersonated,
            Some("external_account") => Kind::ExternalAccount,
            _ => return Err(unknown()),
        };
        let principal = match kind {
            Kind::ServiceAccount => json["client_email"].as_str().map(String::from),
            Kind::Impersonated | Kind::ExternalAccount => {
                json["service_account_impersonation_url"].as_str().and_then(gcs_protocol::impersonated_email)
            }
            Kind::AuthorizedUser | Kind::MetadataServer => None,
        };
        if kind == Kind::ServiceAccount && (!json["private_key"].is_string() || principal.is_none()) {
            return Err(AuthError::IncompleteKey { source_name: source.to_string() });
        }
        Ok(Parsed { kind, principal, json })
    }

    /// The metadata server of the VM or pod this runs on.
    pub fn metadata_server(email: Option<String>) -> Parsed {
        Parsed { kind: Kind::MetadataServer, principal: email, json: serde_json::Value::Null }
    }

    /// A token source for it; `source` names where it came from, for errors.
    pub fn provider(&self, source: &str, scopes: &[String]) -> Result<Provider, AuthError> {
        wire::tls::install_crypto_provider();
        let built = match self.kind {
            Kind::ServiceAccount => {
                let account = gcp_auth::CustomServiceAccount::from_json(&self.json.to_string())
                    .map_err(|_| AuthError::BadPrivateKey { source_name: source.to_string() })?;
                return Ok(Provider::ServiceAccount(Arc::new(account)));
            }
            Kind::AuthorizedUser => google_cloud_auth::credentials::user_account::Builder::new(self.json.clone())
                .with_scopes(scopes.iter())
                .build(),
            Kind::Impersonated => google_cloud_auth::credentials::impersonated::Builder::new(self.json.clone())
                .with_scopes(scopes.iter())
                .build(),
            Kind::ExternalAccount => google_cloud_auth::credentials::external_account::Builder::new(self.json.clone())
                .with_scopes(scopes.iter())
                .build(),
            Kind::MetadataServer => {
                google_cloud_auth::credentials::mds::Builder::default().with_scopes(scopes.iter()).build()
            }
        };
        built.map(Provider::Google).map_err(|e| AuthError::Unusable {
            source_name: source.to_string(),
            kind: self.kind.name(),
            reason: super::redact(&e.to_string()),
        })
    }
}

/// Hands out access tokens (each library caches its own).
#[derive(Clone)]
pub enum Provider {
    ServiceAccount(Arc<gcp_auth::CustomServiceAccount>),
    Google(google_cloud_auth::credentials::Credentials),
}

impl Provider {
    /// The access token for the next request (an error text may come from a
    /// token endpoint: the caller redacts it).
    pub async fn token(&self, scopes: &[String]) -> Result<String, String> {
        match self {
            Provider::ServiceAccount(account) => {
                use gcp_auth::TokenProvider;
                let scopes: Vec<&str> = scopes.iter().map(String::as_str).collect();
                account.token(&scopes).await.map(|t| t.as_str().to_string()).map_err(|e| e.to_string())
            }
            Provider::Google(credentials) => {
                use google_cloud_auth::credentials::CacheableResource;
                match credentials.headers(http::Extensions::new()).await.map_err(|e| e.to_string())? {
                    CacheableResource::New { data, .. } => data
                        .get(http::header::AUTHORIZATION)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.strip_prefix("Bearer "))
                        .map(String::from)
                        .ok_or_else(|| "the credentials gave no bearer token".to_string()),
                    CacheableResource::NotModified => Err("the credentials gave no token".into()),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_is_named_with_the_account_it_acts_as_and_no_secret() {
        let sa = r#"{"type":"service_account","client_email":"sa@p.iam.gserviceaccount.com","private_key":"x"}"#;
        let parsed = Parsed::from_json(sa, "s").unwrap();
        assert_eq!(
            (parsed.kind, parsed.principal.as_deref()),
            (Kind::ServiceAccount, Some("sa@p.iam.gserviceaccount.com"))
        );
        let user = r#"{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r"}"#;
        assert_eq!(Parsed::from_json(user, "s").unwrap().principal, None);
        let url = "https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/t@p.iam.gserviceaccount.com:generateAccessToken";
        let imp = serde_json::json!({"type": "impersonated_service_account", "service_account_impersonation_url": url});
        let parsed = Parsed::from_json(&imp.to_string(), "s").unwrap();
        assert_eq!(
            (parsed.kind.name(), parsed.principal.as_deref()),
            ("impersonated_service_account", Some("t@p.iam.gserviceaccount.com"))
        );
        let unknown = Parsed::from_json(r#"{"type":"p12"}"#, "GOOGLE_CREDENTIALS").unwrap_err().to_string();
        assert!(unknown.starts_with("GOOGLE_CREDENTIALS is a \"p12\" credential"), "{unknown}");
        let incomplete = Parsed::from_json(r#"{"type":"service_account"}"#, "K").unwrap_err().to_string();
        assert!(incomplete.starts_with("K is a service account key without"), "{incomplete}");
    }
}
