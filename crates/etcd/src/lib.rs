//! etcd as a target: puts, ranges and watches through its HTTP/JSON gateway
//! and over gRPC, on the shared engine (schedule, verdict, meters).

pub mod client;
pub mod form;
pub mod front;
pub mod gateway;
pub mod grpc;
pub mod live;
pub mod meter;
pub mod metrics;
mod open_batch;
pub mod options;
pub mod planned;
pub mod proto;
pub mod report;
pub mod rounds;
pub mod runner;
mod tls;
pub mod watch;
pub mod workload;
