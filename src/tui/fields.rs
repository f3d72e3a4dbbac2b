//! The app's words for a sentence's flags: each `--flag` the form has a
//! field for, said as that field's label (each target's fields are the
//! registry's, `crate::targets::fields_of`).

pub use crate::targets::{Field, Kind};

/// `text` with each `--flag` the form has a field for said as that field's
/// label ("--user needs --password" reads "User needs Password";
/// "--cleanup=false" reads "Cleanup off"). Sentences shared with the CLI
/// (validation, notes, verdicts) keep their flags; the app says them in its
/// own words here, in one place. The target's own fields come first (its
/// labels differ: Prefix against Key prefix); a flag neither form has stays.
pub fn in_form_words(text: &str, target: &str) -> String {
    let fields = crate::targets::labels(target);
    let label = |flag: &str| {
        let key = flag.replace('-', "_");
        fields.clone().find(|f| f.key == key).map(|f| f.label)
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("--") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let len =
            after.find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')).unwrap_or(after.len());
        let flag = after[..len].trim_end_matches('-');
        // Only a flag at a word's start: "a--b" or "---" are not flags.
        let starts_word = out.chars().last().is_none_or(|c| !c.is_alphanumeric());
        match label(flag).filter(|_| starts_word && !flag.is_empty()) {
            Some(label) => {
                out.push_str(label);
                rest = &after[flag.len()..];
                for (said, word) in [("=false", " off"), ("=true", " on")] {
                    if let Some(tail) = rest.strip_prefix(said) {
                        out.push_str(word);
                        rest = tail;
                    }
                }
            }
            None => {
                out.push_str("--");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::in_form_words;

    #[test]
    fn flags_are_said_as_the_fields_that_set_them() {
        // Each expected sentence is the input with the flag swapped for the label in FIELDS/ETCD_FIELDS.
        assert_eq!(
            in_form_words("--user needs --password (or ETCD_PASSWORD)", "etcd"),
            "User needs Password (or ETCD_PASSWORD)"
        );
        assert_eq!(
            in_form_words("--warmup-size must be between 1 B and 5 TiB", "gcs"),
            "Warmup size must be between 1 B and 5 TiB"
        );
        assert_eq!(
            in_form_words("keeping what this run created (--cleanup=false)", "gcs"),
            "keeping what this run created (Cleanup off)"
        );
        assert_eq!(in_form_words("--prefix needs a name", "etcd"), "Key prefix needs a name", "the etcd form's label");
        assert_eq!(in_form_words("--prefix '/a' is used as 'a'", "gcs"), "Prefix '/a' is used as 'a'");
        assert_eq!(
            in_form_words("add --endpoint URL (or STORAGE_EMULATOR_HOST), or use --transports grpc", "gcs"),
            "add JSON endpoint URL (or STORAGE_EMULATOR_HOST), or use Transports grpc"
        );
        assert_eq!(
            in_form_words("see --format json, a--b and ---", "gcs"),
            "see --format json, a--b and ---",
            "not fields"
        );
    }
}
