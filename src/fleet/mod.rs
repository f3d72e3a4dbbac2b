//! The `merge` and `compare` commands: reports read from files, merged or
//! set side by side. The arithmetic of a fleet is `engine::fleet`.

pub mod command;
pub mod inputs;
pub mod sweeps;
