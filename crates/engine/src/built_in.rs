//! A server built into the binary that a target can run against (GCS's
//! emulator), which the target's crate does not import: the binary hands
//! it over, so that a target never depends on what it is tested against.

use std::future::Future;
use std::pin::Pin;

/// A server kept running for as long as this is held.
pub type Server = Box<dyn std::any::Any + Send + Sync>;

/// A started server, and its JSON and gRPC URLs.
pub type Started = Pin<Box<dyn Future<Output = std::io::Result<(Server, String, String)>> + Send>>;

pub trait BuiltInServer: Send + Sync {
    /// A standing fault as the server's grammar reads it: the sentence that
    /// says what is wrong, or nothing for a fault it serves.
    fn check_fault(&self, text: &str) -> Result<(), String>;
    /// Starts it on loopback, with `fault` (checked) standing, keeping the
    /// bytes it is sent when `retain` (reads need them back).
    fn start(&self, fault: &str, retain: bool) -> Started;
}
