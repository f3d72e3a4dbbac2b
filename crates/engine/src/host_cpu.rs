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

    /// What the CPU did between `earlier` and this reading.
    fn since(&self, earlier: &Reading) -> HostCpu {
        let (busy_s, all_s) = match (self.host, earlier.host) {
            (Some(now), Some(before)) => (now.0 - before.0, now.1 - before.1),
            _ => (0.0, 0.0),
        };
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
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
    pub host: Option<HostCpu>,
}

impl RoundCpu {
    /// Starts measuring the client whose threads carry the name `client`.
    pub fn start(client: &'static str) -> Self {
        RoundCpu { client, client_before: crate::cpu::client_seconds(client), before: Reading::now() }
    }

    pub fn stop(self) -> RoundCpuTaken {
        let client_s = crate::cpu::client_seconds(self.client) - self.client_before;
        RoundCpuTaken { client_s, host: Some(Reading::now().since(&self.before)) }
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
        // softirq 20, steal 20, guest 300 (within user): busy 950, all 10,000.
        let stat = "cpu  600 100 200 9000 50 10 20 20 300 0\ncpu0 1 2 3 4 5 6 7 8 9 0\nintr 1\n";
        let (busy, all) = parse(stat, 100.0).unwrap();
        assert!((busy - 9.5).abs() < 1e-9 && (all - 100.0).abs() < 1e-9, "{busy} of {all}");
        assert_eq!(parse("cpu0 1 2 3 4\n", 100.0), None, "no all-cores line");
        assert_eq!(parse("cpu  1 2\n", 100.0), None, "too few fields");
    }

    #[test]
    fn a_span_is_the_difference_of_two_readings_and_the_busier_share_counts() {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        let at = Instant::now();
        let earlier = Reading { host: Some((10.0, 40.0)), process_s: 5.0, at };
        // 2 s later: the host 3 of 4 CPU-s busy; the process used 0.5 of each CPU it may use.
        let later = Reading { host: Some((13.0, 44.0)), process_s: 5.0 + cpus, at: at + Duration::from_secs(2) };
        let span = later.since(&earlier);
        let expected = HostCpu { busy_s: 3.0, all_s: 4.0, process_s: cpus, process_allowed_s: 2.0 * cpus };
        assert_eq!(span, expected);
        assert_eq!(span.busy_share(), Some(0.75), "the host's 75% is the busier");
        // The process held to its quota: 0.9 of what it may use, on an idle host.
        let pod = HostCpu { busy_s: 1.0, all_s: 40.0, process_s: 1.8, process_allowed_s: 2.0 };
        assert!((pod.busy_share().unwrap() - 0.9).abs() < 1e-9, "{pod:?}");
        let no_proc_stat = HostCpu { busy_s: 0.0, all_s: 0.0, ..pod };
        assert!((no_proc_stat.busy_share().unwrap() - 0.9).abs() < 1e-9, "the process's share alone");
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

    #[test]
    fn cores_kept_spinning_read_as_busy() {
        // Every core spun for 300 ms in this process: the host's share is
        // near 1 (a quiet host would read near 0), the process's CPU holds
        // at least the spinners' own, and what it may use is the wall time
        // x its CPUs.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
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
        let span = after.since(&before);
        let wall_s = after.at.duration_since(before.at).as_secs_f64();
        assert!(span.all_s >= 0.3 * cores as f64 * 0.8, "{cores} cores over 300 ms: {span:?}");
        assert!(span.busy_s / span.all_s > 0.8, "every core spun: {span:?}");
        assert!(span.process_s >= spun - 0.005, "the spinners' {spun} s are the process's: {span:?}");
        assert!((span.process_allowed_s - wall_s * cores as f64).abs() < 1e-9, "{span:?}");
    }
}
