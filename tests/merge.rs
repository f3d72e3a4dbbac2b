//! Merging reports: three hosts with known rounds and latencies (skewed
//! starts, one host late) give exactly the window, throughput and
//! percentiles worked out by hand; a merge of merges equals the merge of
//! all; configurations that differ are refused, naming the options.

mod common;

use common::synthetic::host;
use gcs_speed_tui::config::TransportKind::{Grpc, Json};
use gcs_speed_tui::engine::timeline::Span;
use gcs_speed_tui::finished::Finished;
use gcs_speed_tui::fleet::command::{compare_loaded, merge_loaded};
use gcs_speed_tui::fleet::inputs::{Loaded, parse};
use gcs_speed_tui::gcs::report::RunReport;

/// Hosts a (from 0 s), b (0.75 s: skewed) and c (3 s: late); each runs 6 s.
fn three() -> [RunReport; 3] {
    [
        host("a", 0.0, &[100; 4], 100, 0.010, "1MiB"),
        host("b", 0.75, &[100, 200, 300, 400], 200, 0.020, "1MiB"),
        host("c", 3.0, &[50; 4], 50, 0.040, "1MiB"),
    ]
}

fn loaded(name: &str, report: &RunReport) -> Loaded {
    Loaded { name: name.into(), report: Finished::from(report.clone()), point: None }
}

fn merged(reports: &[(&str, &RunReport)]) -> RunReport {
    let loaded: Vec<Loaded> = reports.iter().map(|(name, r)| loaded(name, r)).collect();
    merge_loaded(&loaded).unwrap().downcast().expect("GCS reports merge into a GCS report")
}

#[test]
fn three_hosts_merge_to_the_window_throughput_and_percentiles_worked_out_by_hand() {
    let [a, b, c] = three();
    let fleet_report = merged(&[("a.json", &a), ("b.json", &b), ("c.json", &c)]);
    let fleet = fleet_report.fleet.as_ref().unwrap();
    let window = fleet.window.as_ref().unwrap();
    // a runs 0-6 s, b 0.75-6.75 s, c 3-9 s: every host is at work from 3 s
    // (c's start) to 6 s (a's end).
    assert_eq!(
        (window.started_at.as_str(), window.ended_at.as_str()),
        ("2026-12-01T18:30:03.000000Z", "2026-12-01T18:30:06.000000Z")
    );
    assert_eq!((window.seconds, window.trimmed_start_s, window.trimmed_end_s), (3.0, 3.0, 3.0));
    assert_eq!((window.last_to_start.as_str(), window.first_to_end.as_str()), ("c", "a"));
    // In the window, JSON: a's rounds 3 and 4 (200 MiB in 2 s: 100 MiB/s);
    // b's round 2 for its last 0.25 s (50 of 200 MiB), round 3 whole
    // (300 MiB), round 4 for its first 0.75 s (300 of 400 MiB): 650 MiB in
    // 2 s, 325 MiB/s; c's rounds 1 and 2 (100 MiB in 2 s: 50 MiB/s).
    // gRPC: a 200 MiB/s (rounds 3, 4), b 400 MiB/s (rounds 2, 3), c 100 MiB/s.
    let rate = |kind| fleet_report.transports.iter().find(|t| t.transport == kind).unwrap().throughput_mib_s.unwrap();
    assert!((rate(Json) - 475.0).abs() < 1e-9, "{}", rate(Json));
    assert!((rate(Grpc) - 700.0).abs() < 1e-9, "{}", rate(Grpc));
    let b_json = &fleet.rows[0].hosts[1];
    assert_eq!(b_json.host, "b");
    assert!((b_json.amount - 650.0).abs() < 1e-9 && (b_json.seconds - 2.0).abs() < 1e-9, "{b_json:?}");
    // Latencies: 4 objects of 10 ms (a), 4 of 20 ms (b), 4 of 40 ms (c) per
    // transport. The 6th of 12 is 20 ms, the 12th 40 ms; HDR's 3 digits keep
    // 20,000 µs in the bucket [20000, 20015] and 40,000 µs in [40000, 40031],
    // whose top is above every latency recorded: a percentile is cut to the
    // slowest (40 ms), so p99 never exceeds the max.
    let json = &fleet_report.transports[0];
    assert_eq!((json.p50_s, json.p90_s, json.p99_s), (Some(0.020015), Some(0.040), Some(0.040)));
    let all: Vec<f64> = [0.010, 0.020, 0.040].iter().flat_map(|&s| [s; 4]).collect();
    let direct = gcs_speed_tui::gcs::stats::latency_histogram(&all);
    let merged = gcs_speed_tui::engine::histogram::decode(json.latency_histogram.as_deref().unwrap()).unwrap();
    assert_eq!(merged, direct, "the hosts' histograms added: every object counted once, in its bucket");
    // Rounds and errors are summed; the verdict pairs the fleet's rounds.
    assert_eq!((json.runs, json.objects, json.errors), (12, 12, 0));
    let verdict = fleet_report.comparison.as_ref().unwrap();
    assert_eq!((verdict.faster, verdict.pairs, verdict.pairs_attempted), (Some(Grpc), 4, 4));
    // Its estimate: the geometric mean of the fleet's paired rounds, each the
    // sum of the hosts' rates in it. JSON round k: a 100 + b (100, 200, 300,
    // 400) + c 50 MiB in 1 s; gRPC: (a 100 + b 200 + c 50) MiB in 0.5 s = 700.
    let json_rounds = [250.0f64, 350.0, 450.0, 550.0];
    let logs: Vec<f64> = json_rounds.iter().map(|j| (700.0 / j).ln()).collect();
    let mean = logs.iter().sum::<f64>() / 4.0;
    let percent = |log: f64| (log.exp() - 1.0) * 100.0;
    assert!((verdict.percent.unwrap() - percent(mean)).abs() < 1e-9, "{:?}", verdict.percent);
    // Its interval: mean ± t(3) 3.182 x sd / √4 of the same logs.
    let half = 3.182 * (logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / 3.0).sqrt() / 2.0;
    assert!((verdict.ci_low.unwrap() - percent(mean - half)).abs() < 1e-9, "{:?}", verdict.ci_low);
    assert!((verdict.ci_high.unwrap() - percent(mean + half)).abs() < 1e-9, "{:?}", verdict.ci_high);
    assert!(verdict.significant && percent(mean - half) > 0.0);
    // The window's rates stay beside it, said as pooled.
    assert!(
        fleet_report.summary_line().contains("pooled rates 700.00 vs 475.00 MiB/s"),
        "{}",
        fleet_report.summary_line()
    );
    // Each host keeps its own figures, and its rounds and samples say whose they are.
    assert_eq!(fleet_report.hosts.iter().map(|h| h.host.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
    assert_eq!(fleet_report.rounds.iter().filter(|r| r.span.host == "b").count(), 8);
    assert_eq!(fleet_report.samples.iter().filter(|s| s.host == "c").count(), 8);
    let table = fleet_report.to_table();
    for expected in
        ["a http-json", "c grpc", "fleet http-json", "fleet grpc", "475.00 MiB/s", "= a 100.00 + b 325.00 + c 50.00"]
    {
        assert!(table.contains(expected), "{expected} in\n{table}");
    }
}

#[test]
fn a_merge_of_merges_is_the_merge_of_all() {
    let [a, b, c] = three();
    let all = merged(&[("a", &a), ("b", &b), ("c", &c)]);
    let ab = merged(&[("a", &a), ("b", &b)]);
    let bc = merged(&[("c", &c), ("b", &b)]);
    assert_eq!(merged(&[("ab", &ab), ("c", &c)]).to_json(), all.to_json());
    assert_eq!(merged(&[("a", &a), ("bc", &bc)]).to_json(), all.to_json());
    // Through JSON too, as files go.
    let reread: Vec<Loaded> =
        [ab.to_json(), c.to_json()].iter().flat_map(|text| parse("file", text).unwrap()).collect();
    let again: RunReport = merge_loaded(&reread).unwrap().downcast().unwrap();
    assert_eq!(again.to_json(), all.to_json());
    let reread = serde_json::from_str::<RunReport>(&all.to_json()).unwrap();
    assert!(reread.to_json() == all.to_json(), "a merged report reads back whole");
}

#[test]
fn differing_configurations_a_repeated_run_and_a_repeated_host_are_refused() {
    let [a, b, _] = three();
    let bigger = host("c", 3.0, &[50; 4], 50, 0.040, "2MiB");
    let refused = merge_loaded(&[loaded("a.json", &a), loaded("b.json", &b), loaded("c.json", &bigger)]).unwrap_err();
    assert_eq!(
        refused,
        "cannot merge runs configured differently: --size (a.json 1MiB, c.json 2MiB); merge the reports of one configuration"
    );
    let twice = merge_loaded(&[loaded("a.json", &a), loaded("again.json", &a)]).unwrap_err();
    assert_eq!(twice, "a.json and again.json hold the same run (run-a): give each report once");
    let renamed = RunReport { run_id: "run-other".into(), ..b.clone() }.host_label("a".into());
    let same_host = merge_loaded(&[loaded("a.json", &a), loaded("b.json", &renamed)]).unwrap_err();
    assert!(same_host.starts_with("a.json and b.json both come from host 'a': give each host its own --host-label"));
    let mut old = a.clone();
    old.rounds.iter_mut().for_each(|r| r.span = Span::default());
    let untimed = merge_loaded(&[loaded("old.json", &old), loaded("b.json", &b)]).unwrap_err();
    assert_eq!(
        untimed,
        "old.json has rounds without times (written by an older version): run it again with this version to merge it"
    );
    let mut corrupt = b.clone();
    corrupt.transports[0].latency_histogram = Some("bm90IGEgaGlzdG9ncmFt".into());
    let refused = merge_loaded(&[loaded("a.json", &a), loaded("b.json", &corrupt)]).unwrap_err();
    assert!(refused.starts_with("b.json has a latency_histogram that is not an HdrHistogram"), "{refused}");
    assert!(parse("x.json", "{\"tool\": 1}").unwrap_err().starts_with("x.json is not a gcs-speed-tui report ("));
    assert!(parse("x.json", "not json").unwrap_err().starts_with("x.json is not JSON ("));
}

#[test]
fn runs_that_never_overlapped_have_no_fleet_throughput_and_say_why() {
    let early = host("a", 0.0, &[100; 4], 100, 0.010, "1MiB");
    let later = host("b", 8.5, &[100; 4], 100, 0.010, "1MiB");
    let report = merged(&[("a", &early), ("b", &later)]);
    let fleet = report.fleet.as_ref().unwrap();
    assert_eq!(fleet.window, None);
    assert_eq!(
        fleet.apart.as_deref(),
        Some(
            "the runs did not overlap: b began 2.500 s after a had ended, so no fleet throughput (the hosts never ran at once)"
        )
    );
    assert!(report.transports.iter().all(|t| t.throughput_mib_s.is_none()), "nothing unmeasured is a number");
    // Every latency is 10 ms: the median is 10 ms, not its bucket's top.
    assert_eq!((report.comparison.as_ref(), report.transports[0].p50_s), (None, Some(0.010)));
    assert!(report.to_table().contains("fleet http-json: no throughput without a common window"));
}

#[test]
fn a_transport_whose_rounds_all_fall_outside_the_window_is_said_to_have_none_inside_it() {
    // a: JSON 0-1 s, gRPC 1-1.5 s; b: JSON 0.9-1.9 s, gRPC 1.9-2.4 s. The
    // common window is 0.9-1.5 s (b's start to a's end): b's gRPC round
    // lies after it, though b completed it.
    let a = host("a", 0.0, &[100], 100, 0.010, "1MiB");
    let b = host("b", 0.9, &[100], 100, 0.010, "1MiB");
    let report = merged(&[("a", &a), ("b", &b)]);
    let window = report.fleet.as_ref().unwrap().window.as_ref().unwrap();
    assert_eq!(
        (window.started_at.as_str(), window.ended_at.as_str()),
        ("2026-12-01T18:30:00.900000Z", "2026-12-01T18:30:01.500000Z")
    );
    // JSON in the window: a's 0.9-1 s and b's 0.9-1.5 s of 100 MiB/s rounds,
    // 10 + 60 MiB in 0.6 s: 100 MiB/s each, 200 for the fleet.
    let rate = |kind| report.transports.iter().find(|t| t.transport == kind).unwrap().throughput_mib_s;
    assert!(rate(Json).is_some_and(|r| (r - 200.0).abs() < 1e-9) && rate(Grpc).is_none(), "{:?}", rate(Json));
    let table = report.to_table();
    assert!(table.contains("fleet grpc: no throughput: b completed no round inside the window"), "{table}");
    assert!(
        table.contains(
            "no verdict (http-json 200.00 MiB/s, grpc no rate): grpc: a host completed no round inside the fleet's common window"
        ),
        "{table}"
    );
}

#[test]
fn logs_with_markers_read_as_reports_and_compare_says_what_changed() {
    let [a, b, _] = three();
    let log = format!(
        "starting at ...\n{}\n{}\n{}\nround 1/4 ...\n",
        gcs_speed_tui::engine::start::REPORT_BEGINS,
        a.to_json(),
        gcs_speed_tui::engine::start::REPORT_ENDS
    );
    let read = parse("pod-a.log", &log).unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].report.run_id(), "run-a");
    let said = compare_loaded(&loaded("a.json", &a), &loaded("b.json", &b)).unwrap();
    assert!(said.text.contains("http-json"), "{}", said.text);
    assert!(said.text.contains("same options"), "{}", said.text);
    let bigger = host("c", 3.0, &[50; 4], 50, 0.040, "2MiB");
    let differ = compare_loaded(&loaded("a.json", &a), &loaded("c.json", &bigger)).unwrap();
    assert!(differ.text.contains("options that differ: --size (a.json 1MiB, c.json 2MiB)"), "{}", differ.text);
}

#[test]
fn bad_input_to_merge_and_compare_is_one_sentence_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.json");
    std::fs::write(&text, "hello").unwrap();
    let cases: [(&[&str], &str); 5] = [
        (&["merge"], "error: `merge` needs <FILE|DIR|->...: see `gcs-speed-tui merge --help`"),
        (&["compare", "a.json"], "error: `compare` needs <OTHER.json>: see `gcs-speed-tui compare --help`"),
        (&["merge", "/no/such.json"], "error: cannot read /no/such.json: No such file or directory (os error 2)"),
        (
            &["merge", "/proc/self"],
            "error: /proc/self has no .json files: give report files, a directory of them or - for stdin",
        ),
        (
            &["merge", text.to_str().unwrap()],
            "is not JSON (expected value at line 1 column 1): give reports written by run --format json",
        ),
    ];
    for (args, said) in cases {
        let output = common::run(args, &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: one sentence: {stderr}");
        assert!(stderr.trim_end().ends_with(said), "{args:?}: {stderr}");
    }
}

#[test]
fn reports_piped_to_stdin_merge_like_files() {
    let [a, b, c] = three();
    let mut child = std::process::Command::new(common::binary())
        .args(["merge", "-", "--format", "json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Three reports one after another, as `kubectl logs` of several pods gives them.
    let piped = format!("{}\n{}\n{}", a.to_json(), b.to_json(), c.to_json());
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), piped.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let from_stdin: RunReport = serde_json::from_slice(&output.stdout).unwrap();
    let from_files = merged(&[("a", &a), ("b", &b), ("c", &c)]);
    assert_eq!(from_stdin.to_json(), from_files.to_json());
}
