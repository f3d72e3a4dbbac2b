//! What can go wrong, said as one sentence each: the user's input (a
//! .proto, a method, data) before anything is sent, and the server's
//! answers as the report counts them.

/// A call's failure as every target of calls says it.
pub type ServiceError = engine::calls::error::CallFailure;

/// The user's input cannot be used: said with what to do.
pub const INPUT: &str = "input";
/// The two transports answered the same request differently.
pub const MISMATCH: &str = "mismatch";

pub type Result<T, E = ServiceError> = std::result::Result<T, E>;
