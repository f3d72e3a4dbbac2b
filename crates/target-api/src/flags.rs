//! Flags more than one target takes, declared once: the TLS files of a
//! target of calls (etcd, any gRPC service).

use clap::Args;
use engine::plan::flags::{ConfigError, fail};
use std::path::PathBuf;

/// A client certificate and its private key, for mutual TLS.
pub type CertAndKey = (PathBuf, PathBuf);

#[derive(Args, Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct TlsFlags {
    /// CA certificate (PEM) that signed the server's certificate, for https endpoints.
    #[arg(long, value_name = "FILE")]
    pub cacert: Option<PathBuf>,
    /// Client certificate (PEM) for mutual TLS, with --key.
    #[arg(long, value_name = "FILE")]
    pub cert: Option<PathBuf>,
    /// Client private key (PEM) for mutual TLS, with --cert.
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
}

impl TlsFlags {
    /// The client certificate and key, given both or neither; the TLS files
    /// only when `tls` (an https:// endpoint, set by `endpoints`: the flags
    /// the sentence names), which they are for.
    pub fn identity(&self, tls: bool, endpoints: &str) -> Result<Option<CertAndKey>, ConfigError> {
        let identity = match (&self.cert, &self.key) {
            (Some(cert), Some(key)) => Some((cert.clone(), key.clone())),
            (None, None) => None,
            _ => return fail("cert", "--cert and --key go together: give both for mutual TLS"),
        };
        if !tls && (self.cacert.is_some() || identity.is_some()) {
            let fix = format!("use https:// in {endpoints}");
            return fail("cacert", format!("--cacert, --cert and --key are for https:// endpoints: {fix}"));
        }
        Ok(identity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_needs_its_key_and_tls_files_need_https() {
        let files = |cacert: bool, cert: bool, key: bool| TlsFlags {
            cacert: cacert.then(|| "ca.pem".into()),
            cert: cert.then(|| "c.pem".into()),
            key: key.then(|| "k.pem".into()),
        };
        assert_eq!(files(false, false, false).identity(false, "--endpoints"), Ok(None));
        assert_eq!(files(true, false, false).identity(true, "--endpoints"), Ok(None), "a CA alone, for https");
        assert_eq!(files(true, true, true).identity(true, "--endpoints"), Ok(Some(("c.pem".into(), "k.pem".into()))));
        assert_eq!(files(false, true, false).identity(true, "--endpoints").unwrap_err().field, "cert");
        assert_eq!(files(false, false, true).identity(true, "--endpoints").unwrap_err().field, "cert");
        assert_eq!(files(true, false, false).identity(false, "--endpoints").unwrap_err().field, "cacert");
        let refused = files(false, true, true).identity(false, "--endpoints").unwrap_err();
        assert_eq!(refused.field, "cacert");
        assert!(refused.message.ends_with("use https:// in --endpoints"), "{}", refused.message);
    }
}
