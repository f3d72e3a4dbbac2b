//! `--fail-if`: conditions that set the exit code for CI. Each case's
//! truth follows from its inputs: any real upload takes more than 1 µs and
//! less than an hour, and a run without faults has no errors.

mod common;
mod etcd_server;
use common::run;

const SMALL: &[&str] = &["run", "--size", "256KiB", "--iterations", "3", "--warmup-size", "256KiB"];

fn with(conditions: &[&str], extra: &[&str]) -> (Option<i32>, String, String) {
    let mut args: Vec<&str> = [SMALL, extra].concat();
    for condition in conditions {
        args.extend(["--fail-if", condition]);
    }
    let output = run(&args, &[]);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned(), stderr)
}

fn said(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("fail-if: ")).collect()
}

#[test]
fn a_condition_that_holds_exits_3_after_the_report() {
    let (code, stdout, stderr) = with(&["grpc.p99 > 1us", "p99 > 1h"], &[]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stdout.starts_with("Transport  Runs"), "the report is written all the same: {stdout}");
    let lines = said(&stderr);
    assert_eq!(lines.len(), 1, "only the one that held, once (gRPC's one row): {stderr}");
    assert!(lines[0].starts_with("fail-if: grpc.p99 > 1us: grpc was "), "{}", lines[0]);
}

#[test]
fn conditions_that_do_not_hold_exit_0_and_say_so() {
    let (code, _, stderr) = with(&["errors > 0", "p99 > 1h", "retries >= 1"], &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(said(&stderr), ["fail-if: 3 conditions checked, none held"]);
}

#[test]
fn a_figure_the_run_did_not_measure_counts_as_holding() {
    // One transport: there is no gRPC/JSON ratio to check.
    let (code, _, stderr) = with(&["ratio < 0.5"], &["--transports", "http-json"]);
    assert_eq!(code, Some(3), "{stderr}");
    assert_eq!(said(&stderr), ["fail-if: ratio < 0.5: nothing measured to check"]);
}

#[test]
fn failed_work_keeps_exit_1_and_a_bad_condition_is_refused_before_the_run() {
    let fault = ["--emulator-fault", "return-503", "--max-retries", "0"];
    let (code, _, stderr) = with(&["errors > 0"], &fault);
    assert_eq!(code, Some(1), "failed uploads say so first: {stderr}");
    assert_eq!(said(&stderr).len(), 2, "and each transport's errors are said: {stderr}");
    let (code, stdout, stderr) = with(&["grpc.p99 >> 5ms"], &[]);
    assert_eq!(code, Some(2));
    assert!(stdout.is_empty() && !stderr.contains("round"), "refused before anything ran: {stderr}");
    assert!(stderr.starts_with("error: --fail-if 'grpc.p99 >> 5ms': "), "{stderr}");
}

#[test]
fn etcd_runs_take_the_same_conditions() {
    let etcd = etcd_server::Etcd::start();
    let args = ["etcd", "run", "--endpoints", &etcd.url, "--clients", "2", "--requests", "20"];
    let output = run(&[&args[..], &["--fail-if", "grpc.p99 > 1us", "--fail-if", "errors > 0"]].concat(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    let lines = said(&stderr);
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].starts_with("fail-if: grpc.p99 > 1us: grpc was "), "{stderr}");
}
