//! `--chart FILE`: the run's or sweep's picture, as SVG or as a
//! self-contained HTML page holding that SVG.

use std::path::Path;

/// The chart's file can be written: `.svg` or `.html`, in a folder that
/// exists. Said before anything runs.
pub fn check(path: &Option<std::path::PathBuf>) -> Result<(), String> {
    let Some(path) = path else { return Ok(()) };
    if !matches!(extension(path).as_deref(), Some("svg" | "html" | "htm")) {
        return Err(format!("--chart {}: give a file ending .svg or .html", path.display()));
    }
    super::output_folder_exists(&Some(path.clone())).map_err(|e| format!("--chart: {e}"))
}

/// Writes the picture (`title` heads the HTML page); one sentence on failure.
pub fn write(path: &Path, title: &str, svg: &str) -> Result<(), String> {
    let text = match extension(path).as_deref() {
        Some("html" | "htm") => charts::html_page(title, svg),
        _ => svg.to_string(),
    };
    std::fs::write(path, text).map_err(|e| format!("cannot write the chart {}: {e}", path.display()))
}

fn extension(path: &Path) -> Option<String> {
    path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase())
}
