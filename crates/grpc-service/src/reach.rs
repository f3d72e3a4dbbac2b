//! How both transports reach the service: the gRPC and HTTP endpoints,
//! TLS (a CA, a client certificate), and the headers every call carries
//! (a bearer token, metadata), the same on both.

use crate::error::{Result, ServiceError};
use std::path::PathBuf;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reach {
    /// `http://127.0.0.1:2379` or `https://...`.
    pub grpc_endpoint: String,
    pub http_endpoint: String,
    pub cacert: Option<PathBuf>,
    /// Client certificate and key for mutual TLS.
    pub identity: Option<(PathBuf, PathBuf)>,
    /// `name: value`, sent as gRPC metadata and as HTTP headers.
    pub headers: Vec<(String, String)>,
    /// gRPC channels shared by the clients (HTTP/JSON opens what it needs).
    pub conns: u32,
}

impl Reach {
    /// The headers as a map; a name or value HTTP cannot carry is said.
    pub fn header_map(&self) -> Result<http::HeaderMap> {
        let mut map = http::HeaderMap::new();
        for (name, value) in &self.headers {
            let bad = || ServiceError::Own {
                kind: crate::error::INPUT,
                message: format!("--header '{name}: {value}' is not a header HTTP can carry"),
            };
            let name = http::HeaderName::from_bytes(name.trim().to_ascii_lowercase().as_bytes()).map_err(|_| bad())?;
            let value = http::HeaderValue::from_str(value.trim()).map_err(|_| bad())?;
            map.append(name, value);
        }
        Ok(map)
    }

    pub fn trust(&self) -> Result<wire::channels::Trust> {
        let read = |path: &PathBuf, flag: &str| {
            std::fs::read(path).map_err(|e| ServiceError::Own {
                kind: crate::error::INPUT,
                message: format!("{flag} {}: cannot read it ({e})", path.display()),
            })
        };
        Ok(wire::channels::Trust {
            ca_pem: self.cacert.as_ref().map(|p| read(p, "--cacert")).transpose()?,
            identity: match &self.identity {
                Some((cert, key)) => Some((read(cert, "--cert")?, read(key, "--key")?)),
                None => None,
            },
        })
    }
}

/// `name: value` (as curl's -H takes it).
pub fn parse_header(text: &str) -> std::result::Result<(String, String), String> {
    match text.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => Ok((name.trim().to_string(), value.trim().to_string())),
        _ => Err(format!("'{text}' is not a header: give it as 'name: value'")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_read_as_curl_takes_them() {
        assert_eq!(parse_header("authorization: Bearer x").unwrap(), ("authorization".into(), "Bearer x".into()));
        assert!(parse_header("nocolon").is_err());
        let reach = Reach { headers: vec![("X-Team".into(), "a".into())], ..Reach::default() };
        assert_eq!(reach.header_map().unwrap()["x-team"], "a");
        let bad = Reach { headers: vec![("bad name".into(), "a".into())], ..Reach::default() };
        assert!(bad.header_map().unwrap_err().to_string().contains("'bad name: a'"));
    }
}
