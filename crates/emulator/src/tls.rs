//! The emulator's TLS (`--tls`), so that the clients' real path to GCS runs
//! on loopback: ALPN, trust roots, hostname checks. A CA and a certificate
//! for `localhost` and `127.0.0.1` signed by it are made at start (the CA
//! is written to a file for clients to trust), or a given certificate and
//! key are served.

use std::path::PathBuf;
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;

/// What the emulator serves over TLS.
#[derive(Clone, Debug)]
pub enum TlsMode {
    /// A CA and a `localhost`/`127.0.0.1` certificate made at start.
    Generated,
    /// A certificate chain and its private key, PEM files.
    Given { cert: PathBuf, key: PathBuf },
}

/// Acceptors for both APIs, and the CA's PEM when it was made here.
pub struct ServerTls {
    pub json: TlsAcceptor,
    pub grpc: TlsAcceptor,
    pub ca_pem: Option<String>,
}

impl ServerTls {
    pub fn new(mode: &TlsMode) -> std::io::Result<ServerTls> {
        // rustls needs one process-wide provider; one installed already is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let (chain_pem, key_pem, ca_pem) = match mode {
            TlsMode::Generated => {
                let (ca, chain, key) = generate().map_err(std::io::Error::other)?;
                (chain, key, Some(ca))
            }
            TlsMode::Given { cert, key } => (read(cert, "--tls-cert")?, read(key, "--tls-key")?, None),
        };
        use rustls::pki_types::pem::PemObject;
        let chain = parse_chain(&chain_pem)?;
        let key = rustls::pki_types::PrivateKeyDer::from_pem_slice(key_pem.as_bytes())
            .map_err(|e| invalid(format!("--tls-key holds no private key this emulator can use: {e}")))?;
        // gRPC is HTTP/2 only; the JSON API takes either, as GCS's does.
        let acceptor = |alpn: &[&[u8]]| -> std::io::Result<TlsAcceptor> {
            let mut config = rustls::ServerConfig::builder()
                .with_no_client_auth()
                .with_single_cert(chain.clone(), key.clone_key())
                .map_err(|e| invalid(format!("the TLS certificate and key do not go together: {e}")))?;
            config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
            Ok(TlsAcceptor::from(Arc::new(config)))
        };
        Ok(ServerTls { json: acceptor(&[b"h2", b"http/1.1"])?, grpc: acceptor(&[b"h2"])?, ca_pem })
    }
}

fn read(path: &PathBuf, flag: &str) -> std::io::Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot read {flag} {}: {e}", path.display())))
}

fn invalid(message: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, message)
}

fn parse_chain(pem: &str) -> std::io::Result<Vec<rustls::pki_types::CertificateDer<'static>>> {
    use rustls::pki_types::pem::PemObject;
    let chain: Vec<_> = rustls::pki_types::CertificateDer::pem_slice_iter(pem.as_bytes())
        .collect::<Result<_, _>>()
        .map_err(|e| invalid(format!("--tls-cert is not a PEM certificate chain: {e}")))?;
    if chain.is_empty() {
        return Err(invalid("--tls-cert holds no certificate".into()));
    }
    Ok(chain)
}

/// A CA, and a server certificate for `localhost` and `127.0.0.1` it
/// signed: (CA PEM, server certificate PEM, server key PEM).
pub fn generate() -> Result<(String, String, String), rcgen::Error> {
    generate_for(&["localhost", "127.0.0.1"])
}

/// The same, for the given names (tests make certificates for other hosts).
pub fn generate_for(names: &[&str]) -> Result<(String, String, String), rcgen::Error> {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, "gcs-speed-tui emulator CA");
    ca.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign, KeyUsagePurpose::DigitalSignature];
    let ca_key = KeyPair::generate()?;
    let ca_cert = ca.self_signed(&ca_key)?;
    let mut server = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())?;
    server.distinguished_name.push(DnType::CommonName, names.first().copied().unwrap_or("localhost"));
    server.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let server_key = KeyPair::generate()?;
    let issuer = Issuer::new(ca, ca_key);
    let server_cert = server.signed_by(&server_key, &issuer)?;
    Ok((ca_cert.pem(), server_cert.pem(), server_key.serialize_pem()))
}
