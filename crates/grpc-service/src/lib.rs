//! Any gRPC service as a target: each call sent over gRPC and over the
//! service's HTTP/JSON mapping (its `google.api.http` rule, or Connect's
//! JSON protocol), as dynamic messages from its .proto, a descriptor set or
//! the server's reflection, on the shared engine.

mod call_headers;
mod caller;
pub mod compare;
pub mod config;
mod doctor;
pub mod error;
pub mod form;
pub mod front;
pub mod grpc;
pub mod http;
pub mod mapping;
pub mod method;
pub mod options;
pub mod planned;
pub mod reach;
pub mod reflect;
pub mod report;
pub mod routing;
pub mod runner;
mod sampler;
pub mod schema;
pub mod sign_in;
pub mod template;

pub use error::ServiceError;

#[cfg(test)]
pub(crate) mod testing {
    use std::sync::atomic::{AtomicU32, Ordering};

    /// `text` compiled as a .proto of its own, in a directory of its own
    /// (tests run at once).
    pub fn compile(text: &str) -> prost_reflect::DescriptorPool {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("grpc-service-test-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("t{n}.proto"));
        std::fs::write(&path, text).unwrap();
        let pool = crate::schema::compile(&crate::schema::ProtoFiles { files: vec![path], includes: vec![] });
        std::fs::remove_dir_all(&dir).unwrap();
        pool.unwrap()
    }
}
