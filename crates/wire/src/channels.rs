//! gRPC channels as every target's clients open them: to an endpoint URL
//! (TLS with a CA and a client certificate when it is `https://`), with
//! Nagle off, each connection counted, and small writes coalesced.

use crate::coalesce::Coalescing;
use crate::connections::CountConnections;
use std::time::Duration;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

/// What TLS trusts and shows: a CA bundle (else the system's roots) and a
/// client certificate with its key, each PEM.
#[derive(Clone, Debug, Default)]
pub struct Trust {
    pub ca_pem: Option<Vec<u8>>,
    pub identity: Option<(Vec<u8>, Vec<u8>)>,
}

/// The endpoint for `url`; an error is a sentence about the URL or TLS.
pub fn endpoint(url: &str, trust: &Trust) -> Result<Endpoint, String> {
    let mut endpoint = Endpoint::from_shared(url.to_string())
        .map_err(|e| format!("'{url}' is not an endpoint URL: {e}"))?
        .connect_timeout(Duration::from_secs(10))
        .tcp_nodelay(true);
    if url.starts_with("https://") {
        let mut tls = match &trust.ca_pem {
            Some(pem) => ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem)),
            None => ClientTlsConfig::new().with_native_roots(),
        };
        if let Some((cert, key)) = &trust.identity {
            tls = tls.identity(Identity::from_pem(cert, key));
        }
        endpoint = endpoint.tls_config(tls).map_err(|e| format!("TLS setup failed: {e}"))?;
    }
    Ok(endpoint)
}

/// Connects now (so that a wrong address is said before any clock starts),
/// counting the connection in `connections`.
pub async fn connect(endpoint: Endpoint, connections: &CountConnections) -> Result<Channel, tonic::transport::Error> {
    crate::tls::install_crypto_provider();
    let mut tcp = hyper_util::client::legacy::connect::HttpConnector::new();
    tcp.enforce_http(false); // TLS, when asked for, is layered on top by tonic
    tcp.set_nodelay(true);
    let counted = tower::Layer::layer(connections, tcp);
    let connector = tower::ServiceExt::map_response(counted, Coalescing::new);
    endpoint.connect_with_connector(connector).await
}
