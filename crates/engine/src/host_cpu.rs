//! The host's CPU over a round, every core and every process: how much of
//! it was busy. A client that costs more CPU on one transport loses for its
//! own reasons only where the host had none to spare, so each round keeps
//! this beside the client's own CPU (`cost_caution` reads both).

/// CPU seconds of all the host's cores, from /proc/stat: a reading, or
/// (after `since`) what a round took.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct HostCpu {
    /// Spent busy, by any process or the kernel: user, nice, system, irq,
    /// softirq, and steal (what a VM's host kept from it).
    pub busy_s: f64,
    /// All of it, busy or not (idle and iowait added): the cores' capacity
    /// over the same time.
    pub all_s: f64,
}

impl HostCpu {
    /// The host's CPU so far; `None` where /proc/stat cannot be read (not Linux).
    pub fn now() -> Option<HostCpu> {
        // Clock ticks per second: /proc/stat counts in them (USER_HZ).
        // SAFETY: sysconf reads a constant of the system; no memory is passed.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        let stat = crate::cpu::measuring(|| std::fs::read_to_string("/proc/stat").ok())?;
        parse(&stat, if ticks > 0 { ticks as f64 } else { 100.0 })
    }

    /// What the host's CPU did between `earlier` and this reading.
    pub fn since(self, earlier: HostCpu) -> HostCpu {
        HostCpu { busy_s: self.busy_s - earlier.busy_s, all_s: self.all_s - earlier.all_s }
    }

    /// Two spans' CPU together (folded rounds, a transport's rounds).
    pub fn plus(self, other: HostCpu) -> HostCpu {
        HostCpu { busy_s: self.busy_s + other.busy_s, all_s: self.all_s + other.all_s }
    }

    /// The share of the host's CPU that was busy, 0 to 1; `None` for no time.
    pub fn busy_share(&self) -> Option<f64> {
        (self.all_s > 0.0).then(|| (self.busy_s / self.all_s).clamp(0.0, 1.0))
    }

    /// Rounds' readings added up; `None` if any round has none (a report
    /// written before rounds kept them), so a share never covers part of
    /// the rounds it is said of.
    pub fn total<'a>(readings: impl IntoIterator<Item = Option<&'a HostCpu>>) -> Option<HostCpu> {
        readings.into_iter().try_fold(HostCpu::default(), |sum, reading| Some(sum.plus(*reading?)))
    }
}

/// The CPU a round takes, read at its start and end: its client's threads'
/// (`cpu::client_seconds`) and the host's.
pub struct RoundCpu {
    client: &'static str,
    client_before: f64,
    host_before: Option<HostCpu>,
}

/// What a round's CPU came to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoundCpuTaken {
    /// CPU seconds of the client's threads, less what measuring took.
    pub client_s: f64,
    /// The host's CPU over the round; `None` where it cannot be read.
    pub host: Option<HostCpu>,
}

impl RoundCpu {
    /// Starts measuring the client whose threads carry the name `client`.
    pub fn start(client: &'static str) -> Self {
        RoundCpu { client, client_before: crate::cpu::client_seconds(client), host_before: HostCpu::now() }
    }

    pub fn stop(self) -> RoundCpuTaken {
        RoundCpuTaken {
            client_s: crate::cpu::client_seconds(self.client) - self.client_before,
            host: HostCpu::now().zip(self.host_before).map(|(now, before)| now.since(before)),
        }
    }
}

/// /proc/stat's first line: `cpu  user nice system idle iowait irq softirq
/// steal guest guest_nice`, in clock ticks. Guest time is already counted in
/// user and nice, so it is not added again.
fn parse(stat: &str, ticks_per_s: f64) -> Option<HostCpu> {
    let line = stat.lines().find(|line| line.starts_with("cpu "))?;
    let fields: Vec<u64> = line.split_whitespace().skip(1).map(|f| f.parse().ok()).collect::<Option<_>>()?;
    if fields.len() < 4 {
        return None;
    }
    // Kernels before 2.6.33 give fewer fields: those missing were not counted.
    let field = |i: usize| fields.get(i).copied().unwrap_or(0);
    let [user, nice, system, idle, iowait, irq, softirq, steal] = std::array::from_fn(field);
    let busy = user + nice + system + irq + softirq + steal;
    Some(HostCpu { busy_s: busy as f64 / ticks_per_s, all_s: (busy + idle + iowait) as f64 / ticks_per_s })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_is_read_as_busy_and_all_in_seconds() {
        // user 600, nice 100, system 200, idle 9,000, iowait 50, irq 10,
        // softirq 20, steal 20, guest 300 (within user): busy 950, all 10,000.
        let stat = "cpu  600 100 200 9000 50 10 20 20 300 0\ncpu0 1 2 3 4 5 6 7 8 9 0\nintr 1\n";
        let read = parse(stat, 100.0).unwrap();
        assert!((read.busy_s - 9.5).abs() < 1e-9, "{read:?}");
        assert!((read.all_s - 100.0).abs() < 1e-9, "{read:?}");
        assert!((read.busy_share().unwrap() - 0.095).abs() < 1e-9);
        assert_eq!(parse("cpu0 1 2 3 4\n", 100.0), None, "no all-cores line");
        assert_eq!(parse("cpu  1 2\n", 100.0), None, "too few fields");
    }

    #[test]
    fn a_span_is_the_difference_of_two_readings_and_spans_add_up() {
        let earlier = HostCpu { busy_s: 10.0, all_s: 40.0 };
        let later = HostCpu { busy_s: 13.0, all_s: 44.0 };
        let span = later.since(earlier);
        assert_eq!(span, HostCpu { busy_s: 3.0, all_s: 4.0 });
        assert_eq!(span.busy_share(), Some(0.75));
        let other = HostCpu { busy_s: 1.0, all_s: 4.0 };
        assert_eq!(HostCpu::total([Some(&span), Some(&other)]), Some(HostCpu { busy_s: 4.0, all_s: 8.0 }));
        assert_eq!(HostCpu::total([Some(&span), None]), None, "a round without a reading: no share");
        assert_eq!(HostCpu::default().busy_share(), None, "no time, no share");
    }

    #[test]
    fn cores_kept_spinning_read_as_a_busy_host() {
        // Every core spun for 300 ms: the host's busy share over that time
        // is near 1 whatever else runs (a quiet host would read near 0).
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let before = HostCpu::now().expect("/proc/stat on Linux");
        let spinners: Vec<_> = (0..cores)
            .map(|_| {
                std::thread::spawn(|| {
                    let start = std::time::Instant::now();
                    while start.elapsed() < std::time::Duration::from_millis(300) {
                        std::hint::black_box(0u64);
                    }
                })
            })
            .collect();
        spinners.into_iter().for_each(|s| s.join().unwrap());
        let span = HostCpu::now().unwrap().since(before);
        let wall_all_cores = 0.3 * cores as f64;
        assert!(span.all_s >= wall_all_cores * 0.8, "{cores} cores over 300 ms: {span:?}");
        assert!(span.busy_share().unwrap() > 0.8, "every core spun: {span:?}");
    }
}
