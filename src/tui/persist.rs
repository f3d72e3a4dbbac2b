//! The form's last values, kept between sessions in the user's config
//! directory (XDG). Credentials, the emulator override and injected faults
//! are never written.

use crate::config::Options;
use std::path::PathBuf;

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
pub fn load() -> Options {
    form_file()
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default()
}

pub fn save(options: &Options) -> std::io::Result<()> {
    let Some(path) = form_file() else {
        return Ok(());
    };
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
    use crate::config::Options;

    #[test]
    fn faults_and_the_emulator_override_are_never_remembered() {
        let options = Options {
            size: "8MiB".into(),
            emulator: true,
            emulator_fault: "return-503:every=3".into(),
            credentials: "/keys/k.json".into(),
            ..Options::default()
        };
        let text = serde_json::to_string_pretty(&options).unwrap();
        for secret in ["emulator", "return-503", "/keys/k.json"] {
            assert!(!text.contains(secret), "{secret} was written: {text}");
        }
        let back: Options = serde_json::from_str(&text).unwrap();
        assert_eq!(back, Options { size: "8MiB".into(), ..Options::default() });
    }
}
