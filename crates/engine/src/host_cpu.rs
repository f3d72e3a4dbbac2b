//! The CPU a round's client had to share: the host's, every core and every
//! process, and the tool's own process against the CPUs it may use (its
//! affinity, or a cgroup's quota: a Kubernetes pod's limit). A client that
//! costs more CPU on one transport loses for its own reasons only where
//! there was none to spare, so each round keeps this beside the client's
//! own CPU (`cost_caution` reads both).

use std::time::Instant;

/// What a round's CPU came to, in CPU seconds; rounds' add up.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct HostCpu {
    /// The host's cores spent busy, by any process or the kernel: user,
    /// nice, system, irq, softirq, and steal (what a VM's host kept from
    /// it), from /proc/stat (0 where it cannot be read).
    pub busy_s: f64,
    /// All of the host's cores, busy or not (idle and iowait added).
    pub all_s: f64,
    /// The tool's process (every thread: the client's, a built-in emulator's).
    #[serde(default)]
    pub process_s: f64,
    /// What the process may use: the wall time x the CPUs it may run on
    /// (`std::thread::available_parallelism`: its affinity, its cgroup's quota).
    #[serde(default)]
    pub process_allowed_s: f64,
}

impl HostCpu {
    /// Two spans' CPU together (folded rounds, a transport's rounds).
    pub fn plus(self, other: HostCpu) -> HostCpu {
        HostCpu {
            busy_s: self.busy_s + other.busy_s,
            all_s: self.all_s + other.all_s,
            process_s: self.process_s + other.process_s,
            process_allowed_s: self.process_allowed_s + other.process_allowed_s,
        }
    }

    /// The busier of the host's share busy and the process's share of what
    /// it may use, 0 to 1: either way the client had little to spare.
    /// `None` for no time.
    pub fn busy_share(&self) -> Option<f64> {
        let share = |used: f64, all: f64| (all > 0.0).then(|| (used / all).clamp(0.0, 1.0));
        match (share(self.busy_s, self.all_s), share(self.process_s, self.process_allowed_s)) {
            (Some(host), Some(process)) => Some(host.max(process)),
            (host, process) => host.or(process),
        }
    }

    /// Rounds' readings added up; `None` if any round has none (a report
    /// written before rounds kept them), so a share never covers part of
    /// the rounds it is said of.
    pub fn total<'a>(readings: impl IntoIterator<Item = Option<&'a HostCpu>>) -> Option<HostCpu> {
        readings.into_iter().try_fold(HostCpu::default(), |sum, reading| Some(sum.plus(*reading?)))
    }
}

/// The counters at one instant.
struct Reading {
    /// The host's busy and all seconds; `None` where /proc/stat cannot be read.
    host: Option<(f64, f64)>,
    process_s: f64,
    at: Instant,
}

impl Reading {
    fn now() -> Reading {
        let stat = crate::cpu::measuring(|| std::fs::read_to_string("/proc/stat").ok());
        // Clock ticks per second: /proc/stat counts in them (USER_HZ).
        // SAFETY: sysconf reads a constant of the system; no memory is passed.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        let ticks = if ticks > 0 { ticks as f64 } else { 100.0 };
        Reading {
            host: stat.and_then(|stat| parse(&stat, ticks)),
            process_s: crate::cpu::process_seconds(),
            at: Instant::now(),
        }
    }

    /// What the CPU did between `earlier` and this reading, for a process
    /// that may use `cpus` CPUs.
    fn since(&self, earlier: &Reading, cpus: usize) -> HostCpu {
        let (busy_s, all_s) = match (self.host, earlier.host) {
            (Some(now), Some(before)) => (now.0 - before.0, now.1 - before.1),
            _ => (0.0, 0.0),
        };
        let wall_s = self.at.duration_since(earlier.at).as_secs_f64();
        HostCpu {
            busy_s,
            all_s,
            process_s: self.process_s - earlier.process_s,
            process_allowed_s: wall_s * cpus as f64,
        }
    }
}

/// The CPU a round takes, read at its start and end: its client's threads'
/// (`cpu::client_seconds`), the host's and the tool's process's.
pub struct RoundCpu {
    client: &'static str,
    client_before: f64,
    before: Reading,
}

/// What a round's CPU came to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoundCpuTaken {
    /// CPU seconds of the client's threads, less what measuring took.
    pub client_s: f64,
    /// The host's and the process's CPU over the round.
    pub host: HostCpu,
}

impl RoundCpu {
    /// Starts measuring the client whose threads carry the name `client`.
    pub fn start(client: &'static str) -> Self {
        RoundCpu { client, client_before: crate::cpu::client_seconds(client), before: Reading::now() }
    }

    pub fn stop(self) -> RoundCpuTaken {
        let client_s = crate::cpu::client_seconds(self.client) - self.client_before;
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        RoundCpuTaken { client_s, host: Reading::now().since(&self.before, cpus) }
    }
}

/// /proc/stat's first line: `cpu  user nice system idle iowait irq softirq
/// steal guest guest_nice`, in clock ticks. Guest time is already counted in
/// user and nice, so it is not added again.
fn parse(stat: &str, ticks_per_s: f64) -> Option<(f64, f64)> {
    let line = stat.lines().find(|line| line.starts_with("cpu "))?;
    let fields: Vec<u64> = line.split_whitespace().skip(1).map(|f| f.parse().ok()).collect::<Option<_>>()?;
    if fields.len() < 4 {
        return None;
    }
    // Kernels before 2.6.33 give fewer fields: those missing were not counted.
    let field = |i: usize| fields.get(i).copied().unwrap_or(0);
    let [user, nice, system, idle, iowait, irq, softirq, steal] = std::array::from_fn(field);
    let busy = user + nice + system + irq + softirq + steal;
    Some((busy as f64 / ticks_per_s, (busy + idle + iowait) as f64 / ticks_per_s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn proc_stat_is_read_as_busy_and_all_in_seconds() {
        // user 600, nice 100, system 200, idle 9,000, iowait 50, irq 10,
        // softirq 20, steal 20, guest 300 (within user): busy 950, all
        // 10,000 ticks; at 250 a second, 3.8 and 40 s.
        let stat = "cpu  600 100 200 9000 50 10 20 20 300 0\ncpu0 1 2 3 4 5 6 7 8 9 0\nintr 1\n";
        let (busy, all) = parse(stat, 250.0).unwrap();
        assert!((busy - 3.8).abs() < 1e-9 && (all - 40.0).abs() < 1e-9, "{busy} of {all}");
        // An old kernel's four fields: user 1, nice 2, system 3 busy; idle 4.
        let (busy, all) = parse("cpu  1 2 3 4\n", 100.0).unwrap();
        assert!((busy - 0.06).abs() < 1e-9 && (all - 0.10).abs() < 1e-9, "{busy} of {all}");
        assert_eq!(parse("cpu0 1 2 3 4\n", 100.0), None, "no all-cores line");
        assert_eq!(parse("cpu  1 2\n", 100.0), None, "too few fields");
    }

    #[test]
    fn a_span_is_the_difference_of_two_readings() {
        let at = Instant::now();
        let earlier = Reading { host: Some((10.0, 40.0)), process_s: 5.0, at };
        // 2 s later, for a process that may use 3 CPUs: 6 CPU-s allowed.
        let later = Reading { host: Some((13.0, 44.0)), process_s: 6.5, at: at + Duration::from_secs(2) };
        let expected = HostCpu { busy_s: 3.0, all_s: 4.0, process_s: 1.5, process_allowed_s: 6.0 };
        assert_eq!(later.since(&earlier, 3), expected);
        let unread = Reading { host: None, ..later };
        assert_eq!(unread.since(&earlier, 3), HostCpu { busy_s: 0.0, all_s: 0.0, ..expected }, "no /proc/stat");
    }

    #[test]
    fn the_busier_share_counts() {
        let host_busier = HostCpu { busy_s: 3.0, all_s: 4.0, process_s: 1.5, process_allowed_s: 6.0 };
        assert_eq!(host_busier.busy_share(), Some(0.75), "the host's 75% against the process's 25%");
        // The process held to its quota: 0.9 of what it may use, on an idle host.
        let pod = HostCpu { busy_s: 1.0, all_s: 40.0, process_s: 1.8, process_allowed_s: 2.0 };
        assert!((pod.busy_share().unwrap() - 0.9).abs() < 1e-9, "{pod:?}");
        let no_proc_stat = HostCpu { busy_s: 0.0, all_s: 0.0, ..pod };
        assert!((no_proc_stat.busy_share().unwrap() - 0.9).abs() < 1e-9, "the process's share alone");
        // A round written before the process was read: the host's alone.
        let host_only: HostCpu = serde_json::from_str(r#"{"busy_s": 3, "all_s": 4}"#).unwrap();
        assert_eq!(host_only.busy_share(), Some(0.75));
        let over = HostCpu { process_s: 3.0, process_allowed_s: 2.0, ..HostCpu::default() };
        assert_eq!(over.busy_share(), Some(1.0), "a share is at most all of it");
        assert_eq!(HostCpu::default().busy_share(), None, "no time, no share");
    }

    #[test]
    fn rounds_add_up_and_a_round_without_a_reading_leaves_no_share() {
        let a = HostCpu { busy_s: 3.0, all_s: 4.0, process_s: 1.0, process_allowed_s: 4.0 };
        let b = HostCpu { busy_s: 1.0, all_s: 4.0, process_s: 0.5, process_allowed_s: 4.0 };
        let sum = HostCpu { busy_s: 4.0, all_s: 8.0, process_s: 1.5, process_allowed_s: 8.0 };
        assert_eq!(HostCpu::total([Some(&a), Some(&b)]), Some(sum));
        assert_eq!(HostCpu::total([Some(&a), None]), None, "a round without a reading: no share");
    }

    /// The host's online CPUs, whatever this thread's affinity or quota.
    fn online_cores() -> usize {
        // SAFETY: sysconf reads a constant of the system.
        unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) as usize }
    }

    #[test]
    fn cores_kept_spinning_read_as_busy() {
        // Every online core spun for 300 ms in this process: their CPU is
        // the host's busy time and the process's, and the host's all is
        // the wall time x its cores.
        let cores = online_cores();
        let before = Reading::now();
        let spinners: Vec<_> = (0..cores)
            .map(|_| {
                std::thread::spawn(|| {
                    let start = Instant::now();
                    while start.elapsed() < Duration::from_millis(300) {
                        std::hint::black_box(0u64);
                    }
                    crate::cpu::thread_seconds()
                })
            })
            .collect();
        let spun: f64 = spinners.into_iter().map(|s| s.join().unwrap()).sum();
        let after = Reading::now();
        let span = after.since(&before, cores);
        let wall_all = after.at.duration_since(before.at).as_secs_f64() * cores as f64;
        // /proc/stat counts in ticks (10 ms at 100 a second): two a core of slack.
        let ticks = 0.02 * cores as f64;
        assert!(spun >= 0.1 * cores as f64, "the spinners ran: {spun} s");
        assert!((span.all_s - wall_all).abs() <= ticks + 0.01 * wall_all, "{wall_all} s: {span:?}");
        assert!(span.busy_s >= 0.8 * spun, "the spinners' {spun} s are the host's busy time: {span:?}");
        assert!(span.process_s >= spun - 0.005, "and the process's: {span:?}");
        assert!(span.process_s <= span.process_allowed_s * 1.05 + 0.02, "at most what it may use: {span:?}");
    }
}
