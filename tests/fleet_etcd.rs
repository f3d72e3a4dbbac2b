//! etcd reports merge as GCS ones do: three `etcd run`s against one real
//! etcd begin at one --start-at; their merge's throughput is the sum of the
//! hosts' in the common window, its percentiles those of the hosts'
//! histograms added, and a merge of a merge with the third equals the merge
//! of all three.

mod common;
mod etcd_server;

use base64::Engine;
use common::fleet::{expected_window, merged_window, rate_in};
use etcd_server::Etcd;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer;
use serde_json::Value;

fn stdout_json(output: &std::process::Output) -> Value {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The hosts' histograms added, read here with the hdrhistogram crate
/// itself (not the merge's code): HdrHistogram's V2 encoding, in base64.
fn added(histograms: &[String]) -> Histogram<u64> {
    // Each host's histogram is as wide as its own slowest: the sum grows to
    // hold them all.
    assert_eq!(histograms.len(), 3, "three hosts");
    let mut sum: Histogram<u64> = Histogram::new(3).unwrap();
    for text in histograms {
        let bytes = base64::engine::general_purpose::STANDARD.decode(text).unwrap();
        let histogram: Histogram<u64> = Deserializer::new().deserialize(&mut bytes.as_slice()).unwrap();
        assert!(!histogram.is_empty(), "each host measured requests");
        sum.add(&histogram).unwrap();
    }
    sum
}

#[test]
fn etcd_hosts_merge_to_their_sum_and_merges_of_merges_agree() {
    let etcd = Etcd::start();
    let dir = tempfile::tempdir().unwrap();
    let start_at = gcs_speed_tui::units::rfc3339(std::time::SystemTime::now() + std::time::Duration::from_secs(3));
    let hosts = ["etcd-a", "etcd-b", "etcd-c"];
    let threads: Vec<_> = hosts
        .iter()
        .map(|host| {
            let args: Vec<String> = [
                "etcd",
                "run",
                "--endpoints",
                &etcd.url,
                "--clients",
                "4",
                "--requests",
                "200",
                "--key-space",
                "100",
                "--iterations",
                "4",
                "--format",
                "json",
                "--start-at",
                &start_at,
                "--host-label",
                host,
                "--client-threads",
                "1",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            std::thread::spawn(move || common::run(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]))
        })
        .collect();
    let reports: Vec<Value> = threads.into_iter().map(|t| stdout_json(&t.join().unwrap())).collect();
    let files: Vec<String> = reports
        .iter()
        .zip(hosts)
        .map(|(report, host)| {
            assert_eq!(report["environment"]["host"], host);
            let path = dir.path().join(format!("{host}.json"));
            std::fs::write(&path, report.to_string()).unwrap();
            path.display().to_string()
        })
        .collect();
    let merge =
        |inputs: &[&str]| stdout_json(&common::run(&[&["merge", "--format", "json"][..], inputs].concat(), &[]));
    let all = merge(&files.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(all["fleet"]["hosts"], serde_json::json!(hosts));
    // The window from the hosts' own rounds: the last first start to the first last end.
    let named: Vec<(&str, &Value)> = hosts.iter().copied().zip(&reports).collect();
    let expected = expected_window(&named);
    assert_eq!(merged_window(&all), expected, "the merge's window is the one worked out from the hosts");
    let window = (expected.start, expected.end);
    for transport in ["http-json", "grpc"] {
        let fleet = all["transports"].as_array().unwrap().iter().find(|t| t["transport"] == transport).unwrap();
        let ops = |round: &Value| round["ops"].as_f64().unwrap();
        let sum: f64 = reports.iter().map(|r| rate_in(r, transport, window, ops)).sum();
        let rate = fleet["ops_per_s"].as_f64().unwrap();
        assert!((rate / sum - 1.0).abs() < 0.01, "{transport}: fleet {rate} ops/s vs the hosts' sum {sum}");
        // The fleet's p50 is that of the hosts' histograms added.
        let histograms: Vec<String> = reports
            .iter()
            .map(|r| {
                let t = r["transports"].as_array().unwrap().iter().find(|t| t["transport"] == transport).unwrap();
                t["latency_histogram"].as_str().unwrap().to_string()
            })
            .collect();
        let sum = added(&histograms);
        assert_eq!(fleet["latency"]["p50_ms"].as_f64(), Some(sum.value_at_quantile(0.5) as f64 / 1000.0));
        assert_eq!(fleet["latency"]["p99_ms"].as_f64(), Some(sum.value_at_quantile(0.99) as f64 / 1000.0));
        assert_eq!(fleet["runs"], 12, "the hosts' rounds, summed");
        assert_eq!(fleet["server_cpu_us_per_op"], Value::Null, "each host read the whole cluster's CPU");
    }
    assert!(all["comparison"]["pairs"] == 4, "paired by round across hosts: {}", all["comparison"]);
    let ab_path = dir.path().join("ab.json");
    std::fs::write(&ab_path, merge(&[&files[0], &files[1]]).to_string()).unwrap();
    assert_eq!(merge(&[ab_path.to_str().unwrap(), &files[2]]), all, "a merge of merges is the merge of all");
    let table = common::run(&["merge", dir.path().to_str().unwrap()], &[]);
    assert!(!table.status.success(), "ab.json holds hosts a and b again: refused");
    assert!(
        String::from_utf8_lossy(&table.stderr).contains("hold the same run"),
        "{}",
        String::from_utf8_lossy(&table.stderr)
    );
    std::fs::remove_file(&ab_path).unwrap();
    let table = common::run(&["merge", dir.path().to_str().unwrap()], &[]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("etcd-b grpc") && text.contains("fleet http-json"), "{text}");
}
