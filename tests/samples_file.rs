//! The report stays a report (a CSV row per round and transport) and
//! `--samples FILE` holds every object, one row each, whatever the run's length.

mod common;

use common::run;

const SMALL: &[&str] = &["run", "--size", "512KiB", "--iterations", "2", "--warmup-size", "256KiB"];

#[test]
fn csv_goes_to_the_output_file_and_every_object_to_the_samples_file() {
    let dir = tempfile::tempdir().unwrap();
    let (path, samples) = (dir.path().join("report.csv"), dir.path().join("objects.csv"));
    let files = ["--format", "csv", "--output", path.to_str().unwrap(), "--samples", samples.to_str().unwrap()];
    let output = run(&[SMALL, &files].concat(), &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stdout.is_empty(), "the report went to the file");
    let csv = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "host,transport,operation,round,elapsed_s,bytes,ok,objects,failed,p50_s,p90_s,p99_s,mib_s,cpu_s,wire_bytes,retries,resumes,run_id,target"
    );
    // SMALL: 2 rounds of 1 upload of 512 KiB per transport: a row per round.
    assert_eq!(lines.len(), 1 + 2 * 2, "{csv}");
    let (mut run_ids, mut lanes) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    for row in &lines[1..] {
        let cells: Vec<&str> = row.split(',').collect();
        assert_eq!((cells[5], cells[6], cells[7], cells[8]), ("524288", "true", "1", "0"), "{row}");
        assert_eq!(cells[18], "emulator", "{row}");
        run_ids.insert(cells[17].to_string());
        lanes.insert((cells[1].to_string(), cells[3].to_string()));
    }
    let expected: std::collections::BTreeSet<(String, String)> =
        [("http-json", "1"), ("http-json", "2"), ("grpc", "1"), ("grpc", "2")]
            .map(|(t, r)| (t.into(), r.into()))
            .into();
    assert_eq!(lanes, expected, "a row per transport and round");
    assert_eq!(run_ids.len(), 1, "one run: {run_ids:?}");
    let run_id = run_ids.into_iter().next().unwrap();
    assert!(!run_id.is_empty());
    // The samples file: a header and a row per object, each named under the run.
    let objects = std::fs::read_to_string(&samples).unwrap();
    let rows: Vec<&str> = objects.lines().collect();
    assert!(rows[0].starts_with("host,transport,operation,round,worker,object,bytes,"), "{objects}");
    assert_eq!(rows.len(), 1 + 4, "{objects}");
    let names: std::collections::BTreeSet<&str> = rows[1..].iter().map(|r| r.split(',').nth(5).unwrap()).collect();
    assert_eq!(names.len(), 4, "four objects, each its own: {objects}");
    for row in &rows[1..] {
        let cells: Vec<&str> = row.split(',').collect();
        assert!(cells[5].starts_with(&format!("gcs-speed-tui/{run_id}/")), "the default prefix, then the run: {row}");
        assert_eq!((cells[6], cells[10]), ("524288", "true"), "{row}");
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&format!("samples: 4 objects written to {}", samples.display())), "{stderr}");
}
