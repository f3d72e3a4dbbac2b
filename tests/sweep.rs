//! `--sweep` on the real binary: a size x concurrency grid against the
//! emulator and a clients sweep against a real etcd, every point a full
//! paired comparison whose work is read back from the server; a bad sweep
//! is one sentence and exit 2; a Ctrl-C keeps the points that finished.
//! Every expected number is worked out here from the flags.

mod common;
mod etcd_server;
use common::*;
use etcd_server::Etcd;
use gcs_speed_tui::emulator::EmulatorOptions;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::Duration;

const ROUNDS: u64 = 3;

fn emulator_args(emulator: &gcs_speed_tui::emulator::Emulator) -> Vec<String> {
    let (json, grpc) = (emulator.json_url(), emulator.grpc_addr().to_string());
    ["run", "--bucket", BUCKET, "--endpoint", &json, "--grpc-endpoint", &grpc, "--warmup=false"]
        .map(String::from)
        .to_vec()
}

/// The point of `report` whose options are `wanted`.
fn point<'a>(report: &'a Value, wanted: &[(&str, &str)]) -> &'a Value {
    let points = report["points"].as_array().expect("points");
    points
        .iter()
        .find(|p| wanted.iter().all(|(option, value)| p["point"][option] == *value))
        .unwrap_or_else(|| panic!("no point {wanted:?} in {report}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_size_by_concurrency_grid_runs_each_point_as_a_full_comparison() {
    let emulator = emulator().await;
    let mut args = emulator_args(&emulator);
    args.extend(["--iterations", "3", "--cleanup=false", "--prefix", "sweep", "--format", "json"].map(String::from));
    args.extend(["--sweep", "size=256KiB,1MiB", "--sweep", "concurrency=1,2"].map(String::from));
    let output = tokio::task::spawn_blocking(move || run(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]))
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["sweep"]["options"], serde_json::json!(["size", "concurrency"]));
    assert_eq!((report["sweep"]["planned"].as_u64(), report["sweep"]["cancelled"].as_bool()), (Some(4), Some(false)));
    let mut ran: Vec<u64> = report["points"].as_array().unwrap().iter().map(|p| p["ran"].as_u64().unwrap()).collect();
    ran.sort_unstable();
    assert_eq!(ran, [1, 2, 3, 4], "each point ran once");
    assert_eq!(report["sweep"]["ran_in_order"].as_array().map(Vec::len), Some(4), "every point began");
    let (mut objects, mut bytes) = (0, 0);
    for (size_said, size) in [("256KiB", 256u64 << 10), ("1MiB", 1 << 20)] {
        for concurrency in [1u64, 2] {
            let c = concurrency.to_string();
            let report = &point(&report, &[("size", size_said), ("concurrency", &c)])["report"];
            assert_eq!(
                (report["config"]["object_size"].as_u64(), report["config"]["concurrency"].as_u64()),
                (Some(size), Some(concurrency))
            );
            // Three rounds per transport, each of `concurrency` objects of `size`.
            let rounds = report["rounds"].as_array().unwrap();
            assert_eq!(rounds.len() as u64, 2 * ROUNDS, "{size_said} x{c}");
            assert!(rounds.iter().all(|r| r["bytes"].as_u64() == Some(size * concurrency) && r["ok"] == true));
            assert_eq!(report["comparison"]["pairs"], 3, "a paired comparison of its own");
            objects += 2 * ROUNDS * concurrency;
            bytes += 2 * ROUNDS * concurrency * size;
        }
    }
    // Read back from the server: every object the points wrote, whole.
    let stored = emulator.store().list(BUCKET, "sweep").unwrap();
    assert_eq!(stored.len() as u64, objects, "{stderr}");
    assert_eq!(stored.iter().map(|o| o.size).sum::<u64>(), bytes);
    for run in 1..=4 {
        assert!(stderr.contains(&format!("point {run} of 4: size=")), "{stderr}");
    }
    // The saved sweep reads back as its points (for --open, compare and merge), each named by its point.
    let loaded = gcs_speed_tui::fleet::inputs::parse("sweep.json", &String::from_utf8_lossy(&output.stdout)).unwrap();
    assert_eq!(loaded.len(), 4);
    for point in &loaded {
        let config = point.report.config_json();
        let size = if point.name.contains("size=1MiB") { 1 << 20 } else { 256 << 10 };
        assert!(point.name.starts_with("sweep.json point size="), "{}", point.name);
        assert_eq!(config["object_size"], size, "{}", point.name);
    }
    let said = gcs_speed_tui::fleet::command::compare_loaded(&loaded[0], &loaded[1]).unwrap();
    assert!(said.text.contains("grpc"), "two points compare as two runs: {}", said.text);
}

/// A sweep of `option` as its JSON's points read back.
fn read_back(points: &[Value], option: &str) -> gcs_speed_tui::sweep::report::SweepReport {
    use gcs_speed_tui::finished::Finished;
    use gcs_speed_tui::sweep::report::{PointReport, SweepReport, SweepSaid};
    let said = SweepSaid {
        options: vec![option.into()],
        planned: points.len(),
        share_s: None,
        ran_in_order: vec![],
        cancelled: false,
    };
    let point = |p: &Value| {
        let values = [(option.to_string(), p["point"][option].as_str().unwrap().to_string())];
        let report = Finished::from_json(p["report"].clone()).unwrap();
        PointReport::of(values.into(), p["ran"].as_u64().unwrap() as usize, report)
    };
    SweepReport {
        report_version: gcs_speed_tui::engine::report::REPORT_VERSION,
        sweep: said,
        points: points.iter().map(point).collect(),
    }
}

/// The CSV has a row per point and transport, with the figures the table
/// shows: the rate, the point's one ratio, client CPU and connections. The
/// sweep's JSON is read back and written as CSV, so each row's ratio can be
/// checked against the rounds it came from.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_csv_has_a_row_per_point_and_transport() {
    let emulator = emulator().await;
    let mut args = emulator_args(&emulator);
    args.extend(
        ["--size", "1MiB", "--iterations", "3", "--format", "json", "--sweep", "concurrency=1,2"].map(String::from),
    );
    let output = tokio::task::spawn_blocking(move || run(&args.iter().map(String::as_str).collect::<Vec<_>>(), &[]))
        .await
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let points = json["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    let expected_ratio = |concurrency: &str| {
        let point = points.iter().find(|p| p["point"]["concurrency"] == concurrency).unwrap();
        paired_geomean(&point["report"]["rounds"])
    };
    let text = read_back(points, "concurrency").to_csv();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let names: Vec<&str> = header.split(',').collect();
    assert_eq!(
        names,
        [
            "concurrency",
            "ran",
            "row",
            "transport",
            "throughput_mib_per_s",
            "ratio_of",
            "ratio",
            "ratio_ci_low",
            "ratio_ci_high",
            "ratio_readable",
            "p50_ms",
            "p99_ms",
            "latency_from",
            "client_cpu_s_per_gib",
            "client_cpu_us_per_item",
            "connections"
        ]
    );
    let unique: std::collections::BTreeSet<&&str> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "each column named once");
    let column = |name: &str| names.iter().position(|n| *n == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4, "2 points x 2 transports: {text}");
    let number =
        |row: &[&str], name: &str| -> f64 { row[column(name)].parse().unwrap_or_else(|_| panic!("{name}: {text}")) };
    for concurrency in ["1", "2"] {
        let of_point: Vec<&Vec<&str>> = rows.iter().filter(|r| r[0] == concurrency).collect();
        let transports: std::collections::BTreeSet<&str> = of_point.iter().map(|r| r[3]).collect();
        assert_eq!(transports, ["grpc", "http-json"].into(), "{text}");
        let first = of_point[0];
        assert_eq!(first[column("ratio_of")], "rate");
        let (ratio, low, high) =
            (number(first, "ratio"), number(first, "ratio_ci_low"), number(first, "ratio_ci_high"));
        let expected = expected_ratio(concurrency);
        assert!((ratio / expected - 1.0).abs() < 1e-9, "{ratio} is not the rounds' {expected}: {text}");
        assert!(low <= ratio && ratio <= high, "the ratio is its interval's own estimate: {text}");
        for row in &of_point {
            assert!(number(row, "throughput_mib_per_s") > 0.0, "{text}");
            assert!(number(row, "client_cpu_s_per_gib") > 0.0, "client CPU per GiB, a number: {text}");
            assert!(number(row, "p99_ms") >= number(row, "p50_ms"), "{text}");
            assert_eq!(row[column("latency_from")], "request start");
            assert!(number(row, "connections") >= 1.0, "each transport opened a connection: {text}");
        }
    }
}

#[test]
fn a_clients_sweep_on_etcd_puts_what_each_point_says_and_cleans_up() {
    let etcd = Etcd::start();
    let status = |etcd: &Etcd| -> u64 {
        let status: Value = serde_json::from_str(&etcd.ctl_ok(&["endpoint", "status", "-w", "json"])).unwrap();
        status[0]["Status"]["header"]["revision"].as_u64().unwrap()
    };
    let before = status(&etcd);
    let args = ["etcd", "run", "--endpoints", &etcd.url, "--requests", "10", "--iterations", "3", "--warmup=false"];
    let sweep = ["--sequential-keys", "--key-space", "1000", "--sweep", "clients=1,3", "--format", "json"];
    let output = run(&[&args[..], &sweep].concat(), &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut revisions = 0;
    for clients in [1u64, 3] {
        let point = &point(&report, &[("clients", &clients.to_string())])["report"];
        assert_eq!(point["config"]["clients"], clients);
        let ops: u64 = point["transports"].as_array().unwrap().iter().map(|t| t["ops"].as_u64().unwrap()).sum();
        let puts = 2 * ROUNDS * clients * 10;
        assert_eq!(ops, puts, "{clients} clients x 10 requests x 3 rounds, both transports");
        assert_eq!(point["cleanup"]["deleted"], clients * 10, "the distinct keys of the point");
        assert_eq!(etcd.count(point["cleanup"]["prefix"].as_str().unwrap(), None), 0, "none left");
        // Each point's three clients put and delete a probe key, then its
        // puts, then one delete of its prefix.
        revisions += 3 * 2 + puts + 1;
    }
    assert_eq!(status(&etcd) - before, revisions, "etcd saw exactly the points' writes");
}

#[test]
fn a_bad_sweep_is_one_sentence_and_nothing_runs() {
    let cases: [(&[&str], &str); 6] = [
        (
            &[
                "run",
                "--sweep",
                "size=1MiB,2MiB",
                "--sweep",
                "concurrency=1,2",
                "--sweep",
                "checksum=crc32c,none",
                "--chart",
                "x.svg",
            ],
            "error: --chart draws a sweep of one or two options and this one has 3: sweep fewer, or leave --chart out",
        ),
        (
            &["run", "--sweep", "sise=1MiB,2MiB"],
            "error: --sweep 'sise=1MiB,2MiB': this run has no option 'sise'; sweep one of ",
        ),
        (&["run", "--sweep", "size=1MiB,huge"], "error: --sweep point size=huge: "),
        (&["run", "--sweep", "size=1MiB,2MiB", "--fail-if", "ratio < 1"], "error: --fail-if checks one run"),
        (
            &["run", "--rate", "300", "--sweep", "rate=100,200"],
            "error: --sweep rate: --rate 300 is given too: drop it, the sweep sets rate at each point",
        ),
        (
            &["etcd", "run", "--sweep", "size=1,2"],
            "error: --sweep 'size=1,2': this run has no option 'size'; sweep one of clients, requests",
        ),
    ];
    for (args, said) in cases {
        let output = run(args, &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.starts_with(said), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "one sentence: {stderr}");
        assert!(output.stdout.is_empty(), "no report");
    }
}

/// A target that never answers is one sentence and exit 2, as for one run:
/// no report of no points.
#[test]
fn an_unreachable_target_stops_the_sweep_before_any_report() {
    let output = run(&["etcd", "run", "--endpoints", "http://127.0.0.1:1", "--sweep", "clients=1,2"], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("error: point clients=") && stderr.contains("cannot reach etcd"), "{stderr}");
    assert!(output.stdout.is_empty(), "no report: {}", String::from_utf8_lossy(&output.stdout));
}

/// A Ctrl-C during the second of three points: that point stops and
/// cleans up, the first point's report is kept, the third never runs, and
/// nothing of any is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_keeps_the_points_that_finished() {
    let emulator = emulator_with(EmulatorOptions { bandwidth: Some(8 * MIB), ..EmulatorOptions::default() }).await;
    let mut child = Command::new(binary())
        .args(emulator_args(&emulator))
        .args(["--size", "1MiB", "--iterations", "3", "--format", "json", "--sweep", "concurrency=1,2,3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (seen, mut lines) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = seen.send(line);
        }
    });
    let mut said = Vec::new();
    while let Some(line) = tokio::time::timeout(Duration::from_secs(60), lines.recv()).await.unwrap() {
        said.push(line.clone());
        if line.starts_with("point 2 of 3") {
            break;
        }
    }
    // Under way: the second point's first round has begun.
    tokio::time::sleep(Duration::from_millis(300)).await;
    // SAFETY: sends a signal to a child we started and have not reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = tokio::task::spawn_blocking(move || child.wait_with_output()).await.unwrap().unwrap();
    while let Ok(line) = lines.try_recv() {
        said.push(line);
    }
    assert_eq!(output.status.code(), Some(130), "{said:?}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["sweep"]["cancelled"], true);
    let points = report["points"].as_array().unwrap();
    assert_eq!(points.len(), 1, "the first point, whole: {said:?}");
    assert_eq!(points[0]["ran"], 1);
    assert_eq!(points[0]["report"]["outcome"], "completed");
    let began = report["sweep"]["ran_in_order"].as_array().unwrap();
    assert_eq!(began.len(), 2, "the finished point and the cut one, not the third: {report}");
    assert_eq!(report["sweep"]["planned"], 3);
    assert_eq!(began[0], format!("concurrency={}", points[0]["point"]["concurrency"].as_str().unwrap()));
    assert_eq!(emulator.store().object_count(), 0, "both points cleaned up: {said:?}");
}
