//! Endpoints that answer but are not what they claim: a GCS run whose
//! gRPC endpoint is etcd (another gRPC service) or a JSON port (HTTP/2, not
//! gRPC), and etcd runs pointed at the GCS emulator's ports. Each is refused
//! before anything is timed, in one sentence that says what answered, with
//! exit 2 and no report.

mod common;
mod etcd_server;
use common::*;

fn refused(args: &[&str]) -> String {
    let output = run(args, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "no report, nothing timed: {}", String::from_utf8_lossy(&output.stdout));
    assert_eq!(stderr.lines().filter(|l| l.starts_with("error:")).count(), 1, "one sentence: {stderr}");
    assert!(!stderr.contains("round"), "no round ran: {stderr}");
    stderr
}

const GCS_RUN: &[&str] = &["run", "--size", "256KiB", "--iterations", "1", "--warmup=false", "--bucket", BUCKET];

#[test]
fn a_grpc_endpoint_that_is_another_grpc_service_is_refused_up_front() {
    let etcd = etcd_server::Etcd::start();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let emulator = runtime.block_on(emulator());
    let etcd_addr = etcd.url.trim_start_matches("http://");
    let said = refused(&[GCS_RUN, &["--endpoint", &emulator.json_url(), "--grpc-endpoint", etcd_addr]].concat());
    assert!(
        said.contains(&format!("{} answered, but it is not GCS's gRPC API google.storage.v2.Storage", etcd.url)),
        "{said}"
    );
    assert!(
        said.contains("(UNIMPLEMENTED: unknown service google.storage.v2.Storage)"),
        "what etcd said is kept: {said}"
    );
    assert!(said.contains("give a GCS gRPC endpoint in --grpc-endpoint"), "{said}");
    assert_eq!(emulator.store().object_count(), 0, "nothing was uploaded");
}

#[test]
fn a_grpc_endpoint_that_is_not_grpc_at_all_is_refused_up_front() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let emulator = runtime.block_on(emulator());
    // The JSON port speaks HTTP/2 too, but answers a gRPC call with a 404 page.
    let json_port = emulator.json_url().trim_start_matches("http://").to_string();
    let said = refused(&[GCS_RUN, &["--endpoint", &emulator.json_url(), "--grpc-endpoint", &json_port]].concat());
    assert!(
        said.contains(&format!(
            "{} answered, but it is not GCS's gRPC API google.storage.v2.Storage (it answered HTTP 404 Not Found, not gRPC)",
            emulator.json_url()
        )),
        "{said}"
    );
    assert_eq!(emulator.store().object_count(), 0, "nothing was uploaded");
}

#[test]
fn etcd_runs_against_ports_that_are_not_etcd_say_what_answered() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let emulator = runtime.block_on(emulator());
    let (json, grpc) = (emulator.json_url(), format!("http://{}", emulator.grpc_addr()));
    let etcd_run = |endpoint: &str, extra: &[&str]| {
        refused(&[&["etcd", "run", "--endpoints", endpoint, "--requests", "10"][..], extra].concat())
    };
    let over_grpc = etcd_run(&grpc, &["--transports", "grpc"]);
    assert!(over_grpc.contains(&format!("{grpc} answered, but it is not etcd's gRPC (UNIMPLEMENTED: ")), "{over_grpc}");
    let gateway_to_grpc = etcd_run(&grpc, &["--transports", "http-json"]);
    assert!(gateway_to_grpc.contains(&format!("{grpc} answered, but not in HTTP/1.1")), "{gateway_to_grpc}");
    let gateway_to_json = etcd_run(&json, &["--transports", "http-json"]);
    assert!(gateway_to_json.contains(&format!("{json} answered, but it is not etcd")), "{gateway_to_json}");
    let grpc_to_json = etcd_run(&json, &["--transports", "grpc"]);
    assert!(grpc_to_json.contains(&format!("{json} answered, but it is not etcd's gRPC (HTTP 404")), "{grpc_to_json}");
    for said in [over_grpc, gateway_to_grpc, gateway_to_json, grpc_to_json] {
        assert!(!said.contains("cannot reach"), "it was reached: {said}");
        assert!(said.contains("check --endpoints"), "{said}");
    }
}
