//! The client's own descriptor limit: a soft limit below what a run opens is
//! raised to the hard limit at start, and a hard limit below it is refused
//! before anything runs, in one sentence naming the limit.

mod common;

/// `run --emulator --size 1KiB --concurrency 1024 --iterations 3 --format
/// json` under `ulimit` set by `limits` (a shell's `ulimit` arguments).
fn under_limit(limits: &str) -> std::process::Output {
    let script = format!(
        "ulimit {limits} && exec \"$0\" run --emulator --size 1KiB --concurrency 1024 --iterations 3 --format json"
    );
    std::process::Command::new("bash")
        .args(["-c", &script, common::binary().to_str().unwrap()])
        .env_remove("STORAGE_EMULATOR_HOST")
        .env_remove("STORAGE_EMULATOR_HOST_GRPC")
        .output()
        .unwrap()
}

#[test]
fn a_hard_limit_too_low_is_refused_in_one_sentence_naming_it() {
    let output = under_limit("-n 1024");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    // 1,024 HTTP/JSON connections and a gRPC channel, each with the emulator's end.
    let needed = 2 * (1024 + 1) + gcs_speed_tui::engine::descriptors::BESIDE_CONNECTIONS;
    assert_eq!(
        stderr.trim(),
        format!(
            "error: --concurrency 1024's connections (both ends: the built-in emulator runs in this process) need about {needed} open files, above this process's limit of 1024: raise the hard limit (1024) to 4096 or more (as root: `ulimit -Hn 4096`, or in /etc/security/limits.conf) and run again, or ask for less"
        )
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn a_soft_limit_too_low_is_raised_and_every_round_runs_at_speed() {
    let hard: u64 =
        String::from_utf8(std::process::Command::new("bash").args(["-c", "ulimit -Hn"]).output().unwrap().stdout)
            .unwrap()
            .trim()
            .parse()
            .unwrap_or(u64::MAX);
    assert!(hard >= 4096, "this test needs a hard limit of 4096 open files or more (it is {hard})");
    let output = under_limit("-Sn 1024");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rounds = report["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 6, "3 rounds of each transport");
    let seconds: Vec<f64> = rounds.iter().map(|r| r["elapsed_s"].as_f64().unwrap()).collect();
    let (fastest, slowest) = seconds.iter().fold((f64::MAX, 0.0f64), |(lo, hi), &s| (lo.min(s), hi.max(s)));
    assert!(slowest <= 3.0 * fastest, "no round over 3x another: {seconds:?}");
    for transport in report["transports"].as_array().unwrap() {
        assert_eq!(transport["objects"], 3 * 1024, "{transport}");
        assert_eq!(transport["errors"], 0, "{transport}");
    }
}
