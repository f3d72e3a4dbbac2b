//! What the clients of every target share on the wire, below any target:
//! one crypto provider for rustls, connection counting for the meters,
//! connections that gather small writes (requests, an upload's frames), and
//! how a failed request is named in a report.

pub mod bulk_writes;
pub mod channels;
pub mod coalesce;
pub mod connections;
pub mod tls;
pub mod unary;

pub use connections::{CountConnections, grpc_code_name, root_cause};
