//! Counts connections as a connector opens them: a tower layer over
//! reqwest's connector, and a wrapper around tonic's; and the error a failed
//! connection is said by.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

#[derive(Clone, Default)]
pub struct CountConnections {
    pub opened: Arc<AtomicU64>,
}

impl<S> tower::Layer<S> for CountConnections {
    type Service = Counted<S>;

    fn layer(&self, inner: S) -> Counted<S> {
        Counted { inner, opened: self.opened.clone() }
    }
}

/// A connector that counts each connection it is asked to open.
#[derive(Clone)]
pub struct Counted<S> {
    inner: S,
    opened: Arc<AtomicU64>,
}

impl<S, R> tower::Service<R> for Counted<S>
where
    S: tower::Service<R>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> S::Future {
        self.opened.fetch_add(1, Ordering::Relaxed);
        self.inner.call(request)
    }
}

/// The innermost error of a chain: the one that says what actually failed.
pub fn root_cause(error: &dyn std::error::Error) -> String {
    let mut cause = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        cause = inner.to_string();
        source = inner.source();
    }
    cause
}

/// `FailedPrecondition` -> `FAILED_PRECONDITION`, as gRPC spells its codes.
pub fn grpc_code_name(code: tonic::Code) -> String {
    let mut out = String::new();
    for (i, c) in format!("{code:?}").chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

#[cfg(test)]
mod grpc_code_tests {
    use super::grpc_code_name;

    #[test]
    fn codes_are_spelled_as_grpc_spells_them() {
        assert_eq!(grpc_code_name(tonic::Code::FailedPrecondition), "FAILED_PRECONDITION");
        assert_eq!(grpc_code_name(tonic::Code::Unavailable), "UNAVAILABLE");
    }
}
