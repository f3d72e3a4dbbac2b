//! Reports read back from files, a directory of them or stdin, and the
//! checks that make a merge honest: one kind of report, one configuration,
//! each host once.

use crate::finished::Finished;
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug)]
/// A report and where it came from (`a.json`, `stdin`, `stdin #2`), and
/// the sweep's point it is, when it was one.
pub struct Loaded {
    pub name: String,
    pub report: Finished,
    pub point: Option<SweepPoint>,
}

/// A sweep's point as a report read back says it: the sweep's options and
/// order, and this point's value of each option.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepPoint {
    pub options: Vec<String>,
    pub values: std::collections::BTreeMap<String, String>,
    pub ran_in_order: Vec<String>,
    pub share_s: Option<f64>,
    /// The sweep's points planned, and whether a cancel cut it short.
    pub planned: usize,
    pub cancelled: bool,
    /// The report the point was read from (`sweep.json`), which the
    /// sweep's other points share.
    pub sweep: String,
}

/// Every report in the files, directories (their `*.json`) and `-` (stdin)
/// given; a file may hold several reports one after another, or be a log
/// with reports between `--log-markers` lines.
pub fn load(paths: &[PathBuf]) -> Result<Vec<Loaded>, String> {
    let mut loaded = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map_err(|e| format!("cannot read stdin: {e}"))?;
            loaded.extend(parse("stdin", &text)?);
        } else if path.is_dir() {
            let files = json_files(path)?;
            if files.is_empty() {
                return Err(format!(
                    "{} has no .json files: give report files, a directory of them or - for stdin",
                    path.display()
                ));
            }
            for file in files {
                loaded.extend(parse(&file.display().to_string(), &read(&file)?)?);
            }
        } else {
            loaded.extend(parse(&path.display().to_string(), &read(path)?)?);
        }
    }
    Ok(loaded)
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn json_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| Some(e.ok()?.path()))
        // Not *.log: collect.sh keeps each pod's log beside the report cut from it.
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    Ok(files)
}

/// The reports in one text (`run --format json` output, one or several,
/// or a log with reports between `--log-markers` lines).
pub fn parse(name: &str, text: &str) -> Result<Vec<Loaded>, String> {
    use crate::engine::start::{REPORT_BEGINS, REPORT_ENDS};
    if text.contains(REPORT_BEGINS) {
        let marked: Vec<&str> =
            text.split(REPORT_BEGINS).skip(1).map(|rest| rest.split(REPORT_ENDS).next().unwrap_or(rest)).collect();
        return parse_json(name, &marked.join("\n"));
    }
    parse_json(name, text)
}

fn parse_json(name: &str, text: &str) -> Result<Vec<Loaded>, String> {
    let values: Result<Vec<serde_json::Value>, _> = serde_json::Deserializer::from_str(text).into_iter().collect();
    let values = values.map_err(|e| format!("{name} is not JSON ({e}): give reports written by run --format json"))?;
    if values.is_empty() {
        return Err(format!("{name} is empty: give reports written by run --format json"));
    }
    let several = values.len() > 1;
    let named = values.into_iter().enumerate().flat_map(|(i, value)| {
        let name = if several { format!("{name} #{}", i + 1) } else { name.to_string() };
        points_of(name, value)
    });
    named
        .map(|(name, value, point)| {
            let not_ours = |e: String| {
                format!("{name} is not a gcs-speed-tui report ({e}): give reports written by run --format json")
            };
            let report = Finished::from_json(value).map_err(not_ours)?;
            Ok(Loaded { name, report, point })
        })
        .collect()
}

/// A sweep's reports (`--sweep`), each named by its point
/// (`sweep.json point size=1MiB concurrency=4`); any other report as it is.
fn points_of(name: String, value: serde_json::Value) -> Vec<(String, serde_json::Value, Option<SweepPoint>)> {
    let (Some(options), Some(points)) = (value["sweep"]["options"].as_array(), value["points"].as_array()) else {
        return vec![(name, value, None)];
    };
    let options: Vec<String> = options.iter().filter_map(|o| Some(o.as_str()?.to_string())).collect();
    let strings = |v: &serde_json::Value| -> Vec<String> {
        v.as_array().into_iter().flatten().filter_map(|s| Some(s.as_str()?.to_string())).collect()
    };
    let (ran_in_order, share_s) = (strings(&value["sweep"]["ran_in_order"]), value["sweep"]["share_s"].as_f64());
    let planned = value["sweep"]["planned"].as_u64().map_or(points.len(), |n| n as usize);
    let cancelled = value["sweep"]["cancelled"].as_bool().unwrap_or(false);
    points
        .iter()
        .map(|p| {
            let values: std::collections::BTreeMap<String, String> =
                options.iter().filter_map(|o| Some((o.clone(), p["point"][o].as_str()?.to_string()))).collect();
            let said: Vec<String> = options.iter().filter_map(|o| Some(format!("{o}={}", values.get(o)?))).collect();
            let point = SweepPoint {
                options: options.clone(),
                values,
                ran_in_order: ran_in_order.clone(),
                share_s,
                planned,
                cancelled,
                sweep: name.clone(),
            };
            (format!("{name} point {}", said.join(" ")), p["report"].clone(), Some(point))
        })
        .collect()
}

/// The options that tell two configurations apart, each with both values:
/// `--size (a.json 16777216, b.json 8388608)`.
pub fn differing_options(a: &Loaded, b: &Loaded) -> Vec<String> {
    let (Some(x), Some(y)) = (config_of(&a.report), config_of(&b.report)) else { return vec!["the target".into()] };
    let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
    keys.into_iter()
        // Not what was measured: a path to the same CA may differ from host
        // to host, the unit only changes what is shown, and a timeout not
        // hit changed nothing (one hit is in that host's outcome).
        .filter(|key| !["ca_cert", "rate_unit", "timeout"].contains(&key.as_str()))
        .filter(|key| x.get(*key) != y.get(*key))
        .map(|key| {
            let value = |m: &serde_json::Map<String, serde_json::Value>| match m.get(key) {
                None => "unset".to_string(),
                Some(serde_json::Value::Number(n)) if key.ends_with("_size") => {
                    n.as_u64().map_or(n.to_string(), crate::units::format_size_exact)
                }
                Some(v) => v.to_string(),
            };
            format!("{} ({} {}, {} {})", flag_of(key), a.name, value(&x), b.name, value(&y))
        })
        .collect()
}

fn config_of(report: &Finished) -> Option<serde_json::Map<String, serde_json::Value>> {
    match report.config_json() {
        serde_json::Value::Object(map) => Some(map),
        _ => None,
    }
}

/// The flag that sets a configuration field.
fn flag_of(key: &str) -> String {
    let flag = match key {
        "object_size" => "size",
        "json_checksum" | "grpc_checksum" => "disable-grpc-autochecksum / the checksums",
        "transports" => "transports",
        key => return format!("--{}", key.replace('_', "-")),
    };
    format!("--{flag}")
}

/// Refuses what cannot be merged: reports of two targets, of different
/// configurations, a run given twice, two runs of one host label.
pub fn check(loaded: &[Loaded]) -> Result<(), String> {
    let Some(first) = loaded.first() else {
        return Err("nothing to merge: give report files, a directory of them or - for stdin".into());
    };
    for other in &loaded[1..] {
        if first.report.target() != other.report.target() {
            return Err(format!(
                "{} is {} report and {} {}: merge reports of one target",
                first.name,
                first.report.kind_said(),
                other.name,
                other.report.kind_said()
            ));
        }
        let differ = differing_options(first, other);
        if !differ.is_empty() {
            return Err(format!(
                "cannot merge runs configured differently: {}; merge the reports of one configuration",
                differ.join(", ")
            ));
        }
    }
    if let Some(old) = loaded.iter().find(|l| !l.report.has_round_times()) {
        return Err(format!(
            "{} has rounds without times (written by an older version): run it again with this version to merge it",
            old.name
        ));
    }
    for item in loaded {
        item.report
            .histograms_add_up()
            .map_err(|why| format!("{} has {why}: give reports as run wrote them", item.name))?;
    }
    let mut seen: Vec<(String, String, &str)> = Vec::new();
    for item in loaded {
        for (host, run_id) in item.report.host_ids() {
            if let Some((_, _, earlier)) = seen.iter().find(|(_, id, _)| *id == run_id) {
                return Err(format!("{earlier} and {} hold the same run ({run_id}): give each report once", item.name));
            }
            if let Some((_, _, earlier)) = seen.iter().find(|(h, _, _)| *h == host) {
                return Err(format!(
                    "{earlier} and {} both come from host '{host}': give each host its own --host-label (the pod's name on Kubernetes)",
                    item.name
                ));
            }
            seen.push((host, run_id, &item.name));
        }
    }
    Ok(())
}

/// Said, not refused: hosts that went to different places, or ran
/// different versions of the tool.
pub fn warnings(loaded: &[Loaded]) -> Vec<String> {
    let mut said = Vec::new();
    let Some(first) = loaded.first() else { return said };
    let elsewhere: Vec<&str> =
        loaded[1..].iter().filter(|l| !l.report.same_place(&first.report)).map(|l| l.name.as_str()).collect();
    if !elsewhere.is_empty() {
        said.push(format!(
            "{} went to a different target than {} ({} vs {}): the fleet figures add up different servers",
            elsewhere.join(", "),
            first.name,
            loaded
                .iter()
                .find(|l| !l.report.same_place(&first.report))
                .map(|l| l.report.short_target())
                .unwrap_or_default(),
            first.report.short_target()
        ));
    }
    let hosts: usize = loaded.iter().map(|l| l.report.fleet_size().unwrap_or(1)).sum();
    if hosts == 1 {
        said.push(format!("{} is one host's report: the fleet is that host alone", first.name));
    }
    let own_emulators = loaded.iter().any(|l| l.report.ran_on_own_server());
    if own_emulators && loaded.len() > 1 {
        said.push(
            "the hosts each uploaded to a built-in emulator of their own: the fleet figure adds up separate servers (give them one --endpoint to share one)"
                .into(),
        );
    }
    let version = |l: &Loaded| l.report.tool_version().to_string();
    if let Some(other) = loaded.iter().find(|l| version(l) != version(first)) {
        said.push(format!(
            "{} was written by version {} and {} by {}: their figures may not be measured alike",
            first.name,
            version(first),
            other.name,
            version(other)
        ));
    }
    said
}
