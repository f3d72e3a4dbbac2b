//! What every target whose work is calls (etcd's puts and ranges, any
//! service's methods) shares: a round of calls closed or open loop, its
//! record, a transport's figures over its complete rounds, and the bytes
//! each transport put on the wire.

pub mod batch;
pub mod bounded;
pub mod drive;
pub mod error;
mod finished;
pub mod host_part;
pub mod live;
pub mod logged;
pub mod merge;
pub mod meter;
pub mod report;
pub mod rounds;
pub mod runtime;
pub mod said;
pub mod sampled;
mod table;
