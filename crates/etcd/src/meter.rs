//! Bytes on the wire per transport: the engine's meter.

pub use engine::calls::meter::*;
