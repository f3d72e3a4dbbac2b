//! Flags more than one target takes, declared once: the TLS files of a
//! target of calls (etcd, any gRPC service).

use clap::Args;
use engine::plan::flags::{ConfigError, fail};
use std::path::PathBuf;

/// A client certificate and its private key, for mutual TLS.
pub type CertAndKey = (PathBuf, PathBuf);

#[derive(Args, Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
    /// only when `tls` (an https:// endpoint), which they are for.
    pub fn identity(&self, tls: bool) -> Result<Option<CertAndKey>, ConfigError> {
        let identity = match (&self.cert, &self.key) {
            (Some(cert), Some(key)) => Some((cert.clone(), key.clone())),
            (None, None) => None,
            _ => return fail("cert", "--cert and --key go together: give both for mutual TLS"),
        };
        if !tls && (self.cacert.is_some() || identity.is_some()) {
            return fail(
                "cacert",
                "--cacert, --cert and --key are for https:// endpoints: use https:// in the endpoints",
            );
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
        assert_eq!(files(false, false, false).identity(false), Ok(None));
        assert_eq!(files(true, true, true).identity(true), Ok(Some(("c.pem".into(), "k.pem".into()))));
        assert_eq!(files(false, true, false).identity(true).unwrap_err().field, "cert");
        assert_eq!(files(false, false, true).identity(true).unwrap_err().field, "cert");
        assert_eq!(files(true, false, false).identity(false).unwrap_err().field, "cacert");
        assert_eq!(files(false, true, true).identity(false).unwrap_err().field, "cacert");
    }
}
