//! A page loaded in headless Chromium: its DOM as the browser built it,
//! its console, and a screenshot. What the tests of HTML pages share.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

pub struct Loaded {
    /// The DOM after loading, as Chromium serializes it.
    pub dom: String,
    /// Chromium's own log (stderr), console messages among it.
    pub log: String,
    /// The size of its screenshot's PNG.
    pub screenshot_bytes: usize,
}

impl Loaded {
    /// Every console message (a page with no script of its own has none
    /// unless something in it failed), and any uncaught error.
    pub fn console_errors(&self) -> Vec<&str> {
        self.log.lines().filter(|line| line.contains(":CONSOLE") || line.contains("Uncaught")).collect()
    }

    /// No console error, and the page is the tool's (not an error page).
    pub fn assert_clean(&self) {
        assert!(self.console_errors().is_empty(), "console errors:\n{}", self.log);
        assert!(self.dom.contains("<h1>gcs-speed-tui"), "{}", &self.dom[..self.dom.len().min(2000)]);
        // Self-contained: nothing is fetched, nothing links out (a file
        // that is not there is no console error on file://, so look).
        for attribute in ["src=\"", "href=\""] {
            assert!(!self.dom.contains(attribute), "the page refers to something outside it: {attribute}");
        }
        // Something was drawn: a blank window's PNG compresses to a few KiB.
        let blank = blank_screenshot_bytes();
        assert!(
            self.screenshot_bytes > 5 * blank,
            "the screenshot looks blank: {} bytes, a blank one {blank}",
            self.screenshot_bytes
        );
    }
}

fn chromium(args: &[String]) -> std::process::Output {
    let mut command = Command::new("chromium");
    command.args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"]);
    command.args(["--enable-logging=stderr", "--log-level=0"]);
    // Timers the page sets run before the DOM is dumped or the picture taken.
    command.arg("--virtual-time-budget=1000");
    command.args(args);
    command.output().unwrap_or_else(|e| panic!("chromium: {e} (./scripts/test installs Debian's chromium)"))
}

/// `path` loaded: its DOM and console, and a screenshot beside it
/// (`NAME.png`), checked to be a PNG of the window's size.
pub fn load(path: &Path) -> Loaded {
    let url = format!("file://{}", path.display());
    let profile = tempfile::tempdir().unwrap();
    let profile_arg = format!("--user-data-dir={}", profile.path().display());
    let dumped = chromium(&[profile_arg.clone(), "--dump-dom".into(), url.clone()]);
    assert!(dumped.status.success(), "{}", String::from_utf8_lossy(&dumped.stderr));
    let shot = path.with_extension("png");
    let shot_arg = format!("--screenshot={}", shot.display());
    let shooting = chromium(&[profile_arg.clone(), shot_arg, "--window-size=1280,1600".into(), url]);
    assert!(shooting.status.success(), "{}", String::from_utf8_lossy(&shooting.stderr));
    let png = std::fs::read(&shot).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let size = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((size(16), size(20)), (1280, 1600), "the screenshot is of the window");
    let log = String::from_utf8_lossy(&dumped.stderr).into_owned() + &String::from_utf8_lossy(&shooting.stderr);
    Loaded { dom: String::from_utf8(dumped.stdout).unwrap(), log, screenshot_bytes: png.len() }
}

/// The bytes of a screenshot of an empty page at the same size: what a
/// page that drew nothing would give.
fn blank_screenshot_bytes() -> usize {
    let dir = tempfile::tempdir().unwrap();
    let profile_arg = format!("--user-data-dir={}", dir.path().join("profile").display());
    let (page, shot) = (dir.path().join("blank.html"), dir.path().join("blank.png"));
    std::fs::write(&page, "<!DOCTYPE html><html><body></body></html>").unwrap();
    let shot_arg = format!("--screenshot={}", shot.display());
    let url = format!("file://{}", page.display());
    chromium(&[profile_arg.to_string(), shot_arg, "--window-size=1280,1600".into(), url]);
    std::fs::read(&shot).map_or(0, |png| png.len())
}

/// HTML's five escapes undone.
pub fn unescape(text: &str) -> String {
    text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

/// Text as the page escapes it (the tool's five escapes).
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

/// The header cells of the table `id`.
pub fn headers(dom: &str, id: &str) -> Vec<String> {
    let start = dom.find(&format!("<table id=\"{id}\"")).unwrap_or_else(|| panic!("no table {id}"));
    let head = &dom[start..start + dom[start..].find("</thead>").unwrap()];
    // Split on the cell's own tag: "<th" alone would also split at "<thead>".
    head.split("<th>").skip(1).map(|cell| unescape(cell.split("</th>").next().unwrap_or_default())).collect()
}

/// The body rows of the table `id`, each a list of its cells' text.
pub fn cells(dom: &str, id: &str) -> Vec<Vec<String>> {
    let start = dom.find(&format!("<table id=\"{id}\"")).unwrap_or_else(|| panic!("no table {id}"));
    let table = &dom[start..start + dom[start..].find("</table>").unwrap()];
    let body = table.split_once("<tbody>").map_or(table, |(_, b)| b);
    body.split("<tr").skip(1).map(row_cells).collect()
}

fn row_cells(row: &str) -> Vec<String> {
    row.split("<td")
        .skip(1)
        .map(|cell| {
            let text = cell.split_once('>').map_or("", |(_, t)| t);
            unescape(text.split("</td>").next().unwrap_or_default())
        })
        .collect()
}

#[derive(Debug)]
pub struct RatioRow {
    pub ratio: f64,
    pub low: f64,
    pub high: f64,
    pub text: Vec<String>,
}

/// The rows of every ratio table on the page, in order, by their `data-`.
pub fn ratio_rows(dom: &str) -> Vec<RatioRow> {
    let attribute = |row: &str, name: &str| -> f64 {
        let start = row.find(&format!("{name}=\"")).unwrap_or_else(|| panic!("{name}: {row}")) + name.len() + 2;
        row[start..start + row[start..].find('"').unwrap()].parse().unwrap_or(f64::NAN)
    };
    dom.split("<tr ")
        .skip(1)
        .filter(|row| row.starts_with("data-ratio"))
        .map(|row| RatioRow {
            ratio: attribute(row, "data-ratio"),
            low: attribute(row, "data-low"),
            high: attribute(row, "data-high"),
            text: row_cells(row),
        })
        .collect()
}
