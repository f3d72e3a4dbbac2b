//! `grpc run` against a real etcd with the .proto files Debian ships
//! (golang-etcd-server-dev): what the tests of it share.
#![allow(dead_code)]

use super::common::run;
use super::etcd_server::Etcd;
use serde_json::Value;

pub const GOCODE: &str = "/usr/share/gocode/src";

/// `--proto` and its `-I` directories for etcd 3.4's rpc.proto.
pub fn etcd_proto() -> Vec<String> {
    let rpc = format!("{GOCODE}/go.etcd.io/etcd/etcdserver/etcdserverpb/rpc.proto");
    assert!(std::path::Path::new(&rpc).exists(), "{rpc}: ./scripts/test installs golang-etcd-server-dev");
    let includes =
        ["go.etcd.io", "github.com/gogo/protobuf", "github.com/grpc-ecosystem/grpc-gateway/third_party/googleapis"];
    let mut args = vec!["--proto".to_string(), rpc];
    for dir in includes {
        args.extend(["-I".to_string(), format!("{GOCODE}/{dir}")]);
    }
    args
}

pub fn grpc_run(etcd: &Etcd, extra: &[&str]) -> (std::process::Output, Value) {
    let mut args: Vec<String> =
        ["grpc", "run", "--grpc-endpoint", &etcd.url, "--format", "json"].map(String::from).into();
    args.extend(etcd_proto());
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = run(&args, &[]);
    let report = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output, report)
}

pub fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
