//! `grpc run` against a real etcd, its types read from the .proto files
//! Debian ships (golang-etcd-server-dev) as a user would point at them:
//! etcd's gRPC KV service against its grpc-gateway, calls read back with
//! etcdctl, the check of the answers, the cleanup call, and bad input.

mod common;
mod etcd_grpc;
mod etcd_server;
mod views;
use common::run;
use etcd_server::Etcd;
use gcs_speed_tui::config::FormOptions;
use gcs_speed_tui::finished::Finished;
use gcs_speed_tui::tui::app::{App, Message};
use serde_json::Value;

use etcd_grpc::{etcd_proto, grpc_run, stderr};

/// A put of key `bench/RUN/TRANSPORT/SEQ`, and the cleanup call that deletes `bench/RUN/`.
const PUT: [&str; 10] = [
    "--method",
    "etcdserverpb.KV/Put",
    "--data",
    r#"{"key":"{{base64 bench/{{run}}/{{transport}}/{{seq}}}}","value":"{{base64 v{{seq}}}}"}"#,
    "--ignore-field",
    "header.revision",
    "--cleanup-method",
    "etcdserverpb.KV/DeleteRange",
    "--cleanup-data",
    // `bench/RUN0` ends the range: `0` follows `/`.
    r#"{"key":"{{base64 bench/{{run}}/}}","range_end":"{{base64 bench/{{run}}0}}"}"#,
];

#[test]
fn puts_go_over_both_transports_each_key_once_and_the_cleanup_call_deletes_them() {
    let etcd = Etcd::start();
    etcd.ctl_ok(&["put", "someone-elses/key", "theirs"]);
    let (clients, requests, iterations) = (4u64, 25u64, 3u64);
    let shape = ["--clients", "4", "--requests", "25", "--iterations", "3", "--cleanup=false"];
    let before = etcd.revision();
    let (output, report) = grpc_run(&etcd, &[&PUT[..], &shape].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    // Every put etcd applied, counted by etcd: per transport the check's
    // call 0, a warmup of 100 per client (at most --requests) and the rounds.
    let per_transport = 1 + clients * requests.min(100) + iterations * clients * requests;
    assert_eq!(etcd.revision() - before, 2 * per_transport, "each transport's puts reached etcd");
    assert_eq!(report["target"], "grpc");
    assert_eq!(report["outcome"], "completed", "{report}");
    assert_eq!(report["config"]["http_mapping"], "POST /v3/kv/put (body *)", "etcd's own google.api.http rule");
    let transports = report["transports"].as_array().unwrap();
    assert_eq!(transports.len(), 2, "{report}");
    for t in transports {
        assert_eq!(t["runs"], iterations, "{t}");
        assert_eq!(t["ops"], iterations * clients * requests, "every call of every round counted once: {t}");
        assert_eq!(t["errors"], 0, "{t}");
        let figure = |field: &str| t[field].as_f64().unwrap_or_else(|| panic!("{field}: {t}"));
        assert!(figure("ops_per_s") > 0.0 && figure("client_cpu_us_per_op") > 0.0, "{t}");
        // A put sends its key and value and gets a header back.
        assert!(figure("wire_sent_per_op") > figure("wire_received_per_op") / 4.0, "{t}");
        assert!(figure("wire_sent_per_op") > 20.0, "a key of 20 B or more went up per call: {t}");
    }
    let grpc = transports.iter().find(|t| t["transport"] == "grpc").unwrap();
    assert_eq!(grpc["connections"], 1, "the clients share one gRPC channel");
    assert_eq!(report["comparison"]["pairs"], iterations, "{}", report["comparison"]);
    // Each call's key is its own, and both transports wrote the same ones:
    // clients x requests keys, each holding its own call's value.
    let run_id = report["run_id"].as_str().unwrap();
    let prefix = format!("bench/{run_id}/");
    for transport in ["grpc", "http-json"] {
        assert_eq!(etcd.count(&format!("{prefix}{transport}/"), None), clients * requests, "{transport}'s keys");
        for seq in [0, 37, clients * requests - 1] {
            let value = etcd.ctl_ok(&["get", &format!("{prefix}{transport}/{seq}"), "--print-value-only"]);
            assert_eq!(value.trim(), format!("v{seq}"));
        }
    }
    // The same puts on both transports: the sampled calls answered alike.
    let sampled = &report["sampled"];
    assert_eq!(sampled["compared"], iterations * 34, "34 sampled calls a round: {sampled}");
    assert_eq!(sampled["differed"], 0, "{sampled}");
    assert_eq!(report["cleanup"]["called"], false, "--cleanup=false: {}", report["cleanup"]);
    etcd.ctl_ok(&["del", "--prefix", &prefix]);

    let before = etcd.revision();
    let (output, report) = grpc_run(&etcd, &[&PUT[..], &shape[..6]].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    // Every put, then one revision more for a DeleteRange that deleted something.
    assert_eq!(etcd.revision() - before, 2 * per_transport + 1, "the puts and the cleanup reached etcd");
    assert_eq!(report["cleanup"]["called"], true, "{}", report["cleanup"]);
    assert_eq!(report["cleanup"]["error"], Value::Null);
    assert_eq!(etcd.count("bench/", None), 0, "the cleanup call deleted the run's keys");
    assert_eq!(etcd.ctl_ok(&["get", "someone-elses/key", "--print-value-only"]).trim(), "theirs");
}

#[test]
fn ranges_of_one_key_answer_alike_on_both_transports() {
    let etcd = Etcd::start();
    etcd.ctl_ok(&["put", "the-key", "the-value"]);
    let range = ["--method", "etcdserverpb.KV/Range", "--data", r#"{"key":"dGhlLWtleQ=="}"#];
    let (output, report) = grpc_run(&etcd, &[&range[..], &["--clients", "2", "--requests", "20"]].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(report["config"]["http_mapping"], "POST /v3/kv/range (body *)");
    assert_eq!(report["transports"].as_array().map(Vec::len), Some(2), "{report}");
    for t in report["transports"].as_array().unwrap() {
        assert_eq!(t["ops"], 3 * 2 * 20, "{t}");
        // The answer carries the 9 B value back on every call.
        assert!(t["wire_received_per_op"].as_f64().unwrap() > 9.0, "{t}");
    }
    assert!(report["cleanup"]["method"].as_str() == Some(""), "no cleanup asked: {}", report["cleanup"]);
}

#[test]
fn answers_that_differ_are_named_before_any_clock_starts() {
    let etcd = Etcd::start();
    // Without --ignore-field: the gateway's put comes a revision after gRPC's.
    let put = ["--method", "etcdserverpb.KV/Put", "--data", r#"{"key":"Y2hlY2s=","value":"eA=="}"#];
    let (output, report) = grpc_run(&etcd, &put);
    assert!(!output.status.success());
    assert_eq!(output.status.code(), Some(1), "a finding, not bad input: {}", stderr(&output));
    assert_eq!(report["outcome"], "setup_failed", "{report}");
    assert_eq!(report["rounds"].as_array().map(Vec::len), Some(0), "no round ran: {report}");
    let why = report["stopped_because"].as_str().unwrap_or_default();
    assert!(why.starts_with("the check before the rounds failed"), "{report}");
    assert!(why.contains("header.revision") && why.contains("--ignore-field"), "{why}");
    // The table says why and no figures: no row of dashes, no verdict.
    let mut args = vec!["grpc", "run", "--grpc-endpoint", &etcd.url];
    let proto = etcd_proto();
    args.extend(proto.iter().map(String::as_str));
    args.extend(put);
    let table = String::from_utf8_lossy(&run(&args, &[]).stdout).into_owned();
    assert!(table.contains("nothing measured: the check before the rounds failed"), "{table}");
    assert!(!table.contains("Calls/s") && !table.contains("verdict"), "{table}");
    assert!(table.contains("cleanup: none asked"), "{table}");
    etcd.ctl_ok(&["del", "check"]);
    // The app says the same of the same report: why, and no row of dashes.
    let mut app = App::new(FormOptions { target: "grpc".into(), ..FormOptions::default() }, Default::default(), false);
    app.update(Message::RunFinished(Ok(Finished::from_json(report).unwrap())));
    for (width, height) in [(100, 30), (120, 40)] {
        let screen = views::screen(&app, width, height);
        let header = screen.lines().next().unwrap_or_default();
        let whole = header.ends_with("could not start") || header.ends_with("could not start · 1 run this session");
        assert!(whole, "the state shows whole: {screen}");
        assert!(screen.contains("nothing measured: the check before the rounds failed"), "{screen}");
        assert!(!screen.contains("Calls/s p50") && !screen.contains("no verdict"), "{screen}");
    }
}

#[test]
fn bad_input_is_one_sentence_and_exit_2() {
    let etcd = Etcd::start();
    let cases: &[(&[&str], &str)] = &[
        (&["--method", "etcdserverpb.KV/Putt"], "no such method; did you mean etcdserverpb.KV/Put?"),
        (&["--method", "etcdserverpb.KV/Put", "--data", r#"{"kee":"eA=="}"#], "kee"),
        (
            &["--method", "etcdserverpb.KV/Put", "--data", "@/nonexistent.json"],
            "--data @/nonexistent.json: cannot read it",
        ),
        (
            &["--method", "etcdserverpb.KV/Put", "--http-mapping", "soap"],
            "--http-mapping 'soap' is not one of rule, connect",
        ),
        (&["--method", "etcdserverpb.KV/Put", "--clients", "0"], "--clients must be between 1 and"),
        (
            &["--method", "etcdserverpb.KV/Put", "--cleanup-method", "etcdserverpb.KV/Delete"],
            "--cleanup-method etcdserverpb.KV/Delete: no such method; did you mean",
        ),
        (&["--method", "etcdserverpb.Watch/Watch"], "is bidi, which an HTTP rule does not carry: use --http-mapping"),
        (&["--method", ""], "--method is missing: give the method to call as pkg.Service/Method"),
        (
            &["--method", "etcdserverpb.KV/Put", "--http-endpoint", "http://127.0.0.1:1"],
            "cannot reach http://127.0.0.1:1 over HTTP",
        ),
        (
            &["--method", "etcdserverpb.KV/Put", "--ignore-field", "header.revison"],
            "--ignore-field header.revison: etcdserverpb.ResponseHeader has no such field; did you mean header.revision?",
        ),
        (
            &["--method", "etcdserverpb.KV/Put", "--ignore-field", " "],
            "invalid value ' ' for '--ignore-field <FIELD>': it names no field: give a response field, like header.revision",
        ),
        (
            &["--method", "etcdserverpb.KV/Put", "--cleanup-data", r#"{"key":"eA=="}"#],
            "--cleanup-data is given without --cleanup-method",
        ),
        (
            &["--method", "etcdserverpb.KV/Put", "--http-path", "FETCH /v3/kv/put"],
            "--http-path 'FETCH /v3/kv/put': FETCH is not an HTTP verb",
        ),
    ];
    for (extra, expected) in cases {
        let (output, _) = grpc_run(&etcd, extra);
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{extra:?}: {said}");
        assert!(said.contains(expected), "{extra:?}: {said}");
        assert!(said.starts_with("error: ") && said.lines().count() == 1, "{extra:?}: one sentence: {said}");
        assert!(!said.contains("panicked"), "{said}");
    }
}

/// A port that refuses: a run that asked a server first would say so.
const REFUSES: &str = "http://127.0.0.1:1";

/// Flags refused before any server is asked: no etcd is needed.
#[test]
fn bad_input_without_a_server_is_one_sentence_and_exit_2() {
    let alone: &[(&[&str], &str)] = &[
        (
            &["grpc", "run", "--method", "a.B/C", "--grpc-endpoint", "http://127.0.0.1:1"],
            "give its .proto with --proto",
        ),
        (
            &["grpc", "run", "--proto", "/nonexistent/x.proto", "--method", "a.B/C"],
            "--proto /nonexistent/x.proto: no such file",
        ),
        // Flags that need no server are checked before --reflect asks one.
        (
            &["grpc", "run", "--reflect", "--grpc-endpoint", REFUSES, "--method", "a.B/C", "--clients", "0"],
            "--clients must be",
        ),
    ];
    for (args, expected) in alone {
        let output = run(args, &[]);
        let said = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {said}");
        assert!(said.contains(expected) && said.lines().count() == 1, "{args:?}: {said}");
    }
}

/// A transport's figure in a report's JSON.
fn figure(report: &Value, transport: &str, field: &str) -> f64 {
    let t = report["transports"].as_array().unwrap().iter().find(|t| t["transport"] == transport).unwrap();
    t[field].as_f64().unwrap_or_else(|| panic!("{transport} {field}: {t}"))
}

/// The lowest and highest of three figures.
fn range_of(v: Vec<f64>) -> (f64, f64) {
    assert_eq!(v.len(), 3, "{v:?}");
    (v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(f64::NEG_INFINITY, f64::max))
}

/// The tool on CPU 0 alone (`taskset`): the server pinned to CPU 1 keeps its own.
fn run_on_cpu_0(args: &[&str]) -> (std::process::Output, Value) {
    let binary = common::binary();
    let output = std::process::Command::new("taskset")
        .args(["-c", "0"])
        .arg(&binary)
        .args(args)
        .output()
        .expect("taskset (util-linux) runs");
    let report = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output, report)
}

#[test]
fn puts_agree_with_etcd_runs_compiled_client_on_the_same_etcd() {
    // etcd on a CPU of its own, as on a server of its own: sharing 2 CPUs,
    // the client's CPU would set the server's rate, and the dynamic client's
    // extra CPU per call (bench grpc_dynamic_cpu) would show as a lower rate
    // in this unoptimized build. Without fsync: with it, this machine's disk
    // made one client's runs vary 3x and pairs of runs 0.37x to 2.6x apart
    // (three test runs, 2026-12-06), which no bound on the clients can read.
    let etcd = Etcd::start();
    etcd.pin_to_cpu(1);
    let shape = ["--clients", "4", "--requests", "500", "--iterations", "3"];
    // etcd run's keys: `gcs-speed-tui/RUN/` and 8 digits; its 256 B value: a-z repeated.
    let value: String = (0..256).map(|i| (b'a' + (i % 26) as u8) as char).collect();
    let value = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, value);
    let data = format!(r#"{{"key":"{{{{base64 gcs-speed-tui/{{{{run}}}}/{{{{seq 8}}}}}}}}","value":"{value}"}}"#);
    let cleanup = r#"{"key":"{{base64 gcs-speed-tui/{{run}}/}}","range_end":"{{base64 gcs-speed-tui/{{run}}0}}"}"#;
    let proto = etcd_proto();
    let dynamic = [
        &["grpc", "run", "--grpc-endpoint", &etcd.url, "--format", "json"][..],
        &proto.iter().map(String::as_str).collect::<Vec<_>>(),
        &["--method", "etcdserverpb.KV/Put", "--data", &data, "--ignore-field", "header.revision"],
        &["--cleanup-method", "etcdserverpb.KV/DeleteRange", "--cleanup-data", cleanup],
        &shape,
    ]
    .concat();
    let compiled =
        [&["etcd", "run", "--endpoints", &etcd.url, "--format", "json", "--mode", "put"][..], &shape].concat();
    let (mut grpc_runs, mut etcd_runs) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let (output, report) = run_on_cpu_0(&dynamic);
        assert!(output.status.success(), "{}", stderr(&output));
        grpc_runs.push(report);
        let (output, report) = run_on_cpu_0(&compiled);
        assert!(output.status.success(), "{}", stderr(&output));
        etcd_runs.push(report);
    }
    for transport in ["grpc", "http-json"] {
        for field in ["ops_per_s", "wire_sent_per_op", "wire_received_per_op"] {
            let of = |runs: &[Value]| range_of(runs.iter().map(|r| figure(r, transport, field)).collect());
            let ((low, high), (compiled_low, compiled_high)) = (of(&grpc_runs), of(&etcd_runs));
            let said = format!(
                "{transport} {field}: grpc run {low:.1}-{high:.1}, etcd run {compiled_low:.1}-{compiled_high:.1}"
            );
            eprintln!("{said}");
            if field == "ops_per_s" {
                // Rates: each pair of runs (one of each, back to back) as a
                // ratio, and the median of the three within 2x either way: a
                // pair shares the machine's state of the moment. Measured
                // here, 0.66x, 0.75x and 0.91x for gRPC (three test runs,
                // 2026-12-06): the dynamic client's extra CPU per call (bench
                // grpc_dynamic_cpu) shows as a lower rate in this unoptimized
                // build when etcd does not fsync. This asks that the dynamic
                // client reach the same service at the compiled client's
                // order of rate; its CPU is the bench's to measure.
                let mut pairs: Vec<f64> = grpc_runs
                    .iter()
                    .zip(&etcd_runs)
                    .map(|(dynamic, compiled)| figure(dynamic, transport, field) / figure(compiled, transport, field))
                    .collect();
                pairs.sort_by(f64::total_cmp);
                let ratio = pairs[1];
                eprintln!("{transport} calls/s, grpc run over etcd run by pair: {pairs:.3?}, median {ratio:.3}x");
                assert!((0.5..=2.0).contains(&ratio), "{said}: pairs {pairs:.2?}, median {ratio:.2}x");
            } else {
                // Byte counts: the ranges meet, with 1% of their size either
                // way; gRPC's received bytes 5%. A revision's varint grows
                // a byte at 16384 and HTTP/2's own frames (window updates,
                // pings) are shared out over the puts: over 3 test runs
                // (2026-12-06) they were 74.1-78.0 per put for either client.
                let share = if (transport, field) == ("grpc", "wire_received_per_op") { 0.05 } else { 0.01 };
                let slack = compiled_high * share;
                assert!(high + slack >= compiled_low && compiled_high + slack >= low, "{said}");
            }
        }
    }
    assert_eq!(etcd.count("gcs-speed-tui/", None), 0, "both runs deleted their keys");
}

#[test]
fn a_server_that_never_answers_is_held_to_the_timeout() {
    // Accepts connections and never says a word (not even HTTP/2's settings).
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", silent.local_addr().unwrap());
    let _held = std::thread::spawn(move || silent.incoming().map_while(Result::ok).collect::<Vec<_>>());
    let mut args: Vec<String> =
        ["grpc", "run", "--grpc-endpoint", &url, "--format", "json", "--timeout", "2s"].map(String::from).into();
    args.extend(etcd_proto());
    args.extend(["--method", "etcdserverpb.KV/Range", "--data", "{}"].map(String::from));
    let started = std::time::Instant::now();
    let output = run(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]);
    let took = started.elapsed();
    assert!(took < std::time::Duration::from_secs(15), "ended within the 2 s limit and the drain: {took:?}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    assert_eq!(report["outcome"], "timed_out", "{}: {report}", stderr(&output));
    assert_eq!(report["stopped_because"], "--timeout 2s ran out before the timed rounds began", "{report}");
}

#[test]
fn grpc_alone_sends_no_check_call() {
    let etcd = Etcd::start();
    let revision = || {
        let said: Value = serde_json::from_str(&etcd.ctl_ok(&["get", "nothing", "-w", "json"])).unwrap();
        said["header"]["revision"].as_u64().unwrap()
    };
    let before = revision();
    let put = r#"{"key":"{{base64 alone/{{seq}}}}","value":"eA=="}"#;
    let args = ["--method", "etcdserverpb.KV/Put", "--data", put, "--transports", "grpc", "--warmup=false"];
    let shape = ["--clients", "1", "--requests", "3", "--iterations", "1"];
    let (output, report) = grpc_run(&etcd, &[&args[..], &shape].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(report["transports"][0]["ops"], 3, "{report}");
    // 1 client x 3 calls x 1 round: three puts, a revision each; with
    // nothing to compare it with, no check call makes a fourth.
    assert_eq!(revision() - before, 3);
    etcd.ctl_ok(&["del", "--prefix", "alone/"]);
}

#[test]
fn mutual_tls_on_both_transports_with_certificates_made_here() {
    let dir = tempfile::tempdir().unwrap();
    let certs = etcd_server::make_certificates(dir.path());
    let etcd = Etcd::start_with(Some(&certs));
    let (ca, cert, key) =
        (certs.ca.to_str().unwrap(), certs.client_cert.to_str().unwrap(), certs.client_key.to_str().unwrap());
    let put = ["--method", "etcdserverpb.KV/Put", "--data", r#"{"key":"{{base64 tls/{{seq}}}}","value":"eA=="}"#];
    let tls = ["--cacert", ca, "--cert", cert, "--key", key, "--ignore-field", "header.revision"];
    let shape = ["--clients", "2", "--requests", "5", "--iterations", "1"];
    let (output, report) = grpc_run(&etcd, &[&put[..], &tls, &shape].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    let transports = report["transports"].as_array().unwrap();
    let protocols: Vec<&str> = transports.iter().map(|t| t["protocol"].as_str().unwrap()).collect();
    // etcd offers HTTP/2 by ALPN over TLS, and the HTTP client takes it, as the report says.
    assert_eq!(protocols, ["HTTP/2 + TLS", "HTTP/2 + TLS"], "{report}");
    assert!(transports.iter().all(|t| t["ops"] == 2 * 5), "{report}");
    // 2 clients x 5 calls: keys tls/0 to tls/9, the same ten from both transports.
    assert_eq!(etcd.count("tls/", None), 10);
    // Without the client's certificate the server closes the connection
    // (TLS 1.3 refuses after the handshake): the check's first call finds it.
    let (output, report) =
        grpc_run(&etcd, &[&put[..], &["--cacert", ca, "--ignore-field", "header.revision"]].concat());
    let said = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert_eq!(report["outcome"], "setup_failed", "{report}");
    assert!(said.contains("the check before the rounds failed: cannot reach"), "{said}");
    assert!(said.contains("--cert and --key, if the server asks for a client certificate"), "{said}");
}
