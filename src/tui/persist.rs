//! The form's last values, kept between sessions in the user's config
//! directory (XDG). Credentials, the emulator override and injected faults
//! are never written.

use crate::finished::Finished;
use crate::targets::FormOptions;
use std::path::{Path, PathBuf};

/// `$XDG_CONFIG_HOME/gcs-speed-tui`, else `~/.config/gcs-speed-tui`.
pub fn config_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))?;
    Some(base.join("gcs-speed-tui"))
}

fn form_file() -> Option<PathBuf> {
    config_dir().map(|dir| dir.join("form.json"))
}

/// The remembered form, or the defaults when there is none (or it is unreadable).
pub fn load() -> FormOptions {
    form_file().map(|path| load_from(&path)).unwrap_or_default()
}

pub fn load_from(path: &Path) -> FormOptions {
    std::fs::read_to_string(path).ok().and_then(|text| serde_json::from_str(&text).ok()).unwrap_or_default()
}

/// Runs kept for the history pane across sessions.
pub const HISTORY_LIMIT: usize = 50;

/// `$XDG_DATA_HOME/gcs-speed-tui/runs`, else `~/.local/share/gcs-speed-tui/runs`.
pub fn runs_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/share")))?;
    Some(base.join("gcs-speed-tui").join("runs"))
}

/// The kept runs, oldest first (run ids sort by time); files that do not
/// read as a report are skipped, not deleted.
pub fn load_runs() -> Vec<Finished> {
    runs_dir().map(|dir| load_runs_from(&dir)).unwrap_or_default()
}

pub fn load_runs_from(dir: &Path) -> Vec<Finished> {
    let mut runs: Vec<Finished> = run_files(dir)
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .filter_map(|text| serde_json::from_str(&text).ok())
        .collect();
    // Run ids name the second only (a sweep starts several in one): the
    // start's milliseconds keep the order a session saw.
    runs.sort_by(|a: &Finished, b: &Finished| a.started_at().cmp(b.started_at()));
    runs
}

/// Keeps a run as `RUN-ID.json`, the same JSON as export and `run --format
/// json`, and forgets the oldest beyond `HISTORY_LIMIT` (only files it wrote).
pub fn save_run(report: &Finished) -> std::io::Result<()> {
    match runs_dir() {
        Some(dir) => save_run_in(&dir, report),
        None => Ok(()),
    }
}

pub fn save_run_in(dir: &Path, report: &Finished) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join(format!("{}.json", report.run_id())), report.to_json() + "\n")?;
    let files = run_files(dir);
    for old in &files[..files.len().saturating_sub(HISTORY_LIMIT)] {
        std::fs::remove_file(old)?;
    }
    Ok(())
}

/// This tool's run files in `dir`, oldest first: `YYYYMMDD-HHMMSS-XXXX.json`.
fn run_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(is_run_file_name))
        .collect();
    files.sort();
    files
}

fn is_run_file_name(name: &str) -> bool {
    let Some(id) = name.strip_suffix(".json") else { return false };
    let bytes = id.as_bytes();
    bytes.len() == 20
        && bytes.iter().enumerate().all(|(i, b)| match i {
            8 | 15 => *b == b'-',
            16.. => b.is_ascii_hexdigit(),
            _ => b.is_ascii_digit(),
        })
}

pub fn save(options: &FormOptions) -> std::io::Result<()> {
    match form_file() {
        Some(path) => save_to(&path, options),
        None => Ok(()),
    }
}

/// The Target field alone, into the remembered form: switching targets is
/// remembered at once (quitting then reopens on it), while the other fields'
/// edits wait for a run, as before.
pub fn save_target(target: &str) -> std::io::Result<()> {
    match form_file() {
        Some(path) => save_target_to(&path, target),
        None => Ok(()),
    }
}

pub fn save_target_to(path: &Path, target: &str) -> std::io::Result<()> {
    let options = FormOptions { target: target.into(), ..load_from(path) };
    save_to(path, &options)
}

pub fn save_to(path: &Path, options: &FormOptions) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    // `credentials`, `emulator` and `emulator_fault` are skipped by serde: a key
    // path, a target override and an injected fault are the user's to ask for each time.
    let text = serde_json::to_string_pretty(options).map_err(std::io::Error::other)?;
    std::fs::write(path, text)
}

#[cfg(test)]
mod tests {
    use crate::config::{FormOptions, Options};
    use crate::etcd::form::EtcdOptions;

    /// A form that runs GCS with `options` (their schedule the form's).
    fn gcs_form(options: Options) -> FormOptions {
        FormOptions::with(options.clone(), options.schedule_args())
    }

    #[test]
    fn a_new_target_is_remembered_alone_and_reopened_on() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("form.json");
        super::save_target_to(&path, "etcd").unwrap();
        assert_eq!(
            super::load_from(&path),
            FormOptions { target: "etcd".into(), ..FormOptions::default() },
            "no form yet"
        );
        let ran = gcs_form(Options { size: "8MiB".into(), ..Options::default() });
        super::save_to(&path, &ran).unwrap();
        super::save_target_to(&path, "etcd").unwrap();
        let reopened = super::load_from(&path);
        assert_eq!(
            (reopened.target.as_str(), reopened.options::<Options>().size.as_str()),
            ("etcd", "8MiB"),
            "the rest stays as last run"
        );
    }

    #[test]
    fn a_form_naming_a_target_this_tool_does_not_know_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("form.json");
        std::fs::write(&path, r#"{"size":"8MiB","target":"gsc"}"#).unwrap();
        let error = serde_json::from_str::<FormOptions>(&std::fs::read_to_string(&path).unwrap()).unwrap_err();
        assert!(
            error.to_string().starts_with("'gsc' is not a target this tool knows: one of gcs, etcd, grpc"),
            "{error}"
        );
        // The defaults, not a GCS run of the other target's fields.
        assert_eq!(super::load_from(&path), FormOptions::default());
    }

    #[test]
    fn faults_and_the_emulator_override_are_never_remembered() {
        let options = gcs_form(Options {
            size: "8MiB".into(),
            emulator: true,
            emulator_fault: "return-503:every=3".into(),
            credentials: "/keys/k.json".into(),
            ..Options::default()
        });
        let text = serde_json::to_string_pretty(&options).unwrap();
        for secret in ["emulator", "return-503", "/keys/k.json"] {
            assert!(!text.contains(secret), "{secret} was written: {text}");
        }
        let back: FormOptions = serde_json::from_str(&text).unwrap();
        assert_eq!(back, gcs_form(Options { size: "8MiB".into(), ..Options::default() }));
    }

    #[test]
    fn a_form_written_before_the_gcs_options_became_a_crate_still_loads() {
        // The flat shape every earlier version wrote: GCS keys (the schedule's
        // among them), target, etcd.
        let text = r#"{"bucket":"b","size":"8MiB","iterations":"7","cleanup":false,"target":"etcd","etcd":{"user":"alice","clients":"4"}}"#;
        let back: FormOptions = serde_json::from_str(text).unwrap();
        assert_eq!((back.options::<Options>().bucket.as_str(), back.options::<Options>().size.as_str()), ("b", "8MiB"));
        assert_eq!(
            (
                back.target.as_str(),
                back.options::<EtcdOptions>().user.as_str(),
                back.options::<EtcdOptions>().clients.as_str()
            ),
            ("etcd", "alice", "4")
        );
        assert_eq!((back.schedule.iterations.as_str(), back.schedule.cleanup), ("7", false), "the schedule's, read");
        assert_eq!(back.schedule.duration, "", "what it lacks takes its default");
        assert_eq!(back.options::<Options>().chunk_size, Options::default().chunk_size);
        let written: serde_json::Value = serde_json::to_value(&back).unwrap();
        assert_eq!(
            (written["size"].as_str(), written["iterations"].as_str(), written["target"].as_str()),
            (Some("8MiB"), Some("7"), Some("etcd")),
            "written flat again"
        );
        // A schedule edited in the form (as the app does) is what is written and read back.
        let mut edited = back;
        *edited.text("iterations").unwrap() = "9".into();
        let again: FormOptions = serde_json::from_str(&serde_json::to_string(&edited).unwrap()).unwrap();
        assert_eq!(again.schedule.iterations, "9");
        assert_eq!(again, edited);
    }
}

#[cfg(test)]
mod history_tests {
    use super::*;

    #[test]
    fn only_run_files_count_and_the_oldest_go_beyond_the_limit() {
        assert!(is_run_file_name("20261130-060000-abcd.json"));
        for other in ["notes.json", "20261130-060000-abcd.json.bak", "2026113-0060000-abcd.json", "form.json"] {
            assert!(!is_run_file_name(other), "{other}");
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("mine.txt"), "the user's").unwrap();
        for i in 0..HISTORY_LIMIT + 3 {
            std::fs::write(dir.path().join(format!("20260101-{:06}-abcd.json", i)), "{}").unwrap();
        }
        let files = run_files(dir.path());
        assert_eq!(files.len(), HISTORY_LIMIT + 3);
        assert!(load_runs_from(dir.path()).is_empty(), "files that are not reports are skipped");
        assert!(dir.path().join("mine.txt").exists());
    }
}
