//! The w1r3 workload end to end, through the binary and its built-in
//! emulator: each round writes its objects and reads each three times, and
//! the report has an upload row and a download row per transport, each with
//! its own verdict, over the same work.

mod common;

use serde_json::Value;

const W1R3: &[&str] = &["run", "--workload", "w1r3", "--size", "1MiB", "--concurrency", "2", "--iterations", "3"];

fn json(extra: &[&str]) -> (std::process::Output, Value) {
    let output = common::run(&[W1R3, &["--format", "json"], extra].concat(), &[]);
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&output.stderr));
    });
    (output, report)
}

fn of<'a>(items: &'a Value, operation: &str) -> Vec<&'a Value> {
    items.as_array().unwrap().iter().filter(|i| i["operation"] == operation).collect()
}

#[test]
fn each_round_writes_then_reads_three_times_with_a_row_and_a_verdict_each() {
    for (range, per_read) in [("0", 1u64 << 20), ("256KiB", 256 << 10)] {
        let (output, report) = json(&["--range-size", range]);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert_eq!((&report["workload"], &report["outcome"]), (&"w1r3".into(), &"completed".into()));
        let rows: Vec<(&str, &str)> = report["transports"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["transport"].as_str().unwrap(), t["operation"].as_str().unwrap()))
            .collect();
        assert_eq!(
            rows,
            [("http-json", "upload"), ("grpc", "upload"), ("http-json", "download"), ("grpc", "download")]
        );
        for t in of(&report["transports"], "upload") {
            assert_eq!((t["runs"].as_u64(), t["bytes_per_run"].as_u64()), (Some(3), Some(2 << 20)), "{t}");
            // 1 MiB objects under 16 MiB chunks: one request each, no session to time.
            assert!(t["first_byte_p50_s"].is_null() && t["session_median_s"].is_null(), "{t}");
            assert!(t["transfer_median_s"].is_number() && t["finalize_median_s"].is_number(), "{t}");
        }
        for t in of(&report["transports"], "download") {
            // Two objects read three times each.
            assert_eq!((t["runs"].as_u64(), t["bytes_per_run"].as_u64()), (Some(3), Some(6 * per_read)), "{t}");
            assert!(t["first_byte_p50_s"].is_number() && t["session_median_s"].is_null(), "{t}");
            assert_eq!(t["objects"].as_u64(), Some(18), "3 rounds x 2 objects x 3 reads: {t}");
        }
        for round in of(&report["rounds"], "download") {
            assert_eq!(round["bytes"].as_u64(), Some(6 * per_read), "{round}");
        }
        assert_eq!(of(&report["samples"], "upload").len(), 12);
        assert_eq!(of(&report["samples"], "download").len(), 36);
        // Each transport reads the objects it wrote in that round.
        for read in of(&report["samples"], "download") {
            let round = read["round"].as_u64().unwrap();
            let transport = read["transport"].as_str().unwrap();
            assert!(
                of(&report["samples"], "upload").iter().any(|w| w["object"] == read["object"]
                    && w["round"].as_u64() == Some(round)
                    && w["transport"] == transport),
                "{read}"
            );
        }
        let verdicts: Vec<(&str, u64)> = report["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| (v["operation"].as_str().unwrap(), v["pairs"].as_u64().unwrap()))
            .collect();
        assert_eq!(verdicts, [("upload", 3), ("download", 3)]);
        // A caution on the clients' cost follows the uploads' verdict
        // exactly when its premises hold in the rows (docs/results.md).
        assert_eq!(
            report["verdicts"][0]["caveat"].as_str().is_some_and(|c| c.contains("'s client took")),
            clients_cost_premises(&report),
            "{}",
            report["verdicts"][0]
        );
        // The top-level comparison is the first verdict's, without the
        // verdict's own operation and caution.
        assert_eq!(report["comparison"], {
            let mut first = report["verdicts"][0].clone();
            first.as_object_mut().unwrap().remove("operation");
            first.as_object_mut().unwrap().remove("caveat");
            first
        });
        // Every object written is deleted: 3 rounds x 2 objects x 2 transports.
        assert_eq!(report["cleanup"]["deleted"].as_u64(), Some(12));
        assert_eq!(report["cleanup"]["left"].as_array().unwrap().len(), 0);
    }
}

#[test]
fn the_table_and_csv_say_which_rows_are_uploads_and_which_reads() {
    let table = common::run(W1R3, &[]);
    assert!(table.status.success(), "{}", String::from_utf8_lossy(&table.stderr));
    let text = String::from_utf8_lossy(&table.stdout);
    for row in ["http-json upload ", "grpc upload ", "http-json download ", "grpc download "] {
        assert!(text.lines().any(|l| l.starts_with(row)), "{row:?} in\n{text}");
    }
    let verdicts: Vec<&str> =
        text.lines().filter(|l| l.starts_with("uploads: ") || l.starts_with("downloads: ")).collect();
    assert_eq!(verdicts.len(), 2, "a verdict line for each operation:\n{text}");
    assert!(text.contains("then reads each 3 times over the same transport"), "{text}");
    let progress = String::from_utf8_lossy(&table.stderr);
    assert!(
        progress.contains("http-json round 1/3 upload: ") && progress.contains("grpc round 3/3 reads: "),
        "{progress}"
    );

    let csv = common::run(&[W1R3, &["--format", "csv"]].concat(), &[]);
    let text = String::from_utf8_lossy(&csv.stdout);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (operation, objects) = (column("operation"), column("objects"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // A row per round, transport and operation: 3 rounds of 2 transports.
    assert_eq!(rows.iter().filter(|r| r[operation] == "upload").count(), 6, "{text}");
    assert_eq!(rows.iter().filter(|r| r[operation] == "download").count(), 6, "{text}");
    let items = |op: &str| -> u64 {
        rows.iter().filter(|r| r[operation] == op).map(|r| r[objects].parse::<u64>().unwrap()).sum()
    };
    // 2 uploads a round, each read 3 times.
    assert_eq!((items("upload"), items("download")), (12, 36), "{text}");
}

#[test]
fn a_round_whose_uploads_fail_reads_nothing_and_no_read_is_counted() {
    let (output, report) = json(&["--warmup=false", "--emulator-fault", "return-403"]);
    assert_eq!(output.status.code(), Some(1), "failed uploads fail the run");
    assert_eq!(report["outcome"], "completed_with_errors");
    assert!(of(&report["rounds"], "download").is_empty(), "nothing was written whole, so nothing was read");
    assert!(of(&report["samples"], "download").is_empty());
    for t in of(&report["transports"], "download") {
        assert_eq!(t["runs"].as_u64(), Some(0), "{t}");
        for figure in ["throughput_mib_s", "per_object_mib_s", "cpu_s_per_gib", "wire_ratio", "first_byte_p50_s"] {
            assert!(t[figure].is_null(), "{figure} of no reads is not a number: {t}");
        }
    }
    let verdicts = report["verdicts"].as_array().unwrap();
    assert_eq!(verdicts.len(), 2);
    assert!(verdicts.iter().all(|v| v["faster"].is_null()), "no winner from no complete round");
}

/// The uploads' rows as docs/results.md states the caution's rule: one
/// client took at least 1.25x the other's CPU per GiB, and in its rounds
/// the CPU available to the tool was at least 85% busy, or its own threads
/// kept at least 85% of the cores its concurrency can use busy.
fn clients_cost_premises(report: &serde_json::Value) -> bool {
    let uploads: Vec<&serde_json::Value> =
        report["transports"].as_array().unwrap().iter().filter(|t| t["operation"] == "upload").collect();
    let per_gib = |t: &serde_json::Value| t["cpu_s_per_gib"].as_f64().unwrap();
    let [a, b] = uploads[..] else { panic!("two upload rows: {uploads:?}") };
    let (costly, cheap) = if per_gib(a) >= per_gib(b) { (a, b) } else { (b, a) };
    let lanes = report["config"]["concurrency"].as_f64().unwrap().min(report["environment"]["cpus"].as_f64().unwrap());
    let rounds_s = costly["mean_s"].as_f64().unwrap() * costly["runs"].as_f64().unwrap();
    let cores = costly["cpu_s"].as_f64().unwrap() / rounds_s;
    per_gib(costly) >= 1.25 * per_gib(cheap)
        && (costly["host_cpu_busy"].as_f64().unwrap() >= 0.85 || cores >= 0.85 * lanes)
}
