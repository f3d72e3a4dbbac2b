//! The page of a sweep: its points side by side, its pictures, and each
//! point's own verdict, table and configuration, folded away until asked.

use super::run::{environment, section};
use super::{escape, page, paragraphs, ratios_table, table};
use crate::sweep::report::{HEADERS, SweepReport, rows};

/// The whole page of `sweep`.
pub fn sweep_page(sweep: &SweepReport) -> String {
    let title = format!("gcs-speed-tui: {}", sweep.heading());
    let mut body =
        format!("<h1>{}</h1>\n<p class=\"meta\">report_version {}</p>\n", escape(&title), sweep.report_version);
    let points: Vec<Vec<String>> = rows(sweep).into_iter().map(Vec::from).collect();
    body += &section("points", "Points", &table("table", &HEADERS, &points));
    if !sweep.points.is_empty() {
        body += &section("charts", "Charts", &crate::sweep::chart::sweep_svg(sweep));
    }
    let mut each = String::new();
    for point in &sweep.points {
        let report = &point.report;
        let shown = report.table();
        let config = serde_json::to_string_pretty(&report.config_json()).unwrap_or_default();
        each += &format!(
            "<details class=\"point\">\n<summary>{} (ran {})</summary>\n{}{}{}<pre>{}</pre>\n</details>\n",
            escape(&point.said(&sweep.sweep.options)),
            point.ran,
            paragraphs("verdict", &report.verdict_lines()),
            ratios_table(&point.ratios),
            table("point-table", &shown.headers, &shown.rows),
            escape(&config)
        );
    }
    body += &section("each-point", "Each point: verdict, table, configuration", &each);
    if let Some(first) = sweep.points.first() {
        let value = first.report.to_value().unwrap_or_default();
        body += &section("environment", "Environment", &environment(&value));
    }
    let json = serde_json::to_string_pretty(sweep).expect("a report serializes");
    page(&title, &body, &json)
}
