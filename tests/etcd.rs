//! `etcd run` against a real etcd on loopback: every mode on both
//! transports, auth, TLS, cleanup, the watch check, and bad input.

mod common;
mod etcd_server;
use common::run;
use etcd_server::{Etcd, make_certificates};
use gcs_speed_tui::etcd::report::EtcdReport;
use serde_json::Value;

const SMALL: [&str; 6] = ["--clients", "4", "--requests", "50", "--key-space", "100"];

fn etcd_run(etcd: &Etcd, extra: &[&str]) -> (std::process::Output, Value) {
    let args = [&["etcd", "run", "--endpoints", &etcd.url, "--format", "json"][..], &SMALL, extra].concat();
    let output = run(&args, &[]);
    let report = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output, report)
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn every_mode_runs_on_both_transports_and_leaves_no_keys() {
    let etcd = Etcd::start();
    etcd.ctl_ok(&["put", "someone-elses/key", "theirs"]);
    for mode in ["put", "range", "watch"] {
        let (output, report) = etcd_run(&etcd, &["--mode", mode, "--prefix", "bench"]);
        assert!(output.status.success(), "{mode}: {}", stderr(&output));
        assert_eq!(report["outcome"], "completed", "{mode}");
        let transports = report["transports"].as_array().unwrap();
        assert_eq!(transports.len(), 2);
        for t in transports {
            let name = &t["transport"];
            assert_eq!(t["runs"], 3, "{mode} {name}");
            assert_eq!(t["ops"], 3 * 4 * 50, "{mode} {name}: every request of every round counted once");
            assert_eq!(t["errors"], 0);
            let per_op = |field: &str| t[field].as_f64().unwrap_or_else(|| panic!("{mode} {name} {field}: {t}"));
            // A watched event may arrive before its put's answer: a delay of 0, measured.
            let least = if mode == "watch" { Some(0.0) } else { Some(f64::MIN_POSITIVE) };
            assert!(per_op("ops_per_s") > 0.0 && t["latency"]["p50_ms"].as_f64() >= least, "{mode} {name}: {t}");
            assert!(per_op("client_cpu_us_per_op") > 0.0 && per_op("server_cpu_us_per_op") > 0.0, "{t}");
            // Bytes each way per op: a 256 B value goes up on put and comes back on range and watch.
            let (sent, received) = (per_op("wire_sent_per_op"), per_op("wire_received_per_op"));
            match mode {
                "put" => assert!(sent > 256.0 && received < sent, "{name} put: {sent} up, {received} down"),
                "range" => assert!(received > 256.0 && sent < received, "{name} range: {sent} up, {received} down"),
                // The watcher sends one request a round, and then listens.
                _ => assert!(received > 256.0 && sent < 10.0, "{name} watch: {sent} up per event"),
            }
        }
        let grpc = transports.iter().find(|t| t["transport"] == "grpc").unwrap();
        assert_eq!(grpc["connections"], 1, "{mode}: the clients share one gRPC channel");
        let http = transports.iter().find(|t| t["transport"] == "http-json").unwrap();
        if mode != "watch" {
            assert!(http["connections"].as_u64() >= Some(4), "{mode}: HTTP/1.1 opens one per client: {http}");
        }
        let comparison = &report["comparison"];
        assert_eq!(comparison["pairs"], 3, "{comparison}");
        assert!(comparison["sentence"].as_str().unwrap().contains("pairs"), "{comparison}");
        assert!(report["cleanup"]["deleted"].as_u64() > Some(0), "{}", report["cleanup"]);
        assert_eq!(etcd.count("bench/", None), 0, "{mode}: cleanup deletes the run's keys");
        // Progress goes through run events to the same printer as GCS's: a
        // line per round, each with every request of the round (4 x 50).
        let what = match mode {
            "put" => "puts",
            "range" => "ranges",
            _ => "events",
        };
        let text = stderr(&output);
        for transport in ["http-json", "grpc"] {
            for round in 1..=3 {
                let line = format!("{transport} round {round}/3: 200 {what} in ");
                assert!(text.contains(&line), "{mode}: no '{line}' in {text}");
            }
        }
    }
    assert_eq!(etcd.ctl_ok(&["get", "someone-elses/key", "--print-value-only"]).trim(), "theirs");
}

/// One run's report, saved as JSON: the same run for every rendering.
fn saved_run(etcd: &Etcd, extra: &[&str]) -> (std::process::Output, EtcdReport) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("report.json");
    let (output, _) = etcd_run(etcd, &[extra, &["--output", path.to_str().unwrap()]].concat());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("no report: {}", stderr(&output)));
    (output, serde_json::from_str(&text).unwrap())
}

/// CSV rows as maps from the header's names.
fn csv_rows(csv: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    lines.map(|line| header.iter().map(|h| h.to_string()).zip(line.split(',').map(String::from)).collect()).collect()
}

#[test]
fn the_table_and_csv_say_the_same_run() {
    let etcd = Etcd::start();
    let (output, report) = saved_run(&etcd, &["--iterations", "2"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let (table, csv) = (report.to_table(), report.to_csv());
    assert!(table.contains("Ops/s") && table.contains("cleanup: deleted"), "{table}");
    let rows = csv_rows(&csv);
    assert_eq!(rows.len(), 2 * 2, "one row per round of each transport: {csv}");
    for transport in ["http-json", "grpc"] {
        let mine: Vec<_> = rows.iter().filter(|r| r["transport"] == transport).collect();
        let field = |r: &std::collections::HashMap<String, String>, name: &str| r[name].parse::<f64>().unwrap();
        let ops: f64 = mine.iter().map(|r| field(r, "ops")).sum();
        let seconds: f64 = mine.iter().map(|r| field(r, "elapsed_s")).sum();
        assert_eq!(ops, (2 * 4 * 50) as f64, "{transport}: every request of both rounds: {csv}");
        assert!(mine.iter().all(|r| r["ok"] == "true" && r["errors"] == "0" && r["run_id"] == report.run_id));
        // The table's row, its cells by the header's names.
        let line = table.lines().find(|l| l.starts_with(&format!("{transport} "))).expect(&table);
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cells[2], "2", "{transport}: rounds, as the CSV has them: {line}");
        let shown: f64 = cells[3].parse().unwrap();
        // The table rounds the rate to a whole number (0.5 either way); the
        // CSV each round's seconds to the microsecond (0.5 µs each way), which
        // moves ops/seconds by up to rate x (rounds x 0.5 µs) / seconds.
        let rate = ops / seconds;
        let bound = 0.5 + rate * (mine.len() as f64 * 0.5e-6) / seconds + 1e-9;
        assert!((shown - rate).abs() <= bound, "{transport}: table {shown} ops/s, CSV {rate} ops/s (within {bound})");
        assert_eq!(cells.last(), Some(&"0"), "{transport}: errors: {line}");
    }
}

#[test]
fn failed_requests_are_counted_by_kind_in_the_table_json_and_csv() {
    // etcd refuses a request over --max-request-bytes ("request is too
    // large"): INVALID_ARGUMENT over gRPC, HTTP 400 from its gateway. Its
    // start-up probe (an empty value) fits; every 4 KiB put does not.
    let etcd = Etcd::start_with_flags(&["--max-request-bytes", "2048"]);
    let (output, report) = saved_run(&etcd, &["--value-size", "4KiB", "--warmup=false"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    // Each of the 4 clients stops at its first refusal: 4 a round, 3 rounds.
    let (clients, rounds) = (4, 3);
    let table = report.to_table();
    for (transport, kind) in [("http-json", "HTTP 400"), ("grpc", "INVALID_ARGUMENT")] {
        let summary = report.transports.iter().find(|t| t.transport.name() == transport).unwrap();
        assert_eq!(summary.errors, clients * rounds, "{transport}");
        assert_eq!(summary.error_kinds, [(kind.to_string(), (clients * rounds) as u32)].into(), "{transport}");
        let said = format!("{transport}: {} puts failed: {kind} x{}", clients * rounds, clients * rounds);
        assert!(table.lines().any(|l| l == said), "the table says {said}:\n{table}");
        let json: Value = serde_json::from_str(&report.to_json()).unwrap();
        let row = json["transports"].as_array().unwrap().iter().find(|t| t["transport"] == transport).unwrap();
        assert_eq!(row["error_kinds"][kind], clients * rounds, "{row}");
        let csv = report.to_csv();
        let mine: Vec<_> = csv_rows(&csv).into_iter().filter(|r| r["transport"] == transport).collect();
        assert_eq!(mine.len(), rounds as usize, "{csv}");
        assert!(mine.iter().all(|r| r["error_kinds"] == format!("{kind} x{clients}")), "{csv}");
    }
    assert_eq!(etcd.count("gcs-speed-tui/", None), 0, "nothing was written, nothing left");
}

#[test]
fn kept_keys_are_said_and_left() {
    let etcd = Etcd::start();
    let (output, report) = etcd_run(&etcd, &["--cleanup=false", "--prefix", "keep", "--iterations", "1"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(report["cleanup"]["kept"], true);
    assert!(etcd.count("keep/", None) > 0);
}

#[test]
fn both_transports_authenticate_and_refusals_are_one_sentence() {
    let etcd = Etcd::start();
    // Given a user where auth is off: said, exit 2, nothing written.
    let out = etcd.dir.path().join("report.json");
    let out = out.to_str().unwrap();
    let (output, _) = etcd_run(&etcd, &["--user", "bench", "--password", "pw", "--output", out]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("authentication off: leave out --user"), "{}", stderr(&output));
    assert!(!std::path::Path::new(out).exists(), "nothing written");

    etcd.ctl_ok(&["user", "add", "root:rootpw"]);
    etcd.ctl_ok(&["role", "add", "root"]);
    etcd.ctl_ok(&["user", "grant-role", "root", "root"]);
    etcd.ctl_ok(&["user", "add", "bench:benchpw"]);
    etcd.ctl_ok(&["role", "add", "bench"]);
    etcd.ctl_ok(&["role", "grant-permission", "bench", "--prefix=true", "readwrite", "authed/"]);
    etcd.ctl_ok(&["user", "grant-role", "bench", "bench"]);
    etcd.ctl_ok(&["user", "add", "reader:readerpw"]);
    etcd.ctl_ok(&["role", "add", "reader"]);
    etcd.ctl_ok(&["role", "grant-permission", "reader", "--prefix=true", "read", "authed/"]);
    etcd.ctl_ok(&["user", "grant-role", "reader", "reader"]);
    etcd.ctl_ok(&["auth", "enable"]);

    let (output, _) = etcd_run(&etcd, &["--prefix", "authed"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("authentication enabled: give --user and --password"), "{}", stderr(&output));
    let (output, _) = etcd_run(&etcd, &["--prefix", "authed", "--user", "bench", "--password", "wrong"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("check --user and --password"), "{}", stderr(&output));
    let (output, _) = etcd_run(&etcd, &["--prefix", "elsewhere", "--user", "bench", "--password", "benchpw"]);
    assert_eq!(output.status.code(), Some(2), "a prefix the role may not write is refused up front");
    assert!(stderr(&output).contains("permission denied"), "{}", stderr(&output));
    // A role that may read but not write is refused up front too, in every mode.
    for mode in ["put", "range", "watch"] {
        let args =
            ["--mode", mode, "--prefix", "authed", "--user", "reader", "--password", "readerpw", "--output", out];
        let (output, _) = etcd_run(&etcd, &args);
        assert_eq!(output.status.code(), Some(2), "{mode}: {}", stderr(&output));
        assert!(stderr(&output).contains("permission denied"), "{}", stderr(&output));
        assert!(!std::path::Path::new(out).exists(), "{mode}: nothing written");
    }

    for mode in ["put", "watch"] {
        let (output, report) =
            etcd_run(&etcd, &["--mode", mode, "--prefix", "authed", "--user", "bench", "--password", "benchpw"]);
        assert!(output.status.success(), "{mode}: {}", stderr(&output));
        assert_eq!(report["config"]["user"], "bench");
        assert!(report["transports"].as_array().unwrap().iter().all(|t| t["ops"] == 600), "{report}");
    }
    assert_eq!(etcd.count("authed/", Some("root:rootpw")), 0);
}

#[test]
fn mutual_tls_with_certificates_made_here() {
    let certs_dir = tempfile::tempdir().unwrap();
    let certs = make_certificates(certs_dir.path());
    let etcd = Etcd::start_with(Some(&certs));
    let (ca, cert, key) =
        (certs.ca.to_str().unwrap(), certs.client_cert.to_str().unwrap(), certs.client_key.to_str().unwrap());
    let (output, report) = etcd_run(&etcd, &["--cacert", ca, "--cert", cert, "--key", key, "--mode", "range"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let protocols: Vec<&str> =
        report["transports"].as_array().unwrap().iter().map(|t| t["protocol"].as_str().unwrap()).collect();
    assert_eq!(protocols, ["HTTP/1.1 + TLS", "HTTP/2 + TLS"]);
    assert_eq!(etcd.count("gcs-speed-tui/", None), 0);

    // No client certificate: the server refuses the handshake.
    let (output, _) = etcd_run(&etcd, &["--cacert", ca]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).starts_with("error: cannot reach etcd at"), "{}", stderr(&output));
    assert_eq!(stderr(&output).lines().count(), 1, "{}", stderr(&output));
    // Not trusting the server's CA (the system roots do not have it).
    let (output, _) = etcd_run(&etcd, &["--cert", cert, "--key", key]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("cannot reach etcd at"), "{}", stderr(&output));
    // Plain HTTP to a TLS port.
    let plain = etcd.url.replace("https://", "http://");
    let output = run(&["etcd", "run", "--endpoints", &plain, "--requests", "1"], &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[test]
fn a_foreign_event_in_a_watched_prefix_fails_the_run_naming_its_revision() {
    let etcd = Etcd::start();
    // Watch the run's keys as they appear; write one of our own beside the first.
    let mut watch = std::process::Command::new("etcdctl")
        .env("ETCDCTL_API", "3")
        .args([&format!("--endpoints={}", etcd.url), "watch", "--prefix", "intruded/"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let url = etcd.url.clone();
    let bench = std::thread::spawn(move || {
        let args = ["etcd", "run", "--endpoints", &url, "--mode", "watch", "--prefix", "intruded", "--warmup=false"];
        run(
            &[&args[..], &["--clients", "2", "--requests", "3000", "--iterations", "1", "--format", "json"]].concat(),
            &[],
        )
    });
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(watch.stdout.take().unwrap()));
    // The first key of a round (the start-up check's probe key sits one level up).
    let is_round_key = |l: &str| l.starts_with("intruded/") && !l.ends_with("/probe");
    let first_key = lines.find(|line| line.as_ref().is_ok_and(|l| is_round_key(l))).unwrap().unwrap();
    let folder = &first_key[..first_key.rfind('/').unwrap() + 1];
    etcd.ctl_ok(&["put", &format!("{folder}zz-intruder"), "x"]);
    let _ = watch.kill();
    let _ = watch.wait();
    let output = bench.join().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let why = report["stopped_because"].as_str().unwrap_or_default();
    assert!(why.contains("1 not put by this run (revision "), "{why}");
    assert_eq!(etcd.count("intruded/", None), 0, "cleanup deletes the prefix, the intruder's key included");
}

#[test]
fn bad_input_is_one_sentence_exit_2_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never.json");
    let out = out.to_str().unwrap();
    // A port nobody listens on, and an HTTP server that is not etcd.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let not_etcd = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let not_etcd_url = format!("http://{}", not_etcd.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in not_etcd.incoming().flatten() {
            let mut stream = stream;
            let mut request = [0u8; 4096];
            let _ = std::io::Read::read(&mut stream, &mut request);
            let _ =
                std::io::Write::write_all(&mut stream, b"HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\n\r\nnot found");
        }
    });
    let closed_url = format!("http://127.0.0.1:{closed}");
    let cases: [(&[&str], &str); 10] = [
        (&["--endpoints", &closed_url], "cannot reach etcd at"),
        (&["--endpoints", &not_etcd_url], "it is not etcd"),
        (&["--endpoints", "127.0.0.1:2379"], "needs http:// or https://"),
        (&["--requests", "0"], "--requests must be between 1 and"),
        (
            &["--value-size", "5000000"],
            "--value-size takes a size from 0 B to 1.50 MiB, like 256 or 1KiB (not '5000000')",
        ),
        (&["--value-size", "2MiB"], "--value-size takes a size from 0 B to 1.50 MiB"),
        (&["--key-size", "2", "--key-space", "1000"], "raise --key-size"),
        (&["--user", "u"], "--user needs --password"),
        (&["--cert", "c.pem"], "--cert and --key go together"),
        (&["--mode", "scan"], "use one of put, range, watch"),
    ];
    for (args, said) in cases {
        let output = run(&[&["etcd", "run", "--output", out][..], args].concat(), &[]);
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {text}");
        assert!(text.contains(said), "{args:?}: {text}");
        assert_eq!(text.lines().count(), 1, "{args:?}: one sentence: {text}");
        assert!(!text.contains("panicked") && !text.contains("Error {"), "{text}");
        assert!(!std::path::Path::new(out).exists(), "{args:?}: nothing written");
    }
}

#[test]
fn a_timeout_or_a_cancel_reports_only_what_finished_and_deletes_the_keys() {
    let etcd = Etcd::start();
    let base = ["etcd", "run", "--endpoints", &etcd.url, "--clients", "4", "--format", "json", "--warmup=false"];
    // 4 x 200000 puts a round cannot finish in 2 s: nothing complete to divide.
    let output = run(&[&base[..], &["--requests", "200000", "--timeout", "2s", "--prefix", "cut"]].concat(), &[]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["outcome"], "timed_out");
    for t in report["transports"].as_array().unwrap() {
        assert_eq!(t["runs"], 0, "{t}");
        for field in ["ops_per_s", "client_cpu_us_per_op", "server_cpu_us_per_op", "wire_sent_per_op"] {
            assert!(t[field].is_null(), "{field} measured nothing: {t}");
        }
    }
    assert!(report["comparison"]["faster"].is_null() && report["comparison"]["no_verdict"].is_string());
    assert!(report["cleanup"]["deleted"].as_u64() > Some(0), "the cut round's keys were written, then deleted");
    assert_eq!(etcd.count("cut/", None), 0);

    // Ctrl-C once the first round is done: that round counts, the cut one does not.
    let child = std::process::Command::new(common::binary())
        .args(
            [&base[..], &["--requests", "400", "--iterations", "1000", "--prefix", "cancelled", "--sequential-keys"]]
                .concat(),
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while etcd.count("cancelled/", None) < 1600 && started.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("cancelling: stopping requests and deleting this run's keys"),
        "{}",
        stderr(&output)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["outcome"], "cancelled");
    let rounds = report["rounds"].as_array().unwrap();
    assert!(rounds.iter().any(|r| r["ok"] == true), "rounds finished before the cancel: {rounds:?}");
    for t in report["transports"].as_array().unwrap() {
        let complete: Vec<&Value> =
            rounds.iter().filter(|r| r["transport"] == t["transport"] && r["ok"] == true).collect();
        let ops: u64 = complete.iter().map(|r| r["ops"].as_u64().unwrap()).sum();
        assert_eq!(t["ops"].as_u64(), Some(ops), "ops of the complete rounds only: {t}");
        assert_eq!(ops % 1600, 0, "whole rounds of 4 x 400: {ops}");
    }
    assert_eq!(etcd.count("cancelled/", None), 0, "the cancel deleted the run's keys");
}
