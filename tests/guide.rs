//! The guide in docs/ as a reader meets it: README.md is a front page (at
//! most 300 lines), docs/SUMMARY.md lists every page and the chapters a
//! user looks for, every relative link in README.md and docs/ reaches a
//! file (and a heading, when it names one), and `mdbook build docs`
//! (mdBook from crates.io, installed by ./scripts/test) builds the book.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md and every Markdown page under docs/ (not the book's output).
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![Path::new(ROOT).join("README.md")];
    let mut folders = vec![Path::new(ROOT).join("docs")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.ends_with("book") {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

/// The targets of links outside code blocks and code spans: `[text](target)`,
/// `[name]: target` definitions, and `href=`/`src=` of inline HTML.
fn links(markdown: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_code = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Code spans hold text, not links.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        if let Some((label, target)) = prose.trim_start().split_once("]: ")
            && label.starts_with('[')
        {
            found.push(target.split_whitespace().next().unwrap_or_default().to_string());
        }
        for attribute in ["href=\"", "src=\""] {
            for part in prose.split(attribute).skip(1) {
                found.push(part.split('"').next().unwrap_or_default().to_string());
            }
        }
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            found.push(after[..end].split_whitespace().next().unwrap_or_default().to_string());
            rest = &after[end..];
        }
    }
    found
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a page's headings (outside code blocks).
fn anchors(markdown: &str) -> BTreeSet<String> {
    let mut in_code = false;
    let mut found = BTreeSet::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            found.insert(slug(line.trim_start_matches('#')));
        }
    }
    found
}

/// Why `link` from `page` does not resolve, if it does not.
fn broken(page: &Path, link: &str) -> Option<String> {
    if link.contains("://") || link.starts_with("mailto:") || link.is_empty() {
        return None;
    }
    let (file, anchor) = link.split_once('#').map_or((link, None), |(f, a)| (f, Some(a)));
    let target = if file.is_empty() { page.to_path_buf() } else { page.parent().unwrap().join(file) };
    if !target.exists() {
        return Some(format!("{}: {link}: no such file", page.display()));
    }
    let anchor = anchor.filter(|_| target.extension().is_some_and(|e| e == "md"))?;
    (!anchors(&read(&target)).contains(anchor)).then(|| format!("{}: {link}: no such heading", page.display()))
}

#[test]
fn every_relative_link_reaches_its_file_and_heading() {
    let mut checked = 0;
    let mut found = Vec::new();
    for page in pages() {
        for link in links(&read(&page)) {
            checked += 1;
            found.extend(broken(&page, &link));
        }
    }
    assert!(checked >= 50, "only {checked} links found: the extraction is broken");
    assert!(found.is_empty(), "{} broken links:\n{}", found.len(), found.join("\n"));
}

#[test]
fn a_broken_link_or_anchor_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.md");
    let text = "# A page\n\n## Its part\n\n[ok](#its-part) [bad](#no-part) [gone](gone.md) `[not](a-link.md)`\n\n\
                [defined]: lost.md\n<img src=\"missing.svg\">\n";
    std::fs::write(&page, text).unwrap();
    let found: Vec<String> = links(&read(&page)).iter().filter_map(|l| broken(&page, l)).collect();
    assert_eq!(found.len(), 4, "{found:?}");
    for end in
        ["lost.md: no such file", "missing.svg: no such file", "#no-part: no such heading", "gone.md: no such file"]
    {
        assert!(found.iter().any(|f| f.ends_with(end)), "{end}: {found:?}");
    }
}

#[test]
fn the_readme_is_a_front_page_and_the_summary_holds_every_chapter() {
    let readme = read(&Path::new(ROOT).join("README.md"));
    let lines = readme.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines: the guide in docs/ is the place for more");
    let summary = read(&Path::new(ROOT).join("docs/SUMMARY.md"));
    let listed: BTreeSet<String> = links(&summary).into_iter().collect();
    for page in pages().iter().filter(|p| p.parent() == Some(&Path::new(ROOT).join("docs"))) {
        let name = page.file_name().unwrap().to_string_lossy().to_string();
        assert!(name == "SUMMARY.md" || listed.contains(&name), "docs/{name} is in no chapter of docs/SUMMARY.md");
    }
    let chapters = [
        "Getting started",
        "The app",
        "GCS workloads",
        "Open-loop load and sweeps",
        "Reading the results",
        "Real GCS",
        "The built-in emulator",
        "etcd",
        "Any gRPC service",
        "Fleets",
        "Performance",
        "Troubleshooting",
        "Report format",
        "Command reference",
    ];
    for chapter in chapters {
        assert!(summary.contains(&format!("[{chapter}](")), "docs/SUMMARY.md lacks the chapter {chapter}");
    }
}

#[test]
fn mdbook_builds_the_guide() {
    let out = tempfile::tempdir().unwrap();
    let output = std::process::Command::new("mdbook")
        .args(["build", "docs", "--dest-dir"])
        .arg(out.path())
        .current_dir(ROOT)
        // A page the summary names but docs/ lacks is an error, not a blank page made for it.
        .env("MDBOOK_BUILD__CREATE_MISSING", "false")
        .output()
        .unwrap_or_else(|e| panic!("mdbook: {e} (./scripts/test installs it: cargo install mdbook)"));
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{log}");
    assert!(!log.contains("ERROR") && !log.contains("WARN"), "{log}");
    // Every page of the summary became a page of the book, with its own heading.
    let summary = read(&Path::new(ROOT).join("docs/SUMMARY.md"));
    let pages = links(&summary);
    assert!(pages.len() >= 16, "{pages:?}");
    for page in pages {
        let source = read(&Path::new(ROOT).join("docs").join(&page));
        let heading = source.lines().find(|l| l.starts_with("# ")).unwrap_or_else(|| panic!("{page} has no title"));
        let html = read(&out.path().join(page.replace(".md", ".html")));
        // The heading's words up to any code span, as the book prints them.
        let title = heading.trim_start_matches("# ").split('`').next().unwrap().trim().to_string();
        assert!(html.contains("<main>") && html.contains(&title.replace('&', "&amp;")), "{page}: {title}");
    }
}
