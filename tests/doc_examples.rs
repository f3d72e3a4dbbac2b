//! Every `gcs-speed-tui ...` command in README.md and docs/ (in ```sh and
//! ```console blocks) parses with the CLI as it is today: a flag renamed or
//! removed fails here, not in a user's terminal. The test of the test: a
//! misspelled flag in a made-up page is caught.

use clap::Parser;
use gcs_speed_tui::cli::Cli;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The commands in `markdown`'s shell blocks: each line (joined over
/// trailing backslashes) that runs the binary, after any `VAR=value`s.
fn commands(markdown: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_shell = false;
    let mut pending = String::new();
    for line in markdown.lines() {
        let fence = line.trim_start();
        if fence.starts_with("```") {
            in_shell = !in_shell && (fence == "```sh" || fence == "```console");
            continue;
        }
        if !in_shell {
            continue;
        }
        let line = line.trim().trim_start_matches("$ ");
        pending.push_str(line.trim_end_matches('\\'));
        pending.push(' ');
        if line.ends_with('\\') {
            continue;
        }
        let command = std::mem::take(&mut pending);
        let words: Vec<&str> = command.split_whitespace().skip_while(|w| is_assignment(w)).collect();
        if words.first() == Some(&"gcs-speed-tui") {
            found.push(command.trim().to_string());
        }
    }
    found
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(name, _)| !name.is_empty() && name.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
}

/// `command` split as a shell would (quotes and backslashes; `#` starts a
/// comment; a redirection, a pipe, `&` or `;` ends the command).
fn words(command: &str) -> Vec<String> {
    let (mut words, mut word, mut quote, mut started) = (Vec::new(), String::new(), None, false);
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => (quote, started) = (Some(c), true),
            (None, '\\') => word.extend(chars.next()),
            (None, '#') if word.is_empty() => break,
            (None, '>' | '|' | '<' | '&' | ';') if word.is_empty() => break,
            (None, c) if c.is_whitespace() => {
                if started || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            (None, c) => word.push(c),
        }
    }
    if started || !word.is_empty() {
        words.push(word);
    }
    words.into_iter().skip_while(|w| is_assignment(w)).collect()
}

/// Why `command` does not parse, if it does not.
fn refused(command: &str) -> Option<String> {
    match Cli::try_parse_from(words(command)) {
        Ok(_) => None,
        Err(e) if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion) => {
            None
        }
        Err(e) => Some(e.to_string().lines().next().unwrap_or_default().to_string()),
    }
}

#[test]
fn every_documented_command_parses() {
    let mut pages = vec![std::path::Path::new(ROOT).join("README.md")];
    for entry in std::fs::read_dir(std::path::Path::new(ROOT).join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    let mut checked = 0;
    let mut broken = Vec::new();
    for page in &pages {
        for command in commands(&std::fs::read_to_string(page).unwrap()) {
            checked += 1;
            if let Some(why) = refused(&command) {
                broken.push(format!("{}: {command}\n  {why}", page.display()));
            }
        }
    }
    assert!(checked >= 30, "only {checked} commands found: the extraction is broken");
    assert!(
        broken.is_empty(),
        "{} of {checked} documented commands do not parse:\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn a_misspelled_flag_in_an_example_is_caught() {
    let page = "Text.\n\n```sh\nSTORAGE_EMULATOR_HOST=http://x gcs-speed-tui run --size 1KiB \\\n    --sampels out.ndjson\ngcs-speed-tui grpc run --method 'a.B/C' --data '{\"k\": \"v w\"}'   # fine\n```\n";
    let found = commands(page);
    assert_eq!(found.len(), 2, "{found:?}");
    let why = refused(&found[0]).expect("--sampels is no flag");
    assert!(why.contains("--sampels"), "{why}");
    assert_eq!(refused(&found[1]), None);
    assert_eq!(words(&found[1])[6], "{\"k\": \"v w\"}", "a quoted value is one word");
}
