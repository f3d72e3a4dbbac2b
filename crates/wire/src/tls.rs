//! rustls needs one process-wide crypto provider (ring) before any client is built.

pub fn install_crypto_provider() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Another part of the process may have installed one already: that is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
