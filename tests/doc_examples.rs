//! Every `gcs-speed-tui ...` command in README.md and docs/ (in ```sh and
//! ```console blocks) parses with the CLI as it is today: a flag renamed or
//! removed fails here, not in a user's terminal. The test of the test: a
//! misspelled flag in a made-up page is caught. The blocks marked ```sh
//! emulator run, each in a directory of its own, scaled down as `scaled`
//! says (sizes to 4 MiB, --duration to 1 s, --iterations to 3).

use clap::Parser;
use gcs_speed_tui::cli::Cli;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A shell block of a page: the gcs-speed-tui commands in it, and whether
/// it is marked (```sh emulator) as runnable on the built-in emulator alone.
struct Block {
    runnable: bool,
    commands: Vec<String>,
}

/// The shell blocks of `markdown`: each line (joined over trailing
/// backslashes) that runs the binary, after any `VAR=value`s, and each
/// part of a pipeline or list that does; in other blocks (```text
/// transcripts), the lines that begin `$ gcs-speed-tui`.
fn blocks(markdown: &str) -> Vec<Block> {
    let mut found: Vec<Block> = Vec::new();
    let mut fence: Option<&str> = None;
    let mut pending = String::new();
    for line in markdown.lines() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            fence = if fence.is_some() { None } else { Some(info.trim()) };
            assert!(
                !fence.is_some_and(|f| f.starts_with("sh") && !matches!(f, "sh" | "sh emulator")),
                "a shell block marked {fence:?}: ```sh or ```sh emulator"
            );
            if fence.is_some() {
                found.push(Block { runnable: fence == Some("sh emulator"), commands: Vec::new() });
            }
            continue;
        }
        let Some(info) = fence else { continue };
        let shell = matches!(info, "sh" | "console" | "sh emulator");
        if !shell && !line.trim_start().starts_with("$ gcs-speed-tui") {
            continue;
        }
        let line = line.trim().trim_start_matches("$ ");
        pending.push_str(line.trim_end_matches('\\'));
        pending.push(' ');
        if line.ends_with('\\') {
            continue;
        }
        let command = std::mem::take(&mut pending);
        for part in command.split(" | ").flat_map(|p| p.split(" && ")).flat_map(|p| p.split("; ")) {
            let words: Vec<&str> = part.split_whitespace().skip_while(|w| is_assignment(w)).collect();
            if words.first() == Some(&"gcs-speed-tui") {
                found.last_mut().expect("inside a block").commands.push(part.trim().to_string());
            }
        }
    }
    found
}

/// Every command of `markdown`'s shell blocks.
fn commands(markdown: &str) -> Vec<String> {
    blocks(markdown).into_iter().flat_map(|b| b.commands).collect()
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

/// README.md and every page of the guide.
fn pages() -> Vec<std::path::PathBuf> {
    let mut pages = vec![std::path::Path::new(ROOT).join("README.md")];
    for entry in std::fs::read_dir(std::path::Path::new(ROOT).join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    pages
}

#[test]
fn every_documented_command_parses() {
    let pages = pages();
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
    let page = format!(
        "{page}\n```text\n$ gcs-speed-tui run --sizee 1KiB\nnot a command\n```\n\n```sh\ncat a.json | gcs-speed-tui merge --formt json -\n```\n"
    );
    let found = commands(&page);
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(refused(&found[2]).expect("--sizee is no flag").contains("--sizee"));
    assert!(refused(&found[3]).expect("--formt is no flag").contains("--formt"));
    let why = refused(&found[0]).expect("--sampels is no flag");
    assert!(why.contains("--sampels"), "{why}");
    assert_eq!(refused(&found[1]), None);
    assert_eq!(words(&found[1])[6], "{\"k\": \"v w\"}", "a quoted value is one word");
}

/// How a runnable example is scaled down to run in a test: sizes above
/// 4 MiB run at 4 MiB, `--duration` above 1 s at 1 s, `--iterations` above
/// 3 at 3; everything else as written.
fn scaled(words: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in words {
        let cap = |flag: &str, value: &str| -> Option<String> {
            match flag {
                "--size" => (gcs_speed_tui::units::parse_size(value).ok()? > 4 << 20).then(|| "4MiB".to_string()),
                "--duration" => (gcs_speed_tui::units::parse_duration(value).ok()? > std::time::Duration::from_secs(1))
                    .then(|| "1s".into()),
                "--iterations" => (value.parse::<u32>().ok()? > 3).then(|| "3".into()),
                _ => None,
            }
        };
        let previous = out.last().cloned().unwrap_or_default();
        out.push(cap(&previous, word).unwrap_or_else(|| word.clone()));
    }
    out
}

/// Runs a runnable block's commands in a directory of its own (later
/// commands read what earlier ones wrote); each must succeed, and each file
/// it names with --output, --samples or --chart must be written.
fn run_block(place: &str, block: &Block) {
    assert!(!block.commands.is_empty(), "{place}: a block marked runnable runs no gcs-speed-tui command");
    let dir = tempfile::tempdir().unwrap();
    for command in &block.commands {
        let words = scaled(&words(command));
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_gcs-speed-tui"))
            .args(&words[1..])
            .current_dir(dir.path())
            .env_remove("STORAGE_EMULATOR_HOST")
            .output()
            .unwrap();
        let said = format!("{place}: {}", words.join(" "));
        assert!(output.status.success(), "{said}\n{}", String::from_utf8_lossy(&output.stderr));
        for pair in words.windows(2).filter(|w| ["--output", "--samples", "--chart"].contains(&w[0].as_str())) {
            let written = std::fs::metadata(dir.path().join(&pair[1])).map_or(0, |m| m.len());
            assert!(written > 0, "{said}: {} {} was not written", pair[0], pair[1]);
        }
    }
}

#[test]
fn the_examples_marked_runnable_run_on_the_built_in_emulator() {
    let (mut blocks_run, mut marked) = (0, 0);
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        marked += text.lines().filter(|l| l.trim() == "```sh emulator").count();
        for (index, block) in blocks(&text).iter().enumerate().filter(|(_, b)| b.runnable) {
            run_block(&format!("{} block {index}", page.display()), block);
            blocks_run += 1;
        }
    }
    assert_eq!(blocks_run, marked, "every block marked ```sh emulator ran");
    assert!(blocks_run >= 12, "only {blocks_run} runnable examples found");
}

#[test]
fn examples_are_scaled_down_as_stated() {
    let said = |command: &str| scaled(&words(command)).join(" ");
    assert_eq!(
        said("gcs-speed-tui run --emulator --size 1GiB --range-size 64KiB --iterations 20 --duration 4s"),
        "gcs-speed-tui run --emulator --size 4MiB --range-size 64KiB --iterations 3 --duration 1s"
    );
    assert_eq!(said("gcs-speed-tui run --size 1KiB --iterations 2"), "gcs-speed-tui run --size 1KiB --iterations 2");
}
