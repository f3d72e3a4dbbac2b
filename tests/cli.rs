//! The real binary: `run` output formats, exit codes, targets from the
//! environment, and the `emulator` command's contract with scripts.

mod common;
use common::*;
use std::process::{Command, Stdio};

const SMALL: &[&str] = &["run", "--size", "512KiB", "--iterations", "2", "--warmup-size", "256KiB"];

#[test]
fn the_default_run_uses_the_built_in_emulator_and_prints_the_table() {
    let output = run(SMALL, &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("no --bucket given: using the built-in emulator"), "{stderr}");
    assert!(stderr.contains("target: built-in emulator on loopback") && stderr.contains("not GCS numbers"), "{stderr}");
    assert!(stdout.starts_with("Transport  Runs  Bytes/run"), "{stdout}");
    assert!(stdout.contains("http-json") && stdout.contains("grpc"));
    assert!(
        stdout.contains("no verdict (http-json ") && stdout.contains("2 paired rounds are too few"),
        "two pairs name no winner: {stdout}"
    );
    assert!(stdout.contains("cleanup: deleted 4, left 0"), "{stdout}");
}

#[test]
fn json_output_has_the_documented_fields() {
    let output = run(&[SMALL, &["--format", "json", "--emulator"]].concat(), &[]);
    assert!(output.status.success());
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["tool"]["name"], "gcs-speed-tui");
    assert_eq!(report["target"]["kind"], "emulator");
    assert!(report["target"]["json_endpoint"].as_str().unwrap().starts_with("http://127.0.0.1:"));
    assert_eq!(report["config"]["object_size"], 512 * 1024);
    let transport = &report["transports"][0];
    for field in [
        "transport",
        "runs",
        "objects",
        "bytes_per_run",
        "min_s",
        "median_s",
        "mean_s",
        "max_s",
        "p50_s",
        "p90_s",
        "p99_s",
        "throughput_mib_s",
        "errors",
        "retries",
    ] {
        assert!(!transport[field].is_null(), "transports[0].{field}");
    }
    let sample = &report["samples"][0];
    for field in ["transport", "round", "worker", "object", "bytes", "start_s", "elapsed_s", "ok", "error"] {
        assert!(sample.get(field).is_some(), "samples[0].{field}");
    }
    assert_eq!(report["samples"].as_array().unwrap().len(), 4);
    // Rounds count from 1 everywhere: JSON, CSV, object names, progress lines.
    assert_eq!(report["samples"][0]["round"], 1);
    assert_eq!(report["rounds"][0]["round"], 1);
    assert!(
        report["samples"][0]["object"].as_str().unwrap().ends_with("/0001-0"),
        "{}",
        report["samples"][0]["object"]
    );
}

#[test]
fn help_shows_no_empty_defaults() {
    for args in [&["run", "--help"][..], &["--help"][..]] {
        let output = run(args, &[]);
        let help = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success() && help.contains("--bucket <NAME>"), "{help}");
        assert!(!help.contains("[default: ]") && !help.contains("[default: \"\"]"), "{help}");
    }
}

#[test]
fn output_dash_is_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(binary())
        .current_dir(dir.path())
        .args([SMALL, &["--format", "csv", "--output", "-"]].concat())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("host,transport,operation,round,"));
    assert!(!dir.path().join("-").exists(), "no file named '-'");
}

#[test]
fn storage_emulator_host_points_at_another_emulator() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let emulator = runtime.block_on(emulator());
    let json = emulator.json_url();
    let grpc = emulator.grpc_addr().to_string();
    // Go accepts the host without a scheme; so do we.
    let bare_json = json.trim_start_matches("http://");
    let output = run(
        &[SMALL, &["--bucket", BUCKET, "--cleanup=false"]].concat(),
        &[("STORAGE_EMULATOR_HOST", bare_json), ("STORAGE_EMULATOR_HOST_GRPC", &grpc)],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains(&format!("target: endpoint {json} and {grpc}")), "{stderr}");
    assert_eq!(emulator.store().object_count(), 4, "the uploads landed in that emulator");
}

#[test]
fn an_unreachable_endpoint_is_named() {
    let output = run(&["run", "--endpoint", "http://127.0.0.1:9", "--transports", "http-json"], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("http://127.0.0.1:9"), "{stderr}");
}

#[test]
fn the_emulator_command_prints_its_addresses_first() {
    let (mut child, first) = spawn_emulator(&["--bucket", "cli-bucket", "--latency", "1ms"]);
    let (json, grpc) = first.split_once(' ').unwrap();
    let json = json.strip_prefix("json=http://127.0.0.1:").expect(&first);
    let grpc = grpc.strip_prefix("grpc=127.0.0.1:").expect(&first);
    assert!(json.parse::<u16>().is_ok() && grpc.parse::<u16>().is_ok(), "{first}");
    let output = run(
        &[
            SMALL,
            &[
                "--endpoint",
                &format!("http://127.0.0.1:{json}"),
                "--grpc-endpoint",
                &format!("127.0.0.1:{grpc}"),
                "--bucket",
                "cli-bucket",
            ],
        ]
        .concat(),
        &[],
    );
    // SIGTERM stops it as Ctrl-C does, with a summary.
    // SAFETY: a signal to a child we started and have not reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    let stderr_of_emulator = {
        let mut text = String::new();
        use std::io::Read;
        child.stderr.take().unwrap().read_to_string(&mut text).unwrap();
        text
    };
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stderr_of_emulator.contains("STORAGE_EMULATOR_HOST="), "{stderr_of_emulator}");
    assert!(
        stderr_of_emulator
            .contains("settings: latency 1ms, bandwidth unlimited, window 8MiB, frames up to 1MiB, no faults, bytes checked, not kept"),
        "{stderr_of_emulator}"
    );
    // 2 warmups and 2 x 2 timed uploads, all deleted by the run's cleanup.
    assert!(
        stderr_of_emulator
            .contains("emulator stopped: 6 object(s) created (2.50 MiB), 0 still stored, 0 fault(s) injected"),
        "{stderr_of_emulator}"
    );
    assert_eq!(status.code(), Some(143));
}

#[test]
fn without_a_terminal_the_app_points_to_run() {
    let output = Command::new(binary()).stdin(Stdio::null()).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("needs a terminal; in scripts use `gcs-speed-tui run`"), "{stderr}");
}

#[test]
fn a_chunk_size_off_the_256k_grid_is_rounded_with_a_note() {
    let output = run(&[SMALL, &["--chunk-size", "300KiB"]].concat(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("note: chunk size 300 KiB rounded up to 512 KiB"), "{stderr}");
}

#[test]
fn tls_to_a_plaintext_server_fails_with_the_endpoint_named() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let emulator = runtime.block_on(emulator());
    let https = emulator.json_url().replace("http://", "https://");
    let output = run(&["run", "--endpoint", &https, "--transports", "http-json", "--bucket", BUCKET], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&https), "{stderr}");
    assert_eq!(stderr.lines().filter(|l| l.starts_with("error:")).count(), 1, "{stderr}");
}

#[test]
fn a_refused_upload_says_which_permission_on_which_bucket() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (fault, every) = gcs_speed_tui::emulator::faults::parse_rule("return-403").unwrap();
    let emulator = runtime.block_on(emulator_with(gcs_speed_tui::emulator::EmulatorOptions {
        faults: vec![(fault, every)],
        ..Default::default()
    }));
    let output = run(
        &[
            SMALL,
            &[
                "--bucket",
                BUCKET,
                "--endpoint",
                &emulator.json_url(),
                "--grpc-endpoint",
                &emulator.grpc_addr().to_string(),
            ],
        ]
        .concat(),
        &[],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "failed uploads, not bad usage: {stderr}");
    assert!(
        stderr.contains("lacks storage.objects.create or storage.objects.delete on bucket test-bucket"),
        "{stderr}"
    );
}

#[test]
fn the_built_in_emulator_can_be_made_flaky_to_watch_retries() {
    let output = run(
        &[
            SMALL,
            &["--emulator", "--emulator-fault", "return-503:every=3", "--retry-initial", "20ms", "--format", "json"],
        ]
        .concat(),
        &[],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "every fault is retried away: {stderr}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let retries: u64 = report["transports"].as_array().unwrap().iter().map(|t| t["retries"].as_u64().unwrap()).sum();
    assert!(retries >= 1, "{retries}");
    // What changed the figures is in the report and the target line.
    assert_eq!(report["config"]["emulator_fault"], "return-503:every=3");
    assert_eq!(report["target"]["emulator_fault"], "return-503:every=3");
    assert!(
        stderr.contains("target: built-in emulator") && stderr.contains("; injecting fault return-503:every=3"),
        "{stderr}"
    );

    let bad = run(&["run", "--emulator-fault", "wobble"], &[]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("error: --emulator-fault: 'wobble' is not a fault instruction")
    );
}

/// An object no larger than a chunk goes in one request: there is no session
/// to time, so the table says so and the JSON has null, never "session 0 s".
#[test]
fn a_one_request_upload_has_no_session_phase() {
    // 512 KiB objects, 16 MiB chunks (the default): one request each.
    let table = run(&["run", "--size", "512KiB", "--iterations", "2", "--warmup=false"], &[]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert_eq!(table.status.code(), Some(0), "{text}");
    assert_eq!(text.matches("phases (median): one request, no session · transfer ").count(), 2, "{text}");
    assert!(!text.contains("session 0 s"), "{text}");
    let args = ["run", "--size", "512KiB", "--iterations", "2", "--warmup=false", "--format", "json"];
    let report: serde_json::Value = serde_json::from_slice(&run(&args, &[]).stdout).unwrap();
    for t in report["transports"].as_array().unwrap() {
        assert_eq!(t.get("session_median_s"), Some(&serde_json::Value::Null), "{t}");
    }
    let samples = report["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 4, "2 rounds x 2 transports x 1 object");
    assert!(samples.iter().all(|s| s.get("session_s") == Some(&serde_json::Value::Null)), "{samples:?}");
}

/// When uploads fail or a run is cut short, the report says so and shows no
/// number for what was not measured; the figures it does show cover the
/// same uploads as what they are divided by.
#[test]
fn figures_after_failures_cover_only_the_finished_work() {
    // Every upload refused: nothing finished, so no throughput, wire or CPU figure.
    const THREE: &[&str] = &["run", "--size", "512KiB", "--iterations", "3", "--warmup-size", "256KiB"];
    let refused = run(&[THREE, &["--emulator-fault", "return-403"]].concat(), &[]);
    let table = String::from_utf8_lossy(&refused.stdout);
    assert_eq!(refused.status.code(), Some(1), "{table}");
    assert!(table.contains("http-json: HTTP/1.1, ") && table.contains("no completed uploads"), "{table}");
    assert!(
        !table.contains("0.00 MiB/s") && !table.contains("wire 0.000x") && !table.contains("session 0 s"),
        "{table}"
    );
    assert!(
        table.contains("no verdict (http-json no rate, grpc no rate): http-json and grpc completed no round"),
        "{table}"
    );
    assert!(table.contains("completed with errors: 6 of 6 uploads failed"), "{table}");
    let json = run(&[SMALL, &["--emulator-fault", "return-403", "--format", "json"]].concat(), &[]);
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["outcome"], "completed_with_errors");
    assert!(report["outcome_detail"].as_str().unwrap().contains("4 of 4 uploads failed"));
    for t in report["transports"].as_array().unwrap() {
        for field in ["throughput_mib_s", "median_s", "p50_s", "wire_ratio", "cpu_s_per_gib", "session_median_s"] {
            assert!(t.get(field).is_some_and(|v| v.is_null()), "{field} = {:?} with nothing measured", t.get(field));
        }
    }
    assert!(report["comparison"].get("faster").is_some_and(|v| v.is_null()), "{}", report["comparison"]);

    // Every other upload corrupted (and refused by the server's crc32c check):
    // the failed uploads' bytes stay out of the wire ratio.
    let corrupt = run(&[THREE, &["--emulator-fault", "corrupt-after-256K:every=2", "--format", "json"]].concat(), &[]);
    assert_eq!(corrupt.status.code(), Some(1), "{}", String::from_utf8_lossy(&corrupt.stderr));
    let report: serde_json::Value = serde_json::from_slice(&corrupt.stdout).unwrap();
    for t in report["transports"].as_array().unwrap() {
        // The fault's schedule is fixed: each transport has rounds that finished and uploads that failed.
        assert!(t["runs"].as_u64() >= Some(1) && t["errors"].as_u64() >= Some(1), "{t}");
        let ratio = framing_ratio(&serde_json::from_value(t.clone()).unwrap());
        assert!((1.0..1.05).contains(&ratio), "{}: wire {ratio}", t["transport"]);
    }

    // A stalled server and a 1 s timeout: the run stops, says why, and measured nothing.
    let stalled =
        run(&[SMALL, &["--emulator-fault", "stall-for-5s", "--timeout", "1s", "--warmup=false"]].concat(), &[]);
    let table = String::from_utf8_lossy(&stalled.stdout);
    assert_eq!(stalled.status.code(), Some(1), "{table}");
    assert!(table.contains("hit --timeout 1s"), "{table}");
    assert!(table.contains("no completed uploads") && !table.contains("MiB/s  "), "{table}");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("http-json round 1/3 failed: 0 of 1 upload finished"), "{stderr}");
    assert!(!stderr.contains("0.00 MiB/s"), "no rate for a round that failed: {stderr}");
}

#[test]
fn a_duration_run_counts_rounds_without_a_planned_total() {
    let output = run(&["run", "--size", "256KiB", "--duration", "1s", "--warmup=false"], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("http-json round 1: "), "{stderr}");
    assert!(!stderr.contains("round 1/3"), "--iterations is not the plan of a --duration run: {stderr}");
    assert!(stderr.contains("ran for --duration 1s"), "{stderr}");
}

#[test]
fn until_stable_says_why_it_stopped() {
    let output =
        run(&["run", "--size", "256KiB", "--until-stable", "0.001%", "--iterations", "3", "--warmup=false"], &[]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("not stable: hit --iterations 3 before the interval narrowed to 0.001 points"), "{stdout}");
}

/// `--start-in` waits (after connecting) and says so; a start already past
/// by more than 5 s is one sentence and exit 2, nothing run.
#[test]
fn a_synchronized_start_waits_for_its_instant_and_refuses_a_past_one() {
    let began = std::time::Instant::now();
    let output = run(&[SMALL, &["--start-in", "2s"]].concat(), &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(began.elapsed() >= std::time::Duration::from_secs(2), "it waited");
    let said = String::from_utf8_lossy(&output.stderr);
    let countdown = said.lines().position(|l| l.starts_with("starting at ") && l.ends_with(" s)")).expect(&said);
    let first_round = said.lines().position(|l| l.contains("round 1/2")).expect(&said);
    assert!(countdown < first_round, "the countdown comes before the rounds:\n{said}");
    let warmup = said.lines().position(|l| l.contains("warming up")).expect(&said);
    assert!(
        warmup < countdown,
        "the warmup is done before the wait, so the timed rounds begin at the instant:\n{said}"
    );
    let timed = run(&[SMALL, &["--start-in", "2s", "--format", "json"]].concat(), &[]);
    let report: serde_json::Value = serde_json::from_slice(&timed.stdout).unwrap();
    let said = String::from_utf8_lossy(&timed.stderr);
    let instant = said.lines().find_map(|l| l.strip_prefix("starting at ")?.split(' ').next()).expect(&said);
    let parse = |t: &str| gcs_speed_tui::engine::start::parse_rfc3339(t).unwrap();
    let first = parse(report["rounds"][0]["started_at"].as_str().unwrap());
    let after = first.duration_since(parse(instant)).expect("the first round began at the instant, not before");
    assert!(after < std::time::Duration::from_millis(500), "and at once: {after:?} after it");
    // The wait is not part of --timeout.
    let patient = run(&[SMALL, &["--start-in", "3s", "--timeout", "2s"]].concat(), &[]);
    assert!(patient.status.success(), "{}", String::from_utf8_lossy(&patient.stderr));
    let past = run(&[SMALL, &["--start-at", "2020-01-01T00:00:00Z"]].concat(), &[]);
    assert_eq!(past.status.code(), Some(2));
    let said = String::from_utf8_lossy(&past.stderr);
    assert!(
        said.starts_with("error: --start-at 2020-01-01T00:00:00Z was ") && said.contains("give a time in the future"),
        "{said}"
    );
}

#[test]
fn a_reader_that_went_away_is_no_panic() {
    // `2>&1 | head`: stderr's reader is gone before the sentence is written.
    for args in [&["run", "--iterations", "0"][..], &["grpc", "run"][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui"))
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}: bad input's exit code, not a panic's 101");
    }
}
