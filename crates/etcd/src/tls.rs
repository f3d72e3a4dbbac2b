//! The PEM files given for TLS to the cluster, read once with a sentence
//! naming the flag when one cannot be read.

use super::client::EtcdError;
use std::path::Path;

pub fn read(path: &Path, flag: &str) -> Result<Vec<u8>, EtcdError> {
    std::fs::read(path).map_err(|e| EtcdError::Connection(format!("{flag} {}: {e}", path.display())))
}
