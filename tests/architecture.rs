//! The layers the crate graph promises, checked from the sources and from
//! `cargo metadata`: what depends on what, where a target may be named, and
//! the size limits (files under 400 lines, functions under 80).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// The targets: each a crate of its own, named in the binary only by the registry.
const TARGETS: [&str; 3] = ["gcs", "etcd", "grpc-service"];
/// What a target gives the front ends (`Target`): on the engine and leaves alone.
const CONTRACT: &str = "target-api";
/// Crates every layer may use: small facts with no layer of their own.
const LEAVES: [&str; 5] = ["units", "wire", "gcs-protocol", "schedule-flags", "google-sign-in"];
/// What the engine must not know: transports' stacks and the front ends'.
const FRONT_AND_WIRE: [&str; 6] = ["tonic", "reqwest", "hyper", "ratatui", "crossterm", "clap"];

/// Each workspace crate's normal dependencies, by package name.
fn workspace_dependencies() -> BTreeMap<String, Vec<String>> {
    let output = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(ROOT)
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    packages
        .iter()
        .map(|p| {
            let normal = p["dependencies"].as_array().unwrap().iter().filter(|d| d["kind"].is_null());
            (p["name"].as_str().unwrap().to_string(), normal.map(|d| d["name"].as_str().unwrap().to_string()).collect())
        })
        .collect()
}

#[test]
fn the_crate_graph_is_the_architecture() {
    let graph = workspace_dependencies();
    // Twelve library crates and the binary: an empty graph would prove nothing.
    assert_eq!(graph.len(), 13, "{graph:?}");
    let workspace: Vec<&String> = graph.keys().collect();
    let engine = &graph["engine"];
    for dependency in engine {
        assert!(!FRONT_AND_WIRE.contains(&dependency.as_str()), "the engine depends on {dependency}");
        let inside = workspace.contains(&dependency);
        assert!(!inside || dependency == "units", "the engine depends on the workspace's {dependency}");
    }
    for target in TARGETS {
        let uses = &graph[target];
        assert!(uses.contains(&"engine".to_string()), "{target} runs on the engine: {uses:?}");
        assert!(uses.contains(&CONTRACT.to_string()), "{target} implements the contract: {uses:?}");
        for other in uses.iter().filter(|d| workspace.contains(d)) {
            let allowed = other == "engine" || other == CONTRACT || LEAVES.contains(&other.as_str());
            assert!(allowed, "the {target} target depends on {other}");
        }
    }
    for other in graph[CONTRACT].iter().filter(|d| workspace.contains(d)) {
        assert!(other == "engine" || LEAVES.contains(&other.as_str()), "the contract depends on {other}");
    }
    // The pictures read finished runs through the engine: no target, no front end.
    let charts = &graph["charts"];
    for other in charts.iter().filter(|d| workspace.contains(d)) {
        assert!(other == "engine" || other == "units", "the charts depend on {other}");
    }
    assert!(!charts.iter().any(|d| FRONT_AND_WIRE.contains(&d.as_str())), "the charts depend on {charts:?}");
    let emulator = &graph["gcs-emulator"];
    for other in emulator.iter().filter(|d| workspace.contains(d)) {
        assert!(LEAVES.contains(&other.as_str()), "the emulator depends on {other}");
    }
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    found
}

/// The workspace's `src/` folders: the binary's and each crate's.
fn source_folders() -> Vec<PathBuf> {
    let mut folders = vec![Path::new(ROOT).join("src")];
    for entry in std::fs::read_dir(Path::new(ROOT).join("crates")).unwrap() {
        folders.push(entry.unwrap().path().join("src"));
    }
    folders
}

/// A function's first line (after rustfmt): `fn`, maybe `pub` (`pub(in
/// crate::a)` too), `async`, `const` or `unsafe` before it, at any indent.
fn opens_function(line: &str) -> bool {
    let mut words = line.split_whitespace();
    while let Some(word) = words.next() {
        if word.starts_with("pub(in") {
            // `pub(in crate::a)`: the path is a word of its own.
            words.find(|w| w.ends_with(')'));
        } else if !(word.starts_with("pub") || matches!(word, "async" | "const" | "unsafe")) {
            return word == "fn";
        }
    }
    false
}

/// A line that closes a block: `}`, maybe with a comment after it.
fn closes(line: &str) -> bool {
    line.split("//").next().is_some_and(|code| code.trim() == "}")
}

/// Functions longer than `limit` lines in `text`: rustfmt closes a body
/// with `}` at the indent its `fn` line has.
fn long_functions(text: &str, limit: usize) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (start, line) in lines.iter().enumerate().filter(|(_, l)| opens_function(l)) {
        // A declaration (in a trait) ends with `;`, a one-line body with `}`.
        let signature_end = lines[start..].iter().map(|l| l.trim_end()).find(|l| l.ends_with(['{', ';', '}']));
        if signature_end.is_none_or(|l| !l.ends_with('{')) {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let close = format!("{}}}", " ".repeat(indent));
        let Some(length) = lines[start..].iter().position(|l| l.starts_with(&close) && closes(l)) else {
            continue;
        };
        if length + 1 > limit {
            long.push((start + 1, length + 1));
        }
    }
    long
}

/// Tests and benches that were longer than the rule before it covered
/// them, each with the size it may not grow past: the list only shrinks.
const LONG_BEFORE: [(&str, usize); 8] = [
    ("tests/emulator_json.rs", 410),
    ("tests/cli.rs", 423),
    ("tests/tui_views.rs:41", 93),
    ("tests/fleet_etcd.rs:39", 92),
    ("tests/real_gcs_path.rs:20", 85),
    ("tests/common/synthetic.rs:23", 82),
    ("benches/grpc_dynamic_cpu.rs:37", 83),
    ("benches/throughput.rs:41", 145),
];

#[test]
fn no_file_over_400_lines_and_no_function_over_80() {
    let mut files = 0;
    let mut over = Vec::new();
    let folders = [source_folders(), vec![Path::new(ROOT).join("tests"), Path::new(ROOT).join("benches")]].concat();
    let within = |place: &str, size: usize| LONG_BEFORE.iter().any(|(p, most)| *p == place && size <= *most);
    for path in folders.iter().flat_map(|f| sources(f)) {
        let text = std::fs::read_to_string(&path).unwrap();
        files += 1;
        let shown = path.strip_prefix(ROOT).unwrap().display().to_string();
        if text.lines().count() > 400 && !within(&shown, text.lines().count()) {
            over.push(format!("{shown}: {} lines", text.lines().count()));
        }
        for (line, length) in long_functions(&text, 80) {
            if !within(&format!("{shown}:{line}"), length) {
                over.push(format!("{shown}:{line}: a function of {length} lines"));
            }
        }
    }
    assert!(files > 100, "the sources were found: {files} files");
    assert!(over.is_empty(), "{}", over.join("\n"));
}

#[test]
fn the_length_check_sees_a_long_function() {
    // 1 line opening, 81 of body, 1 closing: 83 lines, over 80.
    let body = "    let x = 1;\n".repeat(81);
    let text = format!(
        "trait A {{\n    fn declared(&self);\n}}\nimpl A {{\n    pub async fn long() {{\n{body}    }}\n\n    fn short() {{}}\n}}\n"
    );
    assert_eq!(long_functions(&text, 80), [(5, 83)]);
    // A restricted visibility, and a closing brace with a comment after it.
    let scoped = format!("    pub(in crate::a) fn scoped() {{\n{body}    }} // end\n");
    assert_eq!(long_functions(&scoped, 80), [(1, 83)]);
}

/// The target a line of code names: by a path (`gcs::report`) or by its
/// name as the registry spells it (`"etcd"`); a package's `-` is `_` in paths.
fn names_a_target(line: &str) -> Option<&'static str> {
    TARGETS.into_iter().find(|t| {
        let path = t.replace('-', "_");
        line.contains(&format!("{path}::")) || line.contains(&format!("\"{t}\""))
    })
}

#[test]
fn a_target_is_seen_by_path_or_by_name() {
    assert_eq!(names_a_target("use crate::gcs::report::Shown;"), Some("gcs"));
    assert_eq!(names_a_target("        \"etcd\" => &ETCD_FIELDS,"), Some("etcd"));
    assert_eq!(names_a_target("let etcd_like = gcs_speed_tui::units::KIB;"), None);
    assert_eq!(names_a_target("use grpc_service::method;"), Some("grpc-service"));
}

/// Outside its own crate, a target is named only in the registry's list
/// (`src/targets/mod.rs`, a line each), in `src/targets/config.rs` and in
/// `lib.rs`, which re-export the workspace's crates for tests and benches.
/// Its form, flags, welcome, plan and reports are its `Target`'s.
#[test]
fn outside_its_crate_a_target_is_named_only_in_the_registry() {
    let allowed = ["src/targets/mod.rs", "src/targets/config.rs", "src/lib.rs"];
    let mut named = Vec::new();
    let binary = sources(&Path::new(ROOT).join("src"));
    assert!(binary.len() > 30, "the binary's sources were found: {}", binary.len());
    for path in binary {
        let shown = path.strip_prefix(ROOT).unwrap().display().to_string();
        // A module's tests in a file of their own (`tests.rs`) may name what they test.
        let test_file =
            path.file_stem().is_some_and(|stem| stem == "tests" || stem.to_string_lossy().ends_with("_tests"));
        if allowed.iter().any(|a| shown.starts_with(a)) || test_file {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // Tests may name what they test; the code above them may not.
        let code = text.split("#[cfg(test)]").next().unwrap();
        for (number, line) in code.lines().enumerate() {
            if let Some(target) = names_a_target(line) {
                named.push(format!("{shown}:{}: {target}: {}", number + 1, line.trim()));
            }
        }
    }
    assert!(named.is_empty(), "a target named outside the registry:\n{}", named.join("\n"));
}

/// Whether code `text` uses crate `name`: a path through it (`tonic::`),
/// `use tonic` or `extern crate tonic`, comments left out (a word in a
/// comment, a string or a variable's name is not a use).
fn names_identifier(text: &str, name: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || c == '_';
    text.lines().map(|line| line.split("//").next().unwrap_or("")).any(|code| {
        code.match_indices(name).any(|(at, _)| {
            let (before, after) = (&code[..at], &code[at + name.len()..]);
            let whole = before.chars().next_back().is_none_or(|c| !part(c)) && !after.starts_with(part);
            let used = after.starts_with("::")
                || before.trim_end().ends_with("use")
                || before.trim_end().ends_with("extern crate");
            whole && used
        })
    })
}

/// Every member's declared dependencies are named by the sources that get
/// them: a normal dependency by `src/`, a dev-dependency by `src/`, `tests/`
/// or `benches/` (a crate declared and never used costs every build its
/// compile time, and hides which layer really needs it).
#[test]
fn no_member_declares_a_dependency_its_sources_never_name() {
    let output = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
        .current_dir(ROOT)
        .output()
        .expect("cargo metadata runs");
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut unused = Vec::new();
    let mut checked = 0;
    for package in metadata["packages"].as_array().unwrap() {
        let dir = Path::new(package["manifest_path"].as_str().unwrap()).parent().unwrap().to_path_buf();
        let read = |folders: &[&str]| -> String {
            let found = folders.iter().map(|f| dir.join(f)).filter(|f| f.is_dir()).flat_map(|f| sources(&f));
            found.map(|f| std::fs::read_to_string(f).unwrap()).collect()
        };
        let (code, all) = (read(&["src"]), read(&["src", "tests", "benches"]));
        for dependency in package["dependencies"].as_array().unwrap() {
            let name = dependency["rename"].as_str().or(dependency["name"].as_str()).unwrap().replace('-', "_");
            let (kind, text) = match dependency["kind"].as_str() {
                None => ("dependency", &code),
                Some("dev") => ("dev-dependency", &all),
                Some(_) => continue,
            };
            checked += 1;
            if !names_identifier(text, &name) {
                unused.push(format!("{}: {kind} {name}", package["name"].as_str().unwrap()));
            }
        }
    }
    // About a hundred declarations over 11 members: none found would prove nothing.
    assert!(checked > 80, "the dependencies were read: {checked}");
    assert!(unused.is_empty(), "declared, never named by the sources:\n{}", unused.join("\n"));
}

#[test]
fn a_crate_is_used_by_a_path_or_a_use_not_by_a_word() {
    assert!(names_identifier("use tonic::transport;", "tonic"));
    assert!(names_identifier("#[derive(serde::Serialize)]", "serde"));
    assert!(names_identifier("use bytes;", "bytes"));
    assert!(names_identifier("tonic_prost::X; tonic::Y", "tonic"));
    assert!(!names_identifier("use tonic_prost::ProstCodec;", "tonic"));
    assert!(!names_identifier("use my_tonic::x;", "tonic"));
    assert!(!names_identifier("let hyper_util = 1;", "hyper"));
    assert!(!names_identifier("let bytes = 1; // http::Uri", "bytes"));
    assert!(!names_identifier("// use http::Uri", "http"));
}
