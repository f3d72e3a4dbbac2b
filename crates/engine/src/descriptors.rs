//! The process's own limit on open files: raised to the hard limit at
//! start (as oha and wrk do), checked against what a run will open before
//! it starts, and named when a run meets it, so that a shortage of
//! descriptors is never reported as the server's timeouts.

/// The soft and hard `RLIMIT_NOFILE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub soft: u64,
    pub hard: u64,
}

/// Descriptors a run holds beside its connections: the runtime, logs,
/// files, the terminal, a DNS lookup.
pub const BESIDE_CONNECTIONS: u64 = 64;

pub fn limit() -> Option<Limit> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given.
    let read = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
    (read == 0).then_some(Limit { soft: limit.rlim_cur, hard: limit.rlim_max })
}

/// Raises the soft limit to the hard one; the limit as it then stands.
pub fn raise_to_hard_limit() -> Option<Limit> {
    let Limit { soft, hard } = limit()?;
    if soft < hard {
        let raised = libc::rlimit { rlim_cur: hard, rlim_max: hard };
        // SAFETY: setrlimit reads the struct it is given; raising the soft
        // limit up to the hard one needs no privilege.
        unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) };
    }
    limit()
}

/// Whether `connections` (and what a run holds beside them) fit the
/// limit; if not, what to raise, in one sentence after `what`.
pub fn fit(connections: u64, what: &str) -> Result<(), String> {
    let Some(Limit { soft, hard }) = limit() else { return Ok(()) };
    let needed = connections + BESIDE_CONNECTIONS;
    if needed <= soft {
        return Ok(());
    }
    let room = needed.next_power_of_two();
    let how = if room <= hard {
        format!("raise it with `ulimit -n {room}`")
    } else {
        format!(
            "raise the hard limit ({hard}) to {room} or more (as root: `ulimit -Hn {room}`, or in /etc/security/limits.conf) and run again"
        )
    };
    Err(format!("{what} need about {needed} open files, above this process's limit of {soft}: {how}, or ask for less"))
}

/// The process is within a few descriptors of its limit (read from
/// /proc/self/fd; false where that cannot be read).
pub fn near_the_limit() -> bool {
    let Some(Limit { soft, .. }) = limit() else { return false };
    let open = std::fs::read_dir("/proc/self/fd").map(|d| d.count() as u64).unwrap_or(0);
    open + 8 >= soft
}

/// What a failure is called when the process has run out of descriptors:
/// the kind the network named otherwise.
pub fn named(kind: &'static str) -> &'static str {
    if matches!(kind, "timeout" | "connection" | "refused") && near_the_limit() { TOO_MANY_OPEN_FILES } else { kind }
}

pub const TOO_MANY_OPEN_FILES: &str = "too many open files";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_does_not_fit_says_what_to_raise_and_what_fits_passes() {
        let Limit { soft, .. } = limit().unwrap();
        if soft > 1 << 30 {
            return; // unlimited: nothing a run opens can pass it
        }
        assert_eq!(fit(soft - BESIDE_CONNECTIONS, "these connections"), Ok(()));
        // One connection more than fits.
        let too_many = soft - BESIDE_CONNECTIONS + 1;
        let said = fit(too_many, "--concurrency 9999's connections").unwrap_err();
        let needed = too_many + BESIDE_CONNECTIONS;
        assert!(
            said.starts_with(&format!("--concurrency 9999's connections need about {needed} open files, above this process's limit of {soft}: raise")),
            "{said}"
        );
        assert!(said.contains(&needed.next_power_of_two().to_string()), "{said}");
        assert_eq!(named("reset"), "reset", "only a failure to connect or answer may be a shortage");
    }
}
