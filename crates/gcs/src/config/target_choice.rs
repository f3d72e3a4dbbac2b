//! Where a run goes: the built-in emulator, another endpoint, or real GCS,
//! chosen in the documented order from flags and the environment.

use super::{ConfigError, DEFAULT_EMULATOR_BUCKET, Options, TransportKind, fail};

/// Where the uploads go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Target {
    /// The emulator built into this binary, started for the run.
    #[default]
    BuiltIn,
    /// Another emulator or a private endpoint: plaintext allowed, no auth.
    Endpoint { json_url: Option<String>, grpc_url: Option<String> },
    /// storage.googleapis.com with credentials.
    Gcs,
}

impl Target {
    pub fn kind(&self) -> &'static str {
        match self {
            Target::BuiltIn => "emulator",
            Target::Endpoint { .. } => "endpoint",
            Target::Gcs => "gcs",
        }
    }
}

/// The environment the target choice reads (passed in, so tests need no
/// globals): STORAGE_EMULATOR_HOST(_GRPC), and SSL_CERT_FILE (CA
/// certificates to trust, as --ca-cert).
pub use target_api::Environment;

impl Options {
    /// `--emulator`; else an explicit endpoint or STORAGE_EMULATOR_HOST(_GRPC);
    /// else real GCS when a bucket is named; else the built-in emulator.
    pub(super) fn choose_target(
        &self,
        env: &Environment,
        transports: &[TransportKind],
        notes: &mut Vec<String>,
    ) -> Result<(Target, String), ConfigError> {
        let bucket = self.bucket.trim().to_string();
        if !bucket.is_empty() {
            gcs_protocol::rules::validate_bucket_name(&bucket)
                .map_err(|e| ConfigError { field: "bucket", message: format!("--bucket: {e}") })?;
        }
        let named = |value: &str| Some(value.trim().to_string()).filter(|v| !v.is_empty());
        let json_url = named(&self.endpoint)
            .or_else(|| env.var("STORAGE_EMULATOR_HOST").map(String::from))
            .map(|u| with_scheme(&u));
        let grpc_url = named(&self.grpc_endpoint)
            .or_else(|| env.var("STORAGE_EMULATOR_HOST_GRPC").map(String::from))
            .map(|u| with_scheme(&u));
        let or_default = |bucket: String| {
            if bucket.is_empty() { DEFAULT_EMULATOR_BUCKET.to_string() } else { bucket }
        };
        if self.emulator {
            return Ok((Target::BuiltIn, or_default(bucket)));
        }
        for (url, field) in [(&json_url, "endpoint"), (&grpc_url, "grpc_endpoint")] {
            if let Some(url) = url
                && !(url.starts_with("http://") || url.starts_with("https://"))
            {
                let flag = field.replace('_', "-");
                return fail(
                    field,
                    format!("--{flag} '{url}' is not an http:// or https:// address, like http://127.0.0.1:9023"),
                );
            }
        }
        if json_url.is_some() || grpc_url.is_some() {
            if transports.contains(&TransportKind::Json) && json_url.is_none() {
                return fail(
                    "endpoint",
                    "a gRPC endpoint is set but no JSON one: add --endpoint URL (or STORAGE_EMULATOR_HOST), or use --transports grpc",
                );
            }
            if transports.iter().any(|kind| kind.is_grpc()) && grpc_url.is_none() {
                return fail(
                    "grpc_endpoint",
                    "a JSON endpoint is set but no gRPC one: add --grpc-endpoint HOST:PORT (or STORAGE_EMULATOR_HOST_GRPC), or use --transports http-json",
                );
            }
            return Ok((Target::Endpoint { json_url, grpc_url }, or_default(bucket)));
        }
        if !bucket.is_empty() {
            return Ok((Target::Gcs, bucket));
        }
        notes.push("no --bucket given: using the built-in emulator (numbers are for loopback, not GCS)".into());
        Ok((Target::BuiltIn, DEFAULT_EMULATOR_BUCKET.to_string()))
    }
}

/// Whether an endpoint takes OAuth tokens: `--auth gcs` or `none`, or by
/// default tokens for https to a host that is not loopback (a PSC or
/// regional endpoint), none for loopback and plaintext (emulators).
pub fn endpoint_auth(mode: &str, urls: [Option<&str>; 2]) -> Result<bool, String> {
    match mode.trim() {
        "gcs" => Ok(true),
        "none" => Ok(false),
        "auto" | "" => Ok(urls.iter().flatten().any(|url| {
            let Some(rest) = url.strip_prefix("https://") else { return false };
            let host = rest.split('/').next().unwrap_or_default();
            let host = host.rsplit_once(':').map_or(host, |(h, _)| h).trim_matches(['[', ']']);
            let loopback = host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
            !loopback
        })),
        other => Err(format!("--auth '{other}' is not one of auto, gcs, none")),
    }
}

/// Emulator hosts come with or without a scheme; without one, plain http.
/// Another scheme is kept as given, for the caller to refuse.
pub fn with_scheme(host: &str) -> String {
    let host = host.trim().trim_end_matches('/');
    if host.contains("://") { host.to_string() } else { format!("http://{host}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_get_tokens_when_https_leaves_the_machine_or_when_asked() {
        let auth = |mode: &str, url: &str| endpoint_auth(mode, [Some(url), None]).unwrap();
        assert!(auth("auto", "https://storage.us-east1.rep.googleapis.com"));
        assert!(auth("auto", "https://10.0.0.5:443"), "a PSC address");
        assert!(!auth("auto", "https://127.0.0.1:9000"), "loopback");
        assert!(!auth("auto", "https://localhost:9000"));
        assert!(!auth("auto", "https://[::1]:9000"));
        assert!(!auth("auto", "http://storage.example.com"), "plaintext");
        assert!(auth("gcs", "https://127.0.0.1:9000"));
        assert!(!auth("none", "https://storage.googleapis.com"));
        assert_eq!(endpoint_auth("yes", [None, None]).unwrap_err(), "--auth 'yes' is not one of auto, gcs, none");
    }

    #[test]
    fn target_choice_follows_the_documented_order() {
        let env = Environment::of([
            ("STORAGE_EMULATOR_HOST", "localhost:9023"),
            ("STORAGE_EMULATOR_HOST_GRPC", "localhost:9024"),
        ]);
        let with_bucket = Options { bucket: "my-bucket".into(), ..Options::default() };
        assert_eq!(with_bucket.validate(&Environment::default()).unwrap().target, Target::Gcs);
        let endpoint = with_bucket.validate(&env).unwrap();
        assert_eq!(
            endpoint.target,
            Target::Endpoint {
                json_url: Some("http://localhost:9023".into()),
                grpc_url: Some("http://localhost:9024".into())
            }
        );
        let built_in = Options { emulator: true, ..with_bucket.clone() }.validate(&env).unwrap();
        assert_eq!((built_in.target, built_in.bucket.as_str()), (Target::BuiltIn, "my-bucket"));
        let json_only_env = Environment::of([("STORAGE_EMULATOR_HOST", "http://h:1")]);
        assert_eq!(with_bucket.validate(&json_only_env).unwrap_err().field, "grpc_endpoint");
        let json_only = Options { transports: "http-json".into(), ..with_bucket };
        assert!(json_only.validate(&json_only_env).is_ok());
        let ftp = Options { endpoint: "ftp://x".into(), ..json_only };
        let error = ftp.validate(&Environment::default()).unwrap_err();
        assert_eq!(
            error.message,
            "--endpoint 'ftp://x' is not an http:// or https:// address, like http://127.0.0.1:9023"
        );
    }
}
