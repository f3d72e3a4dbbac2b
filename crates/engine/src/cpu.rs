//! CPU time of the client: the whole process's, less the built-in emulator's
//! (which runs on its own threads, named so they can be told apart).

/// Threads of a server running in this process carry this name (the built-in
/// emulator names its runtime's so): their CPU is not the client's.
pub const IN_PROCESS_SERVER_THREADS: &str = "gcs-emulator";

/// User + system CPU seconds of the whole process (every thread, ns precision).
pub fn process_seconds() -> f64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own; the clock id is a constant.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut time) };
    if status != 0 {
        return 0.0;
    }
    time.tv_sec as f64 + time.tv_nsec as f64 / 1e9
}

/// CPU seconds of the emulator's threads, from /proc (ns precision).
pub fn emulator_seconds() -> f64 {
    threads_seconds(IN_PROCESS_SERVER_THREADS)
}

/// CPU seconds (user + system, ns precision, from /proc) of this process's
/// threads of this name, so far: a runtime of its own is measured apart from
/// the front end beside it.
pub fn threads_seconds(name: &str) -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return 0.0 };
    tasks
        .flatten()
        .filter(|task| std::fs::read_to_string(task.path().join("comm")).is_ok_and(|comm| comm.trim() == name))
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .map(|nanos| nanos as f64 / 1e9)
        .sum()
}

/// The client's CPU seconds so far: what the benchmark attributes to a transport.
pub fn client_seconds() -> f64 {
    process_seconds() - emulator_seconds()
}

#[cfg(test)]
mod tests {
    #[test]
    fn busy_work_shows_up_as_cpu_time() {
        let before = super::process_seconds();
        let mut x = 0u64;
        for i in 0..30_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let spent = super::process_seconds() - before;
        assert!(spent > 0.001, "{spent}");
        assert!(super::client_seconds() <= super::process_seconds());
    }
}
