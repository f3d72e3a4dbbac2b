//! What `etcd run` wrote, read back from etcd itself: the keys and their
//! values, the number of puts (etcd's revision counts every one), the
//! warmup's size, and cleanup's exact count. Every expected number is
//! worked out here from the flags.

mod common;
mod etcd_server;
use common::run;
use etcd_server::Etcd;
use serde_json::Value;

const CLIENTS: u64 = 2;
/// Before any clock starts, each of the run's three clients (a transport
/// each, and the one that cleans up) puts and deletes a probe key: two
/// revisions each.
const PROBE_REVISIONS: u64 = 3 * 2;
const REQUESTS: u64 = 10;

fn revision(etcd: &Etcd) -> u64 {
    let status: Value = serde_json::from_str(&etcd.ctl_ok(&["endpoint", "status", "-w", "json"])).unwrap();
    status[0]["Status"]["header"]["revision"].as_u64().unwrap()
}

fn put_run(etcd: &Etcd, extra: &[&str]) -> Value {
    let (clients, requests) = (CLIENTS.to_string(), REQUESTS.to_string());
    let args = ["etcd", "run", "--endpoints", &etcd.url, "--format", "json", "--mode", "put", "--iterations", "1"];
    let sized = ["--clients", &clients, "--requests", &requests, "--sequential-keys", "--key-space", "1000"];
    let output = run(&[&args[..], &sized, extra].concat(), &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_puts_land_with_their_values_and_etcd_counts_every_one() {
    let etcd = Etcd::start();
    let before = revision(&etcd);
    let report = put_run(&etcd, &["--value-size", "1KiB", "--warmup=false", "--cleanup=false"]);
    assert_eq!(report["config"]["value_size"], 1024, "1KiB is 1024 bytes");
    // Each transport put every sequential key once: 0 .. CLIENTS x REQUESTS.
    let puts = 2 * CLIENTS * REQUESTS;
    assert_eq!(revision(&etcd) - before - PROBE_REVISIONS, puts, "etcd saw exactly the puts the report claims");
    let claimed: u64 = report["transports"].as_array().unwrap().iter().map(|t| t["ops"].as_u64().unwrap()).sum();
    assert_eq!(claimed, puts);
    let prefix = report["cleanup"]["prefix"].as_str().unwrap();
    let listed = etcd.ctl_ok(&["get", prefix, "--prefix", "-w", "json"]);
    let kvs: Vec<Value> =
        serde_json::from_str::<Value>(&listed).unwrap()["kvs"].as_array().cloned().unwrap_or_default();
    assert_eq!(kvs.len() as u64, CLIENTS * REQUESTS, "one key per (client, request), both transports on the same keys");
    use base64::Engine;
    let decode = |v: &Value| base64::engine::general_purpose::STANDARD.decode(v.as_str().unwrap()).unwrap();
    for kv in &kvs {
        assert!(decode(&kv["key"]).starts_with(prefix.as_bytes()));
        assert_eq!(decode(&kv["value"]).len(), 1024, "every value is the size asked for");
        assert_eq!(kv["version"], 2, "written once by each transport");
    }
}

#[test]
fn the_warmup_is_no_larger_than_a_round_and_cleanup_deletes_exactly_the_keys() {
    let etcd = Etcd::start();
    let before = revision(&etcd);
    let report = put_run(&etcd, &[]);
    // Per transport: a warmup of CLIENTS x min(100, REQUESTS) puts, then one
    // round of CLIENTS x REQUESTS; then one delete of the run's prefix,
    // which etcd counts as one revision.
    let warmup = CLIENTS * REQUESTS.min(100);
    let puts = 2 * (warmup + CLIENTS * REQUESTS);
    assert_eq!(revision(&etcd) - before - PROBE_REVISIONS, puts + 1, "{report}");
    assert_eq!(report["cleanup"]["deleted"], CLIENTS * REQUESTS, "the distinct keys, exactly");
    assert_eq!(etcd.count(report["cleanup"]["prefix"].as_str().unwrap(), None), 0, "none left");
}

#[test]
fn a_range_that_finds_nothing_is_a_failed_request_not_an_op() {
    let etcd = Etcd::start();
    let (clients, requests, rounds, key_space) = (2u64, 2000u64, 3u64, 100u64);
    let (c, r, i, k) = (clients.to_string(), requests.to_string(), rounds.to_string(), key_space.to_string());
    let args = ["etcd", "run", "--endpoints", &etcd.url, "--format", "json", "--mode", "range", "--prefix", "gone"];
    let sized = ["--clients", &c, "--requests", &r, "--iterations", &i, "--key-space", &k, "--warmup=false"];
    let args: Vec<String> = [&args[..], &sized].concat().iter().map(|s| s.to_string()).collect();
    let running = std::thread::spawn(move || run(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]));
    // Once the run has written its key space, someone else deletes it.
    let started = std::time::Instant::now();
    while etcd.count("gone/", None) < key_space {
        assert!(started.elapsed().as_secs() < 20, "the run wrote its {key_space} keys");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    etcd.ctl_ok(&["del", "gone/", "--prefix"]);
    let output = running.join().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let done = report["rounds"].as_array().unwrap();
    assert_eq!(done.len() as u64, 2 * rounds, "{report}");
    let mut missing = 0;
    for round in done {
        // Each range either found its key (an op) or found none (a failure):
        // none of a round's requests is dropped, none counted twice.
        let (ops, errors) = (round["ops"].as_u64().unwrap(), round["errors"].as_u64().unwrap());
        assert_eq!(ops + errors, clients * requests, "{round}");
        if errors > 0 {
            assert_eq!(round["error_kinds"], serde_json::json!({ "not found": errors }), "{round}");
            assert_eq!(round["ok"], false, "{round}");
        }
        missing += errors;
    }
    // The last round began after the deletion: every one of its ranges missed.
    let last = done.iter().max_by_key(|r| r["started_at"].as_str().unwrap().to_string()).unwrap();
    assert_eq!(last["ops"], 0, "{last}");
    assert!(missing >= clients * requests, "{missing} ranges found nothing");
    assert_eq!(etcd.count("gone/", None), 0);
}
