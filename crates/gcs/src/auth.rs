//! Sign-in for GCS: Google's (the `google-sign-in` crate, which `grpc run
//! --auth google` shares), asking for Cloud Storage's scope.

pub use google_sign_in::{Auth, AuthError, CredentialEnv, Kind, metadata_email};

/// Reads and writes objects: what every workload needs, and no more.
pub const SCOPE: &str = "https://www.googleapis.com/auth/devstorage.read_write";
