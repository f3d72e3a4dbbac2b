//! The page of one run, or of a fleet's merged run.

use super::{escape, facts_table, page, paragraphs, ratios_table, table};
use crate::finished::Finished;

/// The whole page of `run`: what a colleague needs to trust its verdict.
pub fn run_page(run: &Finished) -> String {
    let title = format!("gcs-speed-tui: {} on {}", run.work_said(), run.place_said());
    let value = run.to_value().unwrap_or_default();
    let mut body = format!("<h1>{}</h1>\n{}", escape(&title), meta(run, &value));
    body +=
        &section("verdict", "Verdict", &(paragraphs("verdict", &run.verdict_lines()) + &ratios_table(&run.ratios())));
    body += &section("results", "Results", &results(run));
    if run.has_round_times() && !run.round_rates().is_empty() {
        body += &section("charts", "Charts", &charts::run_svg(&**run));
    }
    body += &section("configuration", "Configuration", &configuration(run));
    body += &section("environment", "Environment", &environment(&value));
    page(&title, &body, &run.to_json())
}

/// Who ran it, when, and how it ended.
fn meta(run: &Finished, value: &serde_json::Value) -> String {
    let version = value.get("report_version").and_then(serde_json::Value::as_u64).unwrap_or(1);
    format!(
        "<p class=\"meta\">run {} · started {} · {} · gcs-speed-tui {} · report_version {version}</p>\n",
        escape(run.run_id()),
        escape(run.started_at()),
        escape(&value.get("outcome").and_then(|o| o.as_str()).unwrap_or("unknown").replace('_', " ")),
        escape(run.tool_version()),
    )
}

/// The table as `--format table` prints it, and the notes beneath it as
/// it prints them (a note and its indented continuation stay together).
fn results(run: &Finished) -> String {
    let shown = run.table();
    let mut out = table("table", &shown.headers, &shown.rows);
    let notes = run.footer_lines().join("\n");
    if !notes.trim().is_empty() {
        out += &format!("<pre class=\"notes\">{}</pre>\n", escape(notes.trim_matches('\n')));
    }
    out
}

/// The run's options as its report holds them.
fn configuration(run: &Finished) -> String {
    let text = serde_json::to_string_pretty(&run.config_json()).unwrap_or_default();
    format!("<pre id=\"config\">{}</pre>\n", escape(&text))
}

/// The host, its kernel and CPUs, and the tool that ran.
pub(super) fn environment(value: &serde_json::Value) -> String {
    let mut facts = value.get("environment").and_then(|e| e.as_object()).cloned().unwrap_or_default();
    if let Some(tool) = value.get("tool").and_then(|t| t.as_object()) {
        for (key, fact) in tool {
            facts.insert(format!("tool {key}"), fact.clone());
        }
    }
    facts_table("environment-facts", &facts)
}

/// A headed part of the page.
pub(super) fn section(id: &str, heading: &str, content: &str) -> String {
    format!("<section id=\"{id}\">\n<h2>{}</h2>\n{content}</section>\n", escape(heading))
}
