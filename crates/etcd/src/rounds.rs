//! A round's record and a transport's figures: the engine's, named for etcd.

pub use engine::calls::rounds::{CallRound as EtcdRound, CallSummary as EtcdSummary, Latency, quantiles, summarize};
