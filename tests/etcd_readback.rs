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
