//! GCS's own rules, which the client checks before a run and the emulator
//! enforces as the service does.

/// Every resumable chunk but the last is a multiple of this.
pub const CHUNK_ALIGNMENT: u64 = 256 * 1024;

/// GCS bucket naming rules (the common subset): 3-63 characters of lowercase
/// letters, digits, dashes, underscores and dots, starting and ending with a
/// letter or digit.
pub fn validate_bucket_name(name: &str) -> Result<(), String> {
    if name.parse::<std::net::IpAddr>().is_ok() {
        return Err(format!("'{name}' is not a valid bucket name: GCS forbids IP addresses as names"));
    }
    let ok_chars = name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'));
    let ends_ok = |c: Option<char>| c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    let max = if name.contains('.') { 222 } else { 63 };
    if name.starts_with("goog") {
        return Err(format!("'{name}' is not a valid bucket name: GCS reserves names that start with \"goog\""));
    }
    if (3..=max).contains(&name.len())
        && ok_chars
        && ends_ok(name.chars().next())
        && ends_ok(name.chars().last())
        && !name.starts_with("goog")
    {
        Ok(())
    } else {
        Err(format!(
            "'{name}' is not a valid bucket name: use 3-63 lowercase letters, digits, dashes, \
             underscores or dots, starting and ending with a letter or digit"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_names_follow_gcs_rules() {
        for good in ["abc", "my-bucket_1", "a.b.c"] {
            assert!(validate_bucket_name(good).is_ok(), "{good}");
        }
        for bad in ["ab", "Upper", "-start", "end-", "goog-x", "has space", "192.168.1.1", &"x".repeat(64)] {
            assert!(validate_bucket_name(bad).is_err(), "{bad}");
        }
    }
}
