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
/// with its JSON path; empty when it conforms. It knows the keywords
/// schemars writes for these types, and fails on any other.
fn breaks(value: &Value, schema: &Value, root: &Value, at: &str) -> Vec<String> {
    const KNOWN: [&str; 17] = [
        "$ref",
        "$schema",
        "$defs",
        "title",
        "description",
        "default",
        "type",
        "format",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "minimum",
        "enum",
    ];
    const CHOICES: [&str; 3] = ["anyOf", "oneOf", "const"];
    match schema {
        Value::Bool(true) => return vec![],
        Value::Bool(false) => return vec![format!("{at}: {value} where the schema allows nothing")],
        _ => {}
    }
    let unknown: Vec<&String> = schema
        .as_object()
        .unwrap()
        .keys()
        .filter(|k| !KNOWN.contains(&k.as_str()) && !CHOICES.contains(&k.as_str()))
        .collect();
    assert!(unknown.is_empty(), "{at}: the schema uses {unknown:?}, which this check does not know");
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let target = &root["$defs"][reference.trim_start_matches("#/$defs/")];
        assert!(target.is_object(), "{at}: {reference} names no definition");
        return breaks(value, target, root, at);
    }
    if let Some(options) = schema.get("anyOf").and_then(Value::as_array) {
        if options.iter().any(|option| breaks(value, option, root, at).is_empty()) {
            return vec![];
        }
        return vec![format!("{at}: {value} fits none of its anyOf")];
    }
    if let Some(options) = schema.get("oneOf").and_then(Value::as_array) {
        let fits = options.iter().filter(|option| breaks(value, option, root, at).is_empty()).count();
        return if fits == 1 { vec![] } else { vec![format!("{at}: {value} fits {fits} of its oneOf, not one")] };
    }
    if let Some(kind) = schema.get("type") {
        let kinds: Vec<&str> = match kind {
            Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).collect(),
            other => vec![other.as_str().unwrap_or_default()],
        };
        if !kinds.iter().any(|k| is_a(value, k)) {
            return vec![format!("{at}: {value} is not {kinds:?}")];
        }
    }
    let mut found = Vec::new();
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array).filter(|a| !a.contains(value)) {
        found.push(format!("{at}: {value} is not one of {allowed:?}"));
    }
    if let Some(constant) = schema.get("const").filter(|c| *c != value) {
        found.push(format!("{at}: {value} is not {constant}"));
    }
    if let (Some(minimum), Some(number)) = (schema.get("minimum").and_then(Value::as_f64), value.as_f64())
        && number < minimum
    {
        found.push(format!("{at}: {value} is below {minimum}"));
    }
    if let Some(object) = value.as_object() {
        found.extend(object_breaks(object, schema, root, at));
    }
    if let Some(items) = value.as_array() {
        found.extend(array_breaks(items, schema, root, at));
    }
    found
}

/// An object's fields against `properties`, `additionalProperties` and `required`.
fn object_breaks(object: &serde_json::Map<String, Value>, schema: &Value, root: &Value, at: &str) -> Vec<String> {
    let mut found = Vec::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    for (key, field) in object {
        let place = format!("{at}.{key}");
        match (properties.and_then(|p| p.get(key)), schema.get("additionalProperties")) {
            (Some(property), _) => found.extend(breaks(field, property, root, &place)),
            (None, Some(other)) => found.extend(breaks(field, other, root, &place)),
            // Every field a report writes is named in its schema.
            (None, None) => found.push(format!("{place}: not in the schema")),
        }
    }
    for key in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
        if !object.contains_key(key.as_str().unwrap()) {
            found.push(format!("{at}: lacks {key}, which the schema requires"));
        }
    }
    found
}

/// An array's items against `items`, `prefixItems`, `minItems` and `maxItems`.
fn array_breaks(items: &[Value], schema: &Value, root: &Value, at: &str) -> Vec<String> {
    let mut found = Vec::new();
    let bound = |name: &str| schema.get(name).and_then(Value::as_u64).map(|n| n as usize);
    if bound("minItems").is_some_and(|least| items.len() < least)
        || bound("maxItems").is_some_and(|most| items.len() > most)
    {
        found.push(format!("{at}: {} items, outside {:?}..={:?}", items.len(), bound("minItems"), bound("maxItems")));
    }
    let tuple = schema.get("prefixItems").and_then(Value::as_array);
    for (i, item) in items.iter().enumerate() {
        let each = match tuple {
            Some(tuple) => tuple.get(i).or(schema.get("items")),
            None => schema.get("items"),
        };
        if let Some(each) = each {
            found.extend(breaks(item, each, root, &format!("{at}[{i}]")));
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
    let mut retyped = report.clone();
    retyped["environment"]["cpus"] = Value::from("two");
    let found = breaks(&retyped, &schema, &schema, "$");
    assert!(found.len() == 1 && found[0].starts_with("$.environment.cpus: \"two\" is not"), "{found:?}");
    // A map's value, a pair of one, a negative count.
    let mut bad = report;
    bad["transports"][0]["error_kinds"] = serde_json::json!({"HTTP 503": "two"});
    bad["comparison"]["measured"][0] = serde_json::json!(["http-json"]);
    bad["transports"][1]["objects"] = Value::from(-1);
    let found = breaks(&bad, &schema, &schema, "$");
    let said = found.join("\n");
    assert_eq!(found.len(), 3, "{said}");
    assert!(said.contains("$.transports[0].error_kinds.HTTP 503: \"two\" is not"), "{said}");
    // The comparison is an Option (anyOf itself or null): the pair of one makes it fit neither.
    assert!(said.contains("$.comparison: ") && said.contains("fits none of its anyOf"), "{said}");
    let comparison = &schema["$defs"]["Comparison"];
    let pair = breaks(&bad["comparison"], comparison, &schema, "$.comparison");
    assert!(pair.iter().any(|b| b.starts_with("$.comparison.measured[0]: 1 items")), "{pair:?}");
    assert!(said.contains("$.transports[1].objects: -1 is"), "{said}");
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
