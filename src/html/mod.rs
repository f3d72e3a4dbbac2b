//! `--format html`: one self-contained page to share a run, a fleet or a
//! sweep: the verdict with its interval, the table, the charts, the
//! configuration and the environment, and the JSON report itself (in a
//! `<script type="application/json">` a reader's tools can lift out), with
//! no script to run and no link out, so it opens anywhere, offline.

mod run;
mod sweep;

pub use run::run_page;
pub use sweep::sweep_page;

use crate::engine::finished::RatioFigure;

/// Text as HTML shows it: the pictures' pages and these share one escape.
pub use charts::escape_html as escape;

/// Light and dark alike: the browser's own colours, tables that read as tables.
const STYLE: &str = "
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { max-width: 1200px; margin: 1.5em auto; padding: 0 1em; line-height: 1.4; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
.meta { opacity: 0.75; }
.verdict { font-size: 1.1em; font-weight: 600; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #8884; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
pre { padding: 0.7em; border: 1px solid #8884; overflow-x: auto; }
pre.notes { border: none; padding: 0; white-space: pre-wrap; }
svg { max-width: 100%; height: auto; background: white; }
.wide { overflow-x: auto; }
.facts td { text-align: left; white-space: normal; }
";

/// The page around `body`, with the report's JSON carried along.
fn page(title: &str, body: &str, report_json: &str) -> String {
    // `</` inside a script element would end it early; JSON allows `<\/`.
    let json = report_json.replace("</", "<\\/");
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\
         <script type=\"application/json\" id=\"report\">{json}</script>\n</body>\n</html>\n",
        title = escape(title)
    )
}

/// A table: a header row and rows of cells, each cell's text escaped.
fn table(id: &str, headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!("<div class=\"wide\"><table id=\"{id}\">\n<thead><tr>");
    for header in headers {
        out += &format!("<th>{}</th>", escape(header));
    }
    out += "</tr></thead>\n<tbody>\n";
    for row in rows {
        out += "<tr>";
        for cell in row {
            out += &format!("<td>{}</td>", escape(cell));
        }
        out += "</tr>\n";
    }
    out + "</tbody>\n</table></div>\n"
}

/// Each ratio with its interval: the figures as the verdict quotes them,
/// and exact in `data-` attributes for whoever reads the page by program.
fn ratios_table(ratios: &[RatioFigure]) -> String {
    if ratios.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<table id=\"ratios\">\n<thead><tr><th>Ratio (above 1x: gRPC ahead)</th><th>Figure</th><th>95% interval</th></tr></thead>\n<tbody>\n",
    );
    for figure in ratios {
        let exact = |value: Option<f64>| value.map_or(String::new(), |v| v.to_string());
        let (low, high) = (figure.interval.map(|i| i.0), figure.interval.map(|i| i.1));
        let interval = match figure.interval {
            None => "none: too few paired rounds".to_string(),
            Some(_) if !figure.readable => "too wide to read".to_string(),
            Some((low, high)) => format!("{low:.2}x to {high:.2}x"),
        };
        out += &format!(
            "<tr data-ratio=\"{}\" data-low=\"{}\" data-high=\"{}\"><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            exact(figure.ratio),
            exact(low),
            exact(high),
            escape(&figure.name),
            figure.ratio.map_or("-".to_string(), |r| format!("{r:.2}x")),
            escape(&interval)
        );
    }
    out + "</tbody>\n</table>\n"
}

/// A JSON value as a key/value table (nested values as their JSON).
fn facts_table(id: &str, facts: &serde_json::Map<String, serde_json::Value>) -> String {
    let rows: Vec<Vec<String>> = facts
        .iter()
        .map(|(key, value)| {
            let shown = match value {
                serde_json::Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            vec![key.clone(), shown]
        })
        .collect();
    let body: String =
        rows.iter().map(|row| format!("<tr><th>{}</th><td>{}</td></tr>\n", escape(&row[0]), escape(&row[1]))).collect();
    format!("<table id=\"{id}\" class=\"facts\">\n<tbody>\n{body}</tbody>\n</table>\n")
}

/// Lines as paragraphs of a class.
fn paragraphs(class: &str, lines: &[String]) -> String {
    lines.iter().map(|line| format!("<p class=\"{class}\">{}</p>\n", escape(line))).collect()
}
