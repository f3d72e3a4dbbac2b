//! Connect for Node (tests/connect_server) serving the store from a
//! descriptor set, for `grpc run`'s tests: started, asked what arrived,
//! stopped when dropped.
#![allow(dead_code)]

use super::common::run;
use serde_json::Value;
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};

pub const SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/connect_server");

/// The store's .proto compiled by protox (as `grpc run --proto` does),
/// written as a descriptor set for the servers to load.
pub fn store_descriptors() -> tempfile::NamedTempFile {
    let files = gcs_speed_tui::grpc_service::schema::ProtoFiles {
        files: vec![Path::new(SERVER).join("store.proto")],
        includes: vec![],
    };
    let pool = gcs_speed_tui::grpc_service::schema::compile(&files).unwrap();
    let descriptors = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(descriptors.path(), pool.encode_to_vec()).unwrap();
    descriptors
}

/// The JSON line a server prints once it listens.
pub fn first_line(child: &mut Child) -> Value {
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap_or_else(|_| panic!("the server's ports: {line}"))
}

pub struct ConnectServer {
    child: Child,
    pub grpc: String,
    pub http: String,
    /// The descriptor set the server was started from.
    pub descriptors: tempfile::NamedTempFile,
}

impl ConnectServer {
    pub fn start() -> ConnectServer {
        assert!(Path::new(SERVER).join("node_modules").exists(), "./scripts/test runs npm ci in {SERVER}");
        let descriptors = store_descriptors();
        let mut child = Command::new("node")
            .arg(Path::new(SERVER).join("server.mjs"))
            .arg(descriptors.path())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node runs");
        let ports = first_line(&mut child);
        let url = |port: &Value| format!("http://127.0.0.1:{port}");
        ConnectServer { grpc: url(&ports["grpc"]), http: url(&ports["http"]), child, descriptors }
    }

    /// The server's `/stats`, over a plain HTTP/1.0 request of our own.
    pub fn stats(&self) -> Value {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(self.http.trim_start_matches("http://")).unwrap();
        stream.write_all(b"GET /stats HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (_, body) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("an HTTP answer: {answer}"));
        serde_json::from_str(body).unwrap_or_else(|_| panic!("JSON stats: {body}"))
    }
}

impl Drop for ConnectServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn grpc_run(server: &ConnectServer, extra: &[&str]) -> (std::process::Output, Value) {
    grpc_run_at(server, &server.http, extra)
}

/// `grpc run` with HTTP/JSON sent to `http` (the h2c port for Connect over HTTP/2).
pub fn grpc_run_at(server: &ConnectServer, http: &str, extra: &[&str]) -> (std::process::Output, Value) {
    let descriptors = server.descriptors.path().to_str().unwrap();
    let base = ["grpc", "run", "--grpc-endpoint", &server.grpc, "--http-endpoint", http];
    let args = [&base[..], &["--http-mapping", "connect", "--format", "json"], extra].concat();
    let args = [&args[..], &["--descriptor-set", descriptors]].concat();
    let output = run(&args, &[]);
    let report = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output, report)
}
