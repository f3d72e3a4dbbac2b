//! CPU time of the client: the threads of its own runtime (named, so they
//! can be told apart from the app's drawing, the CLI's printing and the
//! built-in emulator's threads), less what measuring itself took on them.

use std::sync::atomic::{AtomicU64, Ordering};

/// Threads of a server running in this process carry this name (the built-in
/// emulator names its runtime's so): their CPU is not the client's.
pub const IN_PROCESS_SERVER_THREADS: &str = "gcs-emulator";

/// CPU nanoseconds that measuring took (reading /proc, TCP_INFO of every
/// socket), on whichever thread measured: one per process, as one run at a
/// time measures in a process (a sweep's points run one after another).
static MEASURING_NANOS: AtomicU64 = AtomicU64::new(0);

/// User + system CPU seconds of the whole process (every thread, ns precision).
pub fn process_seconds() -> f64 {
    clock_seconds(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// User + system CPU seconds of the calling thread.
pub fn thread_seconds() -> f64 {
    clock_seconds(libc::CLOCK_THREAD_CPUTIME_ID)
}

fn clock_seconds(clock: libc::clockid_t) -> f64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own; the clock ids are constants.
    let status = unsafe { libc::clock_gettime(clock, &mut time) };
    if status != 0 {
        return 0.0;
    }
    time.tv_sec as f64 + time.tv_nsec as f64 / 1e9
}

/// Runs `work` as measuring, not as the client: a runner's socket and
/// /proc reads run on the client's threads, a few times a round, each
/// costing about what a small upload on loopback does, and
/// `client_seconds` leaves their CPU out.
pub fn measuring<T>(work: impl FnOnce() -> T) -> T {
    let before = thread_seconds();
    let out = work();
    let nanos = ((thread_seconds() - before) * 1e9) as u64;
    MEASURING_NANOS.fetch_add(nanos, Ordering::Relaxed);
    out
}

/// CPU seconds measuring has taken so far.
fn measuring_seconds() -> f64 {
    MEASURING_NANOS.load(Ordering::Relaxed) as f64 / 1e9
}

/// CPU seconds of the emulator's threads, from /proc (ns precision).
pub fn emulator_seconds() -> f64 {
    threads_seconds(IN_PROCESS_SERVER_THREADS)
}

/// CPU seconds (user + system, ns precision, from /proc) of this process's
/// threads of this name, so far: a runtime of its own is measured apart from
/// the front end beside it. Only threads alive now count: threads measured
/// this way must outlive what they measure (a runtime's, kept for the run).
pub fn threads_seconds(name: &str) -> f64 {
    measuring(|| threads_seconds_read(name))
}

fn threads_seconds_read(name: &str) -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return 0.0 };
    tasks
        .flatten()
        .filter(|task| std::fs::read_to_string(task.path().join("comm")).is_ok_and(|comm| comm.trim() == name))
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .map(|nanos| nanos as f64 / 1e9)
        .sum()
}

/// The CPU seconds so far of the client whose threads carry `name`, less
/// what measuring took: what a round attributes to its transport is the
/// difference of two readings. Its own reading of /proc is measuring too;
/// the two readings' shares of theirs that fall inside the round cancel.
pub fn client_seconds(name: &str) -> f64 {
    threads_seconds(name) - measuring_seconds()
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
    }

    #[test]
    fn what_measuring_takes_is_not_the_clients() {
        // A thread of the client's name spins 30 ms of its CPU as
        // measuring, then 30 ms more as itself: the first shows in the
        // thread's own figure but not the client's, the second in both.
        let name = "cpu-test-client";
        let spin = |cpu_s: f64| {
            let start = super::thread_seconds();
            while super::thread_seconds() - start < cpu_s {
                std::hint::black_box(0u64);
            }
        };
        let (threads, client, own) = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                let (threads, client) = (super::threads_seconds(name), super::client_seconds(name));
                super::measuring(|| spin(0.03));
                let (threads_after, client_after) = (super::threads_seconds(name), super::client_seconds(name));
                spin(0.03);
                let own = super::client_seconds(name) - client_after;
                (threads_after - threads, client_after - client, own)
            })
            .unwrap()
            .join()
            .unwrap();
        // /proc's figure for a running thread may lag its clock by a tick (4 ms).
        assert!(threads >= 0.025, "the thread spun 30 ms: {threads} s");
        assert!(client < 0.01, "measuring is not the client's: {client} s of {threads}");
        assert!((0.02..0.05).contains(&own), "the client's own 30 ms are its: {own} s");
    }
}
