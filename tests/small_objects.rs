//! Small objects are latency-bound: the report leads with objects/s and
//! per-object latency in ms or µs, judges the verdict on objects/s and says
//! so, gives CPU and wire bytes per object, and prints no figure rounded to
//! 0.00 as if it were measured.

mod common;
use serde_json::Value;

const ROUNDS: u64 = 5;
const CONCURRENCY: u64 = 4;

fn small(format: &str) -> String {
    let args = ["run", "--size", "1B", "--iterations", "5", "--concurrency", "4", "--format", format];
    let output = common::run(&args, &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn one_byte_objects_are_counted_not_weighed() {
    let table = small("table");
    let rows: Vec<&str> = table.lines().skip(1).take(2).collect();
    for row in &rows {
        assert!(row.trim_end().ends_with("objects/s       0"), "the rate is objects/s: {row}");
        assert!(row.contains(" µs") || row.contains(" ms"), "latencies in µs or ms: {row}");
    }
    let verdict = table.lines().nth(4).unwrap();
    assert!(verdict.contains(" objects/s"), "{verdict}");
    // Five complete pairs: whatever the verdict, it says which rate it judged.
    assert!(verdict.ends_with(" · judged on objects/s"), "{verdict}");
    for line in table.lines().filter(|l| l.starts_with("http-json: ") || l.starts_with("grpc: ")) {
        assert!(line.contains(" per object, client CPU ") && line.contains(" µs/object"), "{line}");
        assert!(!line.contains("s/GiB") && !line.contains("x payload"), "no per-byte figures for 1 B: {line}");
    }
    assert!(!table.contains("MiB/s"), "no byte rate anywhere: {table}");
    assert!(!table.contains("0.00 "), "nothing rounded to 0.00: {table}");
}

#[test]
fn per_object_figures_cover_the_objects_of_the_complete_rounds() {
    let report: Value = serde_json::from_str(&small("json")).unwrap();
    let objects = (ROUNDS * CONCURRENCY) as f64;
    assert_eq!(report["transports"].as_array().map(Vec::len), Some(2), "both transports' rows");
    for t in report["transports"].as_array().unwrap() {
        let name = t["transport"].as_str().unwrap();
        let rounds: Vec<&Value> =
            report["rounds"].as_array().unwrap().iter().filter(|r| r["transport"] == name).collect();
        assert_eq!(rounds.len() as u64, ROUNDS);
        let cpu: f64 = rounds.iter().map(|r| r["cpu_s"].as_f64().unwrap()).sum();
        let wire: u64 = rounds.iter().map(|r| r["wire_bytes"].as_u64().unwrap()).sum();
        let time: f64 = rounds.iter().map(|r| r["elapsed_s"].as_f64().unwrap()).sum();
        let close = |a: f64, b: f64| (a - b).abs() <= b.abs() * 1e-9;
        assert!(close(t["cpu_us_per_object"].as_f64().unwrap(), cpu * 1e6 / objects), "{t}");
        assert!(close(t["wire_bytes_per_object"].as_f64().unwrap(), wire as f64 / objects), "{t}");
        assert!(close(t["objects_per_s"].as_f64().unwrap(), objects / time), "{t}");
        assert!(t["wire_bytes_per_object"].as_f64().unwrap() > 1.0, "a request costs more than its 1 B payload");
    }
}
