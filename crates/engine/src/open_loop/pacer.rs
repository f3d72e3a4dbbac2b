//! The pacer: a thread of its own that releases each arrival just before
//! its intended instant (see `lead`). Tokio's timers tick in milliseconds,
//! too coarse for 10,000 arrivals a second, so the thread sleeps with a
//! timer slack of 1 µs, and yields through gaps too short to sleep.

use super::lead::{Lead, Wakes};
use super::{OpenLoop, latency_histogram, micros};
use hdrhistogram::Histogram;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// An arrival that starts later than this after its intended instant is
/// late: the client could not keep the schedule (its pacer or runtime was
/// busy), and the report counts it.
pub const LATE_AFTER: Duration = Duration::from_millis(1);

/// A nap shorter than this costs more than it saves (and overshoots): the
/// pacer yields through it (above about 10,000 arrivals a second, always).
const SHORTEST_NAP: Duration = Duration::from_micros(100);

/// The pacer's timer slack: Linux lets a sleeping thread wake up to 50 µs
/// late by default, to batch wake-ups; the pacer asks for 1 µs.
const TIMER_SLACK_NS: libc::c_ulong = 1_000;

/// The longest the pacer sleeps at once, so a stop is seen at slow rates.
const LONGEST_NAP: Duration = Duration::from_millis(20);

/// What the arrivals' tasks and the pacer share.
struct Shared {
    in_flight: AtomicU32,
    lead: Lead,
    /// One lock per start, however many figures it updates.
    starts: Mutex<Starts>,
}

/// The arrivals that started: how late each was, how many by over
/// `LATE_AFTER`, and the first and last start (how many is the
/// histogram's count).
struct Starts {
    /// Start minus intended start, µs.
    lateness: Histogram<u64>,
    late: u64,
    span: Option<(Instant, Instant)>,
    /// Time the arrivals' tasks spent awake waiting out the lead.
    lead_waited: Duration,
    wakes: Wakes,
}

/// An arrival released by the pacer: which one, and when it was due. While
/// it (or the `Turn` it becomes) is held, it counts as in flight.
pub struct Ticket {
    pub index: usize,
    pub intended: Instant,
    /// When the pacer meant to release it: the intended instant less the lead.
    release: Instant,
    shared: Arc<Shared>,
}

/// An arrival started: when it was due and when it started. Drop it when
/// the request is answered.
pub struct Turn {
    pub index: usize,
    pub intended: Instant,
    pub started: Instant,
    _ticket: Ticket,
}

impl Ticket {
    /// Waits out the pacer's lead on the runtime's worker, then starts the
    /// arrival's request: counts how late it starts.
    pub async fn start(self) -> Turn {
        let woke = Instant::now();
        // Yielding keeps this worker awake (it polls I/O and runs other
        // tasks in between) so the request starts on a running CPU.
        while Instant::now() < self.intended {
            tokio::task::yield_now().await;
        }
        let started = Instant::now();
        let waited = self.intended.saturating_duration_since(woke);
        let lateness = started.saturating_duration_since(self.intended);
        let mut starts = self.shared.starts.lock().unwrap();
        // The pacer's own overshoot and the worker's wake, together.
        starts.wakes.record(woke.saturating_duration_since(self.release), &self.shared.lead);
        let _ = starts.lateness.record(micros(lateness));
        starts.late += u64::from(lateness > LATE_AFTER);
        starts.lead_waited += waited;
        let (first, last) = starts.span.get_or_insert((started, started));
        *first = (*first).min(started);
        *last = (*last).max(started);
        drop(starts);
        Turn { index: self.index, intended: self.intended, started, _ticket: self }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.shared.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Turn {
    /// Latency from the intended start, and service time from the actual one.
    pub fn finished(&self) -> (Duration, Duration) {
        let now = Instant::now();
        (now - self.intended, now - self.started)
    }
}

/// How a round's pacing went.
#[derive(Clone, Debug)]
pub struct PacingTally {
    /// Arrivals due before the round ended or stopped.
    pub offered: u64,
    /// Arrivals released that started.
    pub started: u64,
    /// Arrivals that found `max_in_flight` requests outstanding: not sent.
    pub dropped: u64,
    /// Started more than `LATE_AFTER` after their intended instant.
    pub late: u64,
    /// Start minus intended start, µs.
    pub lateness: Histogram<u64>,
    /// Arrivals per second actually started (`None` under two starts).
    pub achieved_rate: Option<f64>,
    /// CPU seconds the pacer's thread used.
    pub pacer_cpu_s: f64,
    /// Seconds the arrivals' tasks spent on a worker waiting out the lead:
    /// an upper bound of the CPU the waiting cost (the worker runs other
    /// tasks between its yields; with none, it is all spinning).
    pub lead_waited_s: f64,
    /// How early the pacer released each arrival when the round ended.
    pub lead: Duration,
}

/// The pacer's thread, until the round's arrivals are all released.
pub struct Pacer {
    thread: JoinHandle<(u64, u64, f64)>,
    shared: Arc<Shared>,
    /// The round's slice of the schedule, seconds, when it has one.
    round_s: Option<f64>,
}

/// Starts pacing `offsets` (from now) on a thread named `thread_name` (the
/// name the target's client CPU is counted by), handing each arrival's
/// ticket to `release` on that thread a lead before its instant (see
/// `lead`): spawning the arrival's task there (or waking one waiting) costs
/// one wake-up, which the lead hides, and `Ticket::start` waits out the
/// rest. `stop` ends the releases early.
pub fn pace(
    open: &OpenLoop,
    offsets: Vec<Duration>,
    stop: Arc<AtomicBool>,
    thread_name: &str,
    release: impl FnMut(Ticket) + Send + 'static,
) -> Pacer {
    let shared = Arc::new(Shared {
        in_flight: AtomicU32::new(0),
        lead: Lead::new(),
        starts: Mutex::new(Starts {
            lateness: latency_histogram(),
            late: 0,
            span: None,
            lead_waited: Duration::ZERO,
            wakes: Wakes::new(),
        }),
    });
    let most = open.max_in_flight;
    let in_thread = shared.clone();
    let thread = std::thread::Builder::new()
        .name(thread_name.to_string())
        .spawn(move || {
            // SAFETY: PR_SET_TIMERSLACK only sets this thread's slack; a failure leaves the default.
            unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, TIMER_SLACK_NS) };
            let (offered, dropped) = release_all(release, offsets, most, &in_thread, &stop);
            (offered, dropped, this_thread_cpu_s())
        })
        .expect("the pacer's thread starts");
    Pacer { thread, shared, round_s: open.round_s }
}

/// Releases each arrival at its instant; returns (offered, dropped).
fn release_all(
    mut release: impl FnMut(Ticket),
    offsets: Vec<Duration>,
    most: u32,
    shared: &Arc<Shared>,
    stop: &AtomicBool,
) -> (u64, u64) {
    let origin = Instant::now();
    let (mut offered, mut dropped) = (0, 0);
    let mut previous = Duration::ZERO;
    for (index, offset) in offsets.into_iter().enumerate() {
        let intended = origin + offset;
        let release_at = intended.checked_sub(shared.lead.before(offset.saturating_sub(previous))).unwrap_or(intended);
        previous = offset;
        if !wait_until(release_at, stop) {
            break;
        }
        offered += 1;
        // Only this thread adds, so the count cannot pass `most` between
        // the check and the add.
        if shared.in_flight.load(Ordering::Acquire) >= most {
            dropped += 1;
            continue;
        }
        shared.in_flight.fetch_add(1, Ordering::AcqRel);
        // A ticket nobody takes (the round was cut off) gives its place back as it drops.
        release(Ticket { index, intended, release: release_at, shared: shared.clone() });
    }
    (offered, dropped)
}

/// CPU seconds this thread has used.
fn this_thread_cpu_s() -> f64 {
    let mut time = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own; the clock id is a constant.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    if status != 0 {
        return 0.0;
    }
    time.tv_sec as f64 + time.tv_nsec as f64 / 1e9
}

/// Sleeps, or yields, until `due`; `false` if `stop` was set first.
fn wait_until(due: Instant, stop: &AtomicBool) -> bool {
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let now = Instant::now();
        if now >= due {
            return true;
        }
        let left = due - now;
        if left > SHORTEST_NAP {
            std::thread::sleep(left.min(LONGEST_NAP));
        } else {
            std::thread::yield_now();
        }
    }
}

impl Pacer {
    /// Waits for the pacer's thread (after the round's tasks are done or
    /// stopped) and tallies the round.
    pub fn finish(self) -> PacingTally {
        let (offered, dropped, pacer_cpu_s) = self.thread.join().unwrap_or((0, 0, 0.0));
        let starts = self.shared.starts.lock().unwrap();
        let started = starts.lateness.len();
        // Starts per second of the round's slice of the schedule (its
        // arrivals were offered over that long); without one, between the
        // first start and the last.
        let achieved_rate = match (self.round_s, starts.span) {
            (Some(round), _) if round > 0.0 && offered > 0 => Some(started as f64 / round),
            (None, Some((first, last))) if started >= 2 && last > first => {
                Some((started - 1) as f64 / (last - first).as_secs_f64())
            }
            _ => None,
        };
        PacingTally {
            offered,
            started,
            dropped,
            late: starts.late,
            lateness: starts.lateness.clone(),
            achieved_rate,
            pacer_cpu_s,
            lead_waited_s: starts.lead_waited.as_secs_f64(),
            lead: self.shared.lead.current(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Spacing;
    use super::*;

    fn open(rate: f64, max_in_flight: u32) -> OpenLoop {
        OpenLoop { rate, spacing: Spacing::Constant, max_in_flight, round_s: None }
    }

    /// Runs `count` arrivals, each holding its turn for `hold`.
    async fn run(open: OpenLoop, count: usize, hold: Duration) -> PacingTally {
        let stop = Arc::new(AtomicBool::new(false));
        let (spawned, mut tasks) = tokio::sync::mpsc::unbounded_channel();
        let runtime = tokio::runtime::Handle::current();
        let pacer = pace(&open, open.offsets(count, 0), stop, "pacer-test", move |ticket| {
            let task = runtime.spawn(async move {
                let turn = ticket.start().await;
                tokio::time::sleep(hold).await;
                drop(turn);
            });
            let _ = spawned.send(task);
        });
        // The channel closes when the pacer's thread ends: every task is in it.
        while let Some(task) = tasks.recv().await {
            task.await.unwrap();
        }
        tokio::task::spawn_blocking(move || pacer.finish()).await.unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_arrival_starts_when_nothing_is_held_up() {
        let tally = run(open(500.0, 100), 200, Duration::ZERO).await;
        assert_eq!((tally.offered, tally.started, tally.dropped), (200, 200, 0));
        assert_eq!(tally.lateness.len(), 200);
        // 199 gaps of 2 ms: 500/s, give or take the scheduler.
        let achieved = tally.achieved_rate.unwrap();
        assert!((achieved / 500.0 - 1.0).abs() < 0.05, "achieved {achieved}/s");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn released_early_an_arrival_still_starts_no_sooner_than_its_instant() {
        let open = open(1000.0, 100);
        let stop = Arc::new(AtomicBool::new(false));
        let (sender, mut turns) = tokio::sync::mpsc::unbounded_channel();
        let runtime = tokio::runtime::Handle::current();
        let pacer = pace(&open, open.offsets(300, 0), stop, "pacer-test", move |ticket| {
            let (sender, released) = (sender.clone(), Instant::now());
            runtime.spawn(async move {
                let turn = ticket.start().await;
                let _ = sender.send((released, turn.intended, turn.started));
            });
        });
        let mut seen = Vec::new();
        while seen.len() < 300 {
            seen.push(turns.recv().await.unwrap());
        }
        let tally = tokio::task::spawn_blocking(move || pacer.finish()).await.unwrap();
        // Gaps of 1 ms, twice any lead up to 500 µs: every arrival is released early.
        let early = seen.iter().filter(|(released, intended, _)| released < intended).count();
        assert!(early > 150, "{early} of 300 released before their instant (lead {:?})", tally.lead);
        for (_, intended, started) in &seen {
            assert!(started >= intended, "started {:?} early", *intended - *started);
        }
        assert_eq!(tally.started, 300);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn arrivals_that_find_the_limit_in_flight_are_dropped() {
        // 100/s, each held 1 s, at most 10 in flight: the first 10 start;
        // the next 90 (all due within 1 s) find 10 outstanding and drop.
        let tally = run(open(100.0, 10), 100, Duration::from_secs(1)).await;
        assert_eq!((tally.offered, tally.started, tally.dropped), (100, 10, 90));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_stop_ends_the_releases() {
        let stop = Arc::new(AtomicBool::new(false));
        let open = open(10.0, 100);
        let (sender, mut released) = tokio::sync::mpsc::unbounded_channel();
        let pacer = pace(&open, open.offsets(100, 0), stop.clone(), "pacer-test", move |ticket| {
            let _ = sender.send(ticket);
        });
        let first = released.recv().await.unwrap().start().await;
        assert_eq!(first.index, 0);
        stop.store(true, Ordering::Relaxed);
        drop(first);
        // The rest never come: the thread ends and the sender with it.
        assert!(released.recv().await.is_none());
        let tally = tokio::task::spawn_blocking(move || pacer.finish()).await.unwrap();
        assert!(tally.offered < 100, "offered {}", tally.offered);
        assert_eq!(tally.started, 1);
    }
}
