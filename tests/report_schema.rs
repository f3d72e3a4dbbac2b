//! The JSON report's schema, made from the report types by schemars, is
//! checked into docs/schema/ (one file per kind of report) and kept in step
//! here: a field added, renamed or retyped fails this test until the files
//! are written again (`REGENERATE_SCHEMA=1 cargo nextest run --test
//! report_schema`). Reports written by the binary today (a GCS run, a
//! sweep, a fleet merge, an etcd run, a `grpc run`) conform to their
//! schema, every field they hold named in it; a report with a field the
//! schema lacks, or a number where it says text, is caught.

mod common;
mod etcd_grpc;
mod etcd_server;

use common::run;
use serde_json::Value;
use std::path::PathBuf;

fn schema_of<T: schemars::JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().for_serialize().into_generator();
    serde_json::to_value(generator.into_root_schema_for::<T>()).unwrap()
}

/// Each kind of report, by the name of its schema file.
fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("gcs-run", schema_of::<gcs_speed_tui::gcs::report::RunReport>()),
        ("etcd-run", schema_of::<gcs_speed_tui::etcd::report::EtcdReport>()),
        ("grpc-run", schema_of::<gcs_speed_tui::grpc_service::report::GrpcReport>()),
        ("sweep", schema_of::<gcs_speed_tui::sweep::report::SweepReport>()),
    ]
}

fn schema_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/schema").join(format!("{name}.schema.json"))
}

#[test]
fn the_checked_in_schemas_are_the_report_types() {
    let regenerate = std::env::var_os("REGENERATE_SCHEMA").is_some();
    for (name, schema) in schemas() {
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        let path = schema_path(name);
        if regenerate {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == text,
            "{} is not the schema of today's report types: REGENERATE_SCHEMA=1 cargo nextest run --test report_schema",
            path.display()
        );
    }
}

/// Where `value` breaks `schema` (whose `$defs` are in `root`), each said
/// with its JSON path; empty when it conforms.
fn breaks(value: &Value, schema: &Value, root: &Value, at: &str) -> Vec<String> {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.trim_start_matches("#/$defs/");
        return breaks(value, &root["$defs"][name], root, at);
    }
    for choices in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(choices).and_then(Value::as_array) {
            if options.iter().any(|option| breaks(value, option, root, at).is_empty()) {
                return vec![];
            }
            return vec![format!("{at}: {value} fits none of its {choices}")];
        }
    }
    let mut found = Vec::new();
    if let Some(kind) = schema.get("type") {
        let kinds: Vec<&str> = match kind {
            Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).collect(),
            other => vec![other.as_str().unwrap_or_default()],
        };
        if !kinds.iter().any(|k| is_a(value, k)) {
            return vec![format!("{at}: {value} is not {kinds:?}")];
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array).filter(|a| !a.contains(value)) {
        found.push(format!("{at}: {value} is not one of {allowed:?}"));
    }
    if let Some(constant) = schema.get("const").filter(|c| *c != value) {
        found.push(format!("{at}: {value} is not {constant}"));
    }
    if let (Some(object), Some(properties)) = (value.as_object(), schema.get("properties").and_then(Value::as_object)) {
        for (key, field) in object {
            match properties.get(key) {
                Some(property) => found.extend(breaks(field, property, root, &format!("{at}.{key}"))),
                None if schema.get("additionalProperties").is_some_and(|a| a != false) => {}
                None => found.push(format!("{at}.{key}: not in the schema")),
            }
        }
        for key in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
            if !object.contains_key(key.as_str().unwrap()) {
                found.push(format!("{at}: lacks {key}, which the schema requires"));
            }
        }
    }
    if let Some(items) = value.as_array() {
        let tuple = schema.get("prefixItems").and_then(Value::as_array);
        for (i, item) in items.iter().enumerate() {
            let each = tuple.and_then(|t| t.get(i)).or(schema.get("items"));
            if let Some(each) = each.filter(|e| e.is_object()) {
                found.extend(breaks(item, each, root, &format!("{at}[{i}]")));
            }
        }
    }
    found
}

fn is_a(value: &Value, kind: &str) -> bool {
    match kind {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_u64() || value.is_i64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    }
}

fn assert_conforms(report: &Value, schema_name: &str) {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(schema_path(schema_name)).unwrap()).unwrap();
    let found = breaks(report, &schema, &schema, "$");
    assert!(found.is_empty(), "{schema_name}: {} breaks:\n{}", found.len(), found.join("\n"));
    assert_eq!(report["report_version"], 2, "{schema_name}");
}

fn json_of(args: &[&str]) -> Value {
    let output = run(&[args, &["--format", "json"]].concat(), &[]);
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn gcs_runs_sweeps_and_merges_conform_to_their_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let mut hosts = Vec::new();
    for (host, workload) in [("a", "upload"), ("b", "upload")] {
        let report = json_of(&[
            "run",
            "--emulator",
            "--size",
            "64KiB",
            "--iterations",
            "3",
            "--workload",
            workload,
            "--host-label",
            host,
        ]);
        assert_conforms(&report, "gcs-run");
        let path = dir.path().join(format!("{host}.json"));
        std::fs::write(&path, report.to_string()).unwrap();
        hosts.push(path.to_str().unwrap().to_string());
    }
    let workloads = [
        &["--workload", "w1r3", "--size", "64KiB"][..],
        &["--workload", "ranges", "--size", "256KiB", "--range-size", "4KiB"],
        &["--workload", "append", "--size", "1MiB", "--append-size", "256KiB"],
    ];
    for workload in workloads {
        assert_conforms(&json_of(&[&["run", "--emulator", "--iterations", "3"][..], workload].concat()), "gcs-run");
    }
    assert_conforms(&json_of(&["run", "--emulator", "--size", "1KiB", "--rate", "200", "--duration", "1s"]), "gcs-run");
    assert_conforms(&json_of(&["merge", &hosts[0], &hosts[1]]), "gcs-run");
    let sweep = json_of(&["run", "--emulator", "--size", "64KiB", "--iterations", "3", "--sweep", "concurrency=1,2"]);
    assert_conforms(&sweep, "sweep");
    assert_eq!(sweep["points"].as_array().map(Vec::len), Some(2));
    for point in sweep["points"].as_array().unwrap() {
        assert_conforms(&point["report"], "gcs-run");
    }
}

#[test]
fn etcd_and_grpc_runs_conform_to_their_schemas() {
    let etcd = etcd_server::Etcd::start();
    assert_conforms(
        &json_of(&["etcd", "run", "--endpoints", &etcd.url, "--clients", "2", "--requests", "10", "--iterations", "3"]),
        "etcd-run",
    );
    let (output, report) = etcd_grpc::grpc_run(
        &etcd,
        &["--method", "etcdserverpb.KV/Range", "--data", r#"{"key": "YQ=="}"#, "--requests", "10", "--iterations", "3"],
    );
    assert!(output.status.success(), "{}", etcd_grpc::stderr(&output));
    assert_conforms(&report, "grpc-run");
}

#[test]
fn a_field_the_schema_lacks_or_a_wrong_type_is_caught() {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(schema_path("gcs-run")).unwrap()).unwrap();
    let report = json_of(&["run", "--emulator", "--size", "4KiB", "--iterations", "1"]);
    assert!(breaks(&report, &schema, &schema, "$").is_empty());
    let mut extra = report.clone();
    extra["environment"]["gpu"] = Value::from("none");
    assert_eq!(breaks(&extra, &schema, &schema, "$"), vec!["$.environment.gpu: not in the schema".to_string()]);
    let mut retyped = report;
    retyped["environment"]["cpus"] = Value::from("two");
    let found = breaks(&retyped, &schema, &schema, "$");
    assert!(found.len() == 1 && found[0].starts_with("$.environment.cpus: \"two\" is not"), "{found:?}");
}

#[test]
fn a_report_of_a_newer_format_is_refused_in_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let mut report = json_of(&["run", "--emulator", "--size", "4KiB", "--iterations", "1"]);
    report["report_version"] = Value::from(3);
    let path = dir.path().join("future.json");
    std::fs::write(&path, report.to_string()).unwrap();
    let output = run(&["merge", path.to_str().unwrap(), path.to_str().unwrap()], &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("newer gcs-speed-tui (report_version 3; this one reads up to 2): upgrade to read it"),
        "{stderr}"
    );
}
