//! `--format html`: the page of a GCS run, a sweep, a fleet merge, an etcd
//! run and a `grpc run`, each loaded in headless Chromium (Debian's
//! `chromium`, installed by ./scripts/test) with no console error, a
//! screenshot taken, and the figures the browser shows read back from its
//! DOM and checked against the JSON report the page carries (and, for the
//! merge, against `merge --format json` of the same reports).

mod common;
mod etcd_grpc;
mod etcd_server;
mod pages;

use common::run;
use pages::{Loaded, cells, load, ratio_rows, unescape};
use serde_json::Value;

/// The report a page carries, as its browser parsed it.
fn carried(loaded: &Loaded) -> Value {
    let start = loaded.dom.find("id=\"report\">").expect("the page carries its report") + "id=\"report\">".len();
    let end = start + loaded.dom[start..].find("</script>").unwrap();
    serde_json::from_str(&unescape(&loaded.dom[start..end])).unwrap()
}

/// gRPC over HTTP/JSON and its interval, from a comparison's own fields:
/// `percent` is how much faster `faster` was.
fn grpc_over_json(comparison: &Value) -> (f64, f64, f64) {
    let times =
        |field: &str| 1.0 + comparison[field].as_f64().unwrap_or_else(|| panic!("{field}: {comparison}")) / 100.0;
    if comparison["faster"] == "http-json" {
        (1.0 / times("percent"), 1.0 / times("ci_high"), 1.0 / times("ci_low"))
    } else {
        (times("percent"), times("ci_low"), times("ci_high"))
    }
}

/// The page's ratio rows say `expected` (exactly in `data-`, to two places as text).
fn assert_ratios(loaded: &Loaded, expected: &[(f64, f64, f64)]) {
    let rows = ratio_rows(&loaded.dom);
    assert_eq!(rows.len(), expected.len(), "{rows:?}");
    for (row, (ratio, low, high)) in rows.iter().zip(expected) {
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(close(row.ratio, *ratio) && close(row.low, *low) && close(row.high, *high), "{row:?} vs {expected:?}");
        assert_eq!(row.text[1], format!("{ratio:.2}x"), "{row:?}");
    }
}

/// The part of the page in `<section id="ID">`, as the browser built it
/// (not the report the page carries, which holds the same figures).
fn section<'a>(dom: &'a str, id: &str) -> &'a str {
    let start = dom.find(&format!("<section id=\"{id}\">")).unwrap_or_else(|| panic!("no section {id}"));
    &dom[start..start + dom[start..].find("</section>").unwrap()]
}

/// Each of `rates` (a row's name start, its rate) is what the table's
/// `column` shows for that row, to the places it shows.
fn assert_rates(loaded: &Loaded, column: &str, rates: &[(String, f64)]) {
    let headers = pages::headers(&loaded.dom, "table");
    let at = headers.iter().position(|h| h == column).unwrap_or_else(|| panic!("no column {column}: {headers:?}"));
    let rows = cells(&loaded.dom, "table");
    assert!(!rates.is_empty());
    for (name, rate) in rates {
        let row = rows.iter().find(|r| r[0].starts_with(name.as_str())).unwrap_or_else(|| panic!("{name}: {rows:?}"));
        let shown = row[at].split_whitespace().next().unwrap_or_default().replace(',', "");
        let places = shown.split_once('.').map_or(0, |(_, decimals)| decimals.len()) as i32;
        let number: f64 = shown.parse().unwrap_or_else(|_| panic!("{name}: {:?} is no number", row[at]));
        assert!((number - rate).abs() <= 0.5 * 10f64.powi(-places) + 1e-9, "{name}: {rate} shown as {:?}", row[at]);
    }
}

/// The rows' rates from the report: (transport, rate in `field`).
fn rates_of(report: &Value, field: &str) -> Vec<(String, f64)> {
    let rows = report["transports"].as_array().unwrap();
    rows.iter().map(|t| (t["transport"].as_str().unwrap().to_string(), t[field].as_f64().unwrap())).collect()
}

/// The page shows its charts: an SVG with lines drawn in it.
fn assert_charts(loaded: &Loaded) {
    let charts = section(&loaded.dom, "charts");
    assert!(
        charts.contains("<svg") && charts.matches("<polyline").count() >= 2,
        "{}",
        &charts[..charts.len().min(500)]
    );
}

fn write_page(dir: &std::path::Path, name: &str, args: &[&str]) -> Loaded {
    let path = dir.join(name);
    let output = run(&[args, &["--format", "html", "--output", path.to_str().unwrap()]].concat(), &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    load(&path)
}

#[test]
fn a_gcs_run_page_shows_its_reports_verdict_and_rates() {
    let dir = tempfile::tempdir().unwrap();
    let loaded = write_page(dir.path(), "run.html", &["run", "--emulator", "--size", "256KiB", "--iterations", "3"]);
    loaded.assert_clean();
    let report = carried(&loaded);
    assert_eq!(report["report_version"], 2);
    // The run the page carries is the one asked for: 256 KiB objects, 3 rounds a transport.
    assert_eq!(report["config"]["object_size"], 256 * 1024);
    assert_eq!(report["rounds"].as_array().map(Vec::len), Some(2 * 3));
    assert_ratios(&loaded, &[grpc_over_json(&report["comparison"])]);
    let rates = rates_of(&report, "throughput_mib_s");
    assert_eq!(rates.len(), 2);
    assert_rates(&loaded, "Throughput", &rates);
    // The verdict's sentence quotes both pooled rates.
    let verdict = section(&loaded.dom, "verdict");
    for (_, rate) in &rates {
        assert!(verdict.contains(&format!("{rate:.2}")), "{rate:.2} not in {verdict}");
    }
    assert_charts(&loaded);
    assert!(section(&loaded.dom, "environment").contains(report["environment"]["kernel"].as_str().unwrap()));
    assert!(section(&loaded.dom, "configuration").contains("\"object_size\": 262144"), "the configuration as run");
}

#[test]
fn a_sweep_page_shows_each_points_ratio() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["run", "--emulator", "--size", "64KiB", "--iterations", "3", "--sweep", "concurrency=1,4"];
    let loaded = write_page(dir.path(), "sweep.html", &args);
    loaded.assert_clean();
    let report = carried(&loaded);
    let points = report["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    // Each point's ratio row, in the points' order, from its own report's comparison.
    let expected: Vec<(f64, f64, f64)> = points.iter().map(|p| grpc_over_json(&p["report"]["comparison"])).collect();
    assert_ratios(&loaded, &expected);
    let rows = cells(&loaded.dom, "table");
    assert_eq!(rows.len(), 4, "a row per point and transport: {rows:?}");
    for (point, expected) in points.iter().zip(&expected) {
        let said = format!("concurrency={}", point["point"]["concurrency"].as_str().unwrap());
        let row = rows.iter().find(|r| r[0] == said).unwrap_or_else(|| panic!("{said}: {rows:?}"));
        assert!(row[5].starts_with(&format!("rate {:.2}x", expected.0)), "{row:?}");
        // The point ran at its concurrency.
        let concurrency: u64 = point["point"]["concurrency"].as_str().unwrap().parse().unwrap();
        assert_eq!(point["report"]["config"]["concurrency"], concurrency);
    }
}

#[test]
fn a_fleet_page_equals_the_merged_json() {
    let dir = tempfile::tempdir().unwrap();
    // Both hosts start at one --start-at, so that their rounds overlap (a
    // fleet). 16 MiB rounds, so each host's span is long beside the hosts'
    // start jitter: with 1 MiB ones (a millisecond each) a CI run once had
    // the common window miss every gRPC round of a host (no fleet rate).
    let start_at = gcs_speed_tui::units::rfc3339(std::time::SystemTime::now() + std::time::Duration::from_secs(8));
    let mut reports = Vec::new();
    let mut children = Vec::new();
    for host in ["host-a", "host-b"] {
        let path = dir.path().join(format!("{host}.json"));
        let args = ["run", "--emulator", "--size", "16MiB", "--iterations", "5", "--host-label", host];
        let files = ["--start-at", &start_at, "--format", "json", "--output", path.to_str().unwrap()];
        let mut command = std::process::Command::new(common::binary());
        command.args(args).args(files).stderr(std::process::Stdio::piped());
        children.push(command.spawn().unwrap());
        reports.push(path.to_str().unwrap().to_string());
    }
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    let inputs: Vec<&str> = reports.iter().map(String::as_str).collect();
    let merged = run(&[&["merge", "--format", "json"][..], &inputs].concat(), &[]);
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    let merged: Value = serde_json::from_slice(&merged.stdout).unwrap();
    let loaded = write_page(dir.path(), "fleet.html", &[&["merge"][..], &inputs].concat());
    loaded.assert_clean();
    assert_eq!(carried(&loaded), merged, "the page carries what merge --format json writes");
    assert!(merged["fleet"].is_object() && merged["comparison"]["pairs"].as_u64() >= Some(3), "the hosts ran at once");
    assert_ratios(&loaded, &[grpc_over_json(&merged["comparison"])]);
    let rows = cells(&loaded.dom, "table");
    for host in ["host-a", "host-b"] {
        assert!(rows.iter().any(|r| r.iter().any(|c| c.contains(host))), "{host}: {rows:?}");
    }
}

#[test]
fn etcd_and_grpc_run_pages_show_their_verdicts_and_rates() {
    let etcd = etcd_server::Etcd::start();
    let dir = tempfile::tempdir().unwrap();
    let etcd_args =
        ["etcd", "run", "--endpoints", &etcd.url, "--clients", "2", "--requests", "20", "--iterations", "3"];
    let mut grpc_args: Vec<String> = ["grpc", "run", "--grpc-endpoint", &etcd.url].map(String::from).into();
    grpc_args.extend(etcd_grpc::etcd_proto());
    grpc_args.extend(
        [
            "--method",
            "etcdserverpb.KV/Range",
            "--data",
            r#"{"key": "YQ=="}"#,
            "--clients",
            "2",
            "--requests",
            "20",
            "--iterations",
            "3",
        ]
        .map(String::from),
    );
    let grpc_args: Vec<&str> = grpc_args.iter().map(String::as_str).collect();
    for (name, args) in [("etcd.html", &etcd_args[..]), ("grpc.html", &grpc_args[..])] {
        let loaded = write_page(dir.path(), name, args);
        loaded.assert_clean();
        let report = carried(&loaded);
        assert_eq!((report["config"]["clients"].as_u64(), report["config"]["requests"].as_u64()), (Some(2), Some(20)));
        assert_ratios(&loaded, &[grpc_over_json(&report["comparison"])]);
        let column = if name == "etcd.html" { "Ops/s" } else { "Calls/s" };
        assert_rates(&loaded, column, &rates_of(&report, "ops_per_s"));
        let sentence = report["comparison"]["sentence"].as_str().unwrap();
        assert!(section(&loaded.dom, "verdict").contains(&pages::escape(sentence)), "{sentence}");
        assert_charts(&loaded);
    }
}

#[test]
fn a_console_error_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.html");
    let page = "<!DOCTYPE html><html><body><p>x</p><script>console.error('broken page')</script></body></html>";
    std::fs::write(&path, page).unwrap();
    let loaded = load(&path);
    assert!(loaded.console_errors().iter().any(|line| line.contains("broken page")), "{}", loaded.log);
    // An error thrown after the load.
    let late = "<!DOCTYPE html><html><body><script>setTimeout(() => { throw new Error('late failure') }, 50)</script></body></html>";
    std::fs::write(&path, late).unwrap();
    let loaded = load(&path);
    assert!(loaded.console_errors().iter().any(|line| line.contains("late failure")), "{}", loaded.log);
}
