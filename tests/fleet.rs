//! A fleet on one machine, as Kubernetes would run it: the manifest's own
//! command line (read from assets/k8s/job.yaml, its $(VARS) expanded as
//! Kubernetes expands them) run by three processes with one --start-at
//! against one emulator; collect.sh (with a stand-in for kubectl, which has
//! no cluster here) cuts their reports from the logs and merges them; the
//! fleet's throughput is the sum of the hosts' in the common window, its
//! window and percentiles those worked out from the hosts' own reports, and
//! each round's wall-clock span holds the server's record of its objects.

mod common;

use common::fleet::{
    assert_within_hdr_precision, expected_window, finished_times, merged_window, micros, nearest_rank, rate_in, span_of,
};
use gcs_speed_tui::emulator::Emulator;
use serde_yaml::Value as Yaml;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const PODS: usize = 3;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The manifest's documents: the ServiceAccount, then the Job.
fn manifest() -> Vec<Yaml> {
    let text = std::fs::read_to_string(repo("assets/k8s/job.yaml")).unwrap();
    serde_yaml::Deserializer::from_str(&text).map(|doc| serde::Deserialize::deserialize(doc).unwrap()).collect()
}

fn job() -> Yaml {
    manifest().into_iter().find(|d| d["kind"] == "Job").expect("a Job in the manifest")
}

/// The container's command line with `$(NAME)` replaced as Kubernetes does.
fn command_line(values: &[(&str, String)]) -> Vec<String> {
    let container = &job()["spec"]["template"]["spec"]["containers"][0];
    let words = container["command"].as_sequence().unwrap().iter().chain(container["args"].as_sequence().unwrap());
    words
        .map(|word| {
            let mut word = word.as_str().expect("every word is a string").to_string();
            for (name, value) in values {
                word = word.replace(&format!("$({name})"), value);
            }
            assert!(!word.contains("$("), "every variable the command uses is set: {word}");
            word
        })
        .collect()
}

#[test]
fn the_manifest_is_an_indexed_job_with_workload_identity_spread_over_nodes() {
    let docs = manifest();
    let account = docs.iter().find(|d| d["kind"] == "ServiceAccount").expect("a ServiceAccount");
    let gsa = account["metadata"]["annotations"]["iam.gke.io/gcp-service-account"].as_str().unwrap();
    assert!(gsa.ends_with(".iam.gserviceaccount.com"), "{gsa}");
    let job = job();
    assert_eq!(
        (job["apiVersion"].as_str(), job["spec"]["completionMode"].as_str()),
        (Some("batch/v1"), Some("Indexed"))
    );
    assert_eq!(job["spec"]["parallelism"], job["spec"]["completions"], "every pod runs at once");
    let pod = &job["spec"]["template"]["spec"];
    assert_eq!(pod["serviceAccountName"], account["metadata"]["name"]);
    let text = std::fs::read_to_string(repo("assets/k8s/job.yaml")).unwrap();
    assert!(!text.contains("GOOGLE_APPLICATION_CREDENTIALS") && !text.contains("secretName"), "no key files");
    let spread = &pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0];
    assert_eq!(spread["topologyKey"], "kubernetes.io/hostname");
    assert_eq!(spread["labelSelector"]["matchLabels"], job["spec"]["template"]["metadata"]["labels"]);
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    let container = &pod["containers"][0];
    let resources = &container["resources"];
    for (what, key) in [("requests", "cpu"), ("requests", "memory"), ("limits", "cpu"), ("limits", "memory")] {
        assert!(resources[what][key].as_str().is_some(), "{what}.{key} is set");
    }
    let line = command_line(&[("BUCKET", "b".into()), ("START_AT", "t".into()), ("POD_NAME", "p".into())]);
    for flag in ["--format", "--log-markers", "--start-at", "--host-label"] {
        assert!(line.iter().any(|w| w == flag), "{flag} in {line:?}");
    }
}

#[test]
fn the_dockerfile_builds_with_the_lock_and_profile_ci_tests() {
    let dockerfile = std::fs::read_to_string(repo("Dockerfile")).unwrap();
    let build = dockerfile.lines().find(|l| l.contains("cargo build")).expect("a cargo build step");
    assert!(build.contains("--locked"), "the build uses Cargo.lock as it is: {build}");
    assert!(!build.contains("--release") && !build.contains("--profile"), "CI's profile (dev): {build}");
    let test = std::fs::read_to_string(repo("scripts/test")).unwrap();
    assert!(test.contains("cargo nextest run") && !test.contains("--release"), "CI tests the dev profile");
    assert!(dockerfile.contains("COPY Cargo.toml Cargo.lock"), "the lock file goes into the build");
    let runtime = dockerfile.rsplit("\nFROM ").next().unwrap();
    assert!(runtime.contains("nonroot") && runtime.contains("USER 65532"), "non-root at run time");
    let copies: Vec<&str> = runtime.lines().filter(|l| l.starts_with("COPY")).collect();
    assert_eq!(copies, ["COPY --from=build /gcs-speed-tui /usr/local/bin/gcs-speed-tui"], "the binary only");
    let job = job();
    let command = &job["spec"]["template"]["spec"]["containers"][0]["command"][0];
    assert_eq!(command.as_str(), Some("/usr/local/bin/gcs-speed-tui"), "the manifest runs the image's binary");
}

/// A stand-in for kubectl answering what collect.sh asks about a Job of
/// `pods` whose status says `succeeded` and `failed` (kubectl prints an
/// unset count as nothing), from the logs in `logs`.
fn fake_kubectl(bin: &Path, logs: &Path, pods: &[String], (succeeded, failed, gave_up): (&str, &str, &str)) {
    let script = format!(
        "#!/bin/sh\n# kubectl stand-in for collect.sh's test (no cluster here)\ncase \"$*\" in\n\
         *'get job'*'spec.completions'*) echo {} ;;\n\
         *'get job'*'status.succeeded'*) echo {succeeded} ;;\n\
         *'get job'*'status.failed'*) echo {failed} ;;\n\
         *'get job'*'status.conditions'*) echo {gave_up} ;;\n\
         *'get pods'*) echo '{}' ;;\n\
         logs*) cat '{}'/\"$2\".log ;;\n\
         *) echo \"unexpected: kubectl $*\" >&2; exit 1 ;;\nesac\n",
        pods.len(),
        pods.join(" "),
        logs.display()
    );
    let path = bin.join("kubectl");
    std::fs::write(&path, script).unwrap();
    let mut permissions = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&path, permissions).unwrap();
}

/// collect.sh with the stand-in kubectl on PATH: (stdout, stderr, success).
fn collect(bin: &Path, out: &Path) -> (String, String, bool) {
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let output = Command::new(repo("assets/k8s/collect.sh"))
        .args(["gcs-speed-tui-fleet", out.to_str().unwrap()])
        .env("PATH", path)
        .env("GCS_SPEED_TUI", common::binary())
        .output()
        .unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (text(&output.stdout), text(&output.stderr), output.status.success())
}

#[test]
fn collect_merges_the_pods_that_reported_when_the_job_failed() {
    let dir = tempfile::tempdir().unwrap();
    let (logs, bin, out) = (dir.path().join("logs"), dir.path().join("bin"), dir.path().join("out"));
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    let pods: Vec<String> = ["fleet-0-a", "fleet-1-b", "fleet-2-c"].map(String::from).to_vec();
    for (pod, start) in pods.iter().zip([0.0, 0.5]) {
        let report = common::synthetic::host(pod, start, &[100; 4], 100, 0.01, "1MiB").to_json();
        let log = format!(
            "starting at ...\n{}\n{report}\n{}\n",
            gcs_speed_tui::engine::start::REPORT_BEGINS,
            gcs_speed_tui::engine::start::REPORT_ENDS
        );
        std::fs::write(logs.join(format!("{pod}.log")), log).unwrap();
    }
    std::fs::write(logs.join("fleet-2-c.log"), "error: cannot reach the bucket\n").unwrap();
    // No pod counted as succeeded yet (an empty count), one failed, and the Job gave up (backoffLimit 0).
    fake_kubectl(&bin, &logs, &pods, ("", "1", "True"));
    let (stdout, stderr, ok) = collect(&bin, &out);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stderr.contains("job/gcs-speed-tui-fleet: 0 succeeded, 1 failed"), "{stderr}");
    assert!(stderr.contains("warning: fleet-2-c printed no report"), "{stderr}");
    assert!(stdout.contains("fleet-0-a http-json") && stdout.contains("fleet http-json"), "{stdout}");
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("fleet.json")).unwrap()).unwrap();
    assert_eq!(merged["fleet"]["hosts"], serde_json::json!(["fleet-0-a", "fleet-1-b"]));
    assert!(out.join("pods/fleet-2-c.log").exists() && !out.join("pods/fleet-2-c.json").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fleet_started_together_merges_to_the_sum_of_its_hosts_in_the_common_window() {
    let emulator = common::emulator().await;
    let dir = tempfile::tempdir().unwrap();
    let (logs, bin, out) = (dir.path().join("logs"), dir.path().join("bin"), dir.path().join("reports"));
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    let start = std::time::SystemTime::now() + std::time::Duration::from_secs(4);
    let start_at = gcs_speed_tui::units::rfc3339(start);
    let pods: Vec<String> = (0..PODS).map(|i| format!("gcs-speed-tui-fleet-{i}-x7k2p")).collect();
    let children: Vec<std::process::Child> = pods
        .iter()
        .map(|pod| {
            let line = command_line(&[
                ("BUCKET", common::BUCKET.into()),
                ("START_AT", start_at.clone()),
                ("POD_NAME", pod.clone()),
            ]);
            // The pod's log has both streams, as `kubectl logs` shows them.
            let log = std::fs::File::create(logs.join(format!("{pod}.log"))).unwrap();
            // Objects kept (--cleanup=false): the emulator's record of when
            // each was stored is what the rounds' spans are checked against.
            Command::new(common::binary())
                .args(&line[1..])
                .arg("--cleanup=false")
                .env("STORAGE_EMULATOR_HOST", emulator.json_url())
                .env("STORAGE_EMULATOR_HOST_GRPC", emulator.grpc_addr().to_string())
                .stdout(Stdio::from(log.try_clone().unwrap()))
                .stderr(Stdio::from(log))
                .spawn()
                .unwrap()
        })
        .collect();
    let statuses =
        tokio::task::spawn_blocking(move || children.into_iter().map(|mut c| c.wait().unwrap()).collect::<Vec<_>>())
            .await
            .unwrap();
    for (pod, status) in pods.iter().zip(&statuses) {
        let log = std::fs::read_to_string(logs.join(format!("{pod}.log"))).unwrap();
        assert!(status.success(), "{pod}: {status}\n{log}");
        assert!(log.contains("starting at"), "a countdown on stderr: {log}");
    }
    fake_kubectl(&bin, &logs, &pods, (&PODS.to_string(), "", ""));
    let (stdout, stderr, ok) = tokio::task::spawn_blocking({
        let (bin, out) = (bin.clone(), out.clone());
        move || collect(&bin, &out)
    })
    .await
    .unwrap();
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stdout.contains("fleet http-json") && stdout.contains("fleet grpc"), "{stdout}");
    let merged: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("fleet.json")).unwrap()).unwrap();
    let hosts: Vec<serde_json::Value> = pods
        .iter()
        .map(|pod| {
            serde_json::from_str(&std::fs::read_to_string(out.join(format!("pods/{pod}.json"))).unwrap()).unwrap()
        })
        .collect();
    assert_eq!(merged["fleet"]["hosts"].as_array().unwrap().len(), PODS);
    let flag = |name: &str| -> usize {
        let line = command_line(&[("BUCKET", String::new()), ("START_AT", String::new()), ("POD_NAME", String::new())]);
        let at = line.iter().position(|w| w == name).unwrap_or_else(|| panic!("{name} in the manifest"));
        line[at + 1].parse().unwrap()
    };
    let (iterations, concurrency) = (flag("--iterations"), flag("--concurrency"));
    let starts = micros(&start_at);
    for (pod, host) in pods.iter().zip(&hosts) {
        let first = host["rounds"].as_array().unwrap().iter().map(|r| span_of(r).0).min();
        assert!(first.unwrap() >= starts, "no round began before --start-at");
        assert_rounds_hold_their_objects(pod, host, &emulator, iterations * concurrency * 2);
    }
    assert_merge_is_the_hosts(&merged, &pods, &hosts, (iterations, concurrency));
}

/// The merge's window, throughput, rounds and percentiles, each worked out
/// here from the pods' own reports (run with `iterations` x `concurrency`).
fn assert_merge_is_the_hosts(
    merged: &serde_json::Value,
    pods: &[String],
    hosts: &[serde_json::Value],
    (iterations, concurrency): (usize, usize),
) {
    // The window from the hosts' own rounds: the last first start to the first last end.
    let named: Vec<(&str, &serde_json::Value)> = pods.iter().map(String::as_str).zip(hosts).collect();
    let expected = expected_window(&named);
    let seconds = (expected.end - expected.start) as f64 / 1e6;
    println!("window {seconds:.3} s, trimmed {} µs / {} µs", expected.trimmed_start, expected.trimmed_end);
    assert_eq!(merged_window(merged), expected, "the merge's window is the one worked out from the hosts");
    let window = (expected.start, expected.end);
    for transport in ["http-json", "grpc"] {
        let fleet = merged["transports"].as_array().unwrap().iter().find(|t| t["transport"] == transport).unwrap();
        let fleet_rate = fleet["throughput_mib_s"].as_f64().unwrap();
        let mib = |round: &serde_json::Value| round["bytes"].as_f64().unwrap() / (1024.0 * 1024.0);
        let sum: f64 = hosts.iter().map(|host| rate_in(host, transport, window, mib)).sum();
        println!(
            "{transport}: fleet {fleet_rate:.1} MiB/s, the hosts' in the window add to {sum:.1} ({:+.1e})",
            fleet_rate / sum - 1.0
        );
        assert!((fleet_rate / sum - 1.0).abs() < 0.01, "{transport}: fleet {fleet_rate} vs the hosts' sum {sum}");
        assert_eq!(fleet["runs"].as_u64(), Some((PODS * iterations) as u64), "each pod's --iterations rounds");
        // Percentiles of every pod's uploads together, ranked here.
        let times = finished_times(&hosts.iter().collect::<Vec<_>>(), transport);
        assert_eq!(times.len(), PODS * iterations * concurrency, "{transport}: every upload finished");
        for (percent, field) in [(50, "p50_s"), (90, "p90_s"), (99, "p99_s")] {
            let reported = fleet[field].as_f64().unwrap();
            assert_within_hdr_precision(reported, nearest_rank(&times, percent), &format!("{transport} {field}"));
        }
    }
}

/// The pod's rounds are placed right on the wall clock: the emulator's own
/// record of when it stored each object (its clock, read when the upload
/// finished) lies inside the span of the round that uploaded it. The two
/// are measured apart: a span comes from the pod's clock, `created` from
/// the server's (one machine's wall clock, so they can be compared).
fn assert_rounds_hold_their_objects(pod: &str, host: &serde_json::Value, emulator: &Emulator, objects: usize) {
    let rounds = host["rounds"].as_array().unwrap();
    let samples = host["samples"].as_array().unwrap();
    assert_eq!(samples.len(), objects, "{pod}: --iterations x --concurrency uploads per transport, both transports");
    for sample in samples {
        let round = rounds
            .iter()
            .find(|r| r["transport"] == sample["transport"] && r["round"] == sample["round"])
            .unwrap_or_else(|| panic!("{pod}: the round of {sample}"));
        let (start, end) = span_of(round);
        let name = sample["object"].as_str().unwrap();
        let stored = emulator.store().get(common::BUCKET, name).unwrap_or_else(|e| panic!("{pod}: {name} kept: {e:?}"));
        let created = stored.created.duration_since(std::time::UNIX_EPOCH).unwrap().as_micros() as i64;
        // 1 ms: each side writes whole microseconds, and the pod's anchor is
        // read a few µs apart on its two clocks.
        assert!(
            start - 1000 <= created && created <= end + 1000,
            "{pod}: {name} stored at {created} µs, outside its round [{start}, {end}]"
        );
    }
}
