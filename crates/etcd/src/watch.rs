//! The watch mode's unit of work: a watcher over one transport on a round's
//! own prefix while the same put load, always over gRPC, writes there. Each
//! event's delay runs from its put's acknowledgement to its arrival; every
//! revision put must arrive once, in order.

use super::client::{Delivered, EtcdError, Kv, WatchEnd};
use super::workload::{Failures, Work, latency_histogram};
use engine::open_loop::{OpenLoop, PacedRound, run_paced};
use hdrhistogram::Histogram;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

/// How long a watcher may lag behind the last acknowledged put.
pub const CATCH_UP: Duration = Duration::from_secs(10);

pub struct WatchRound {
    /// Events delivered of the round's puts (each counted once).
    pub events: u64,
    /// Puts of the load that failed.
    pub failures: Failures,
    /// Put acknowledged -> event received, in microseconds.
    pub delay: Histogram<u64>,
    /// From the first put's start to the last event's arrival.
    pub elapsed: Duration,
    /// Lost, duplicated or reordered events, as one sentence.
    pub broken: Option<String>,
}

/// Watches `keys.prefix` over `watcher` while `load` puts `clients` x
/// `requests` keys there (open loop: paced by `paced`, whose tally it fills).
pub async fn run_watch_round(
    watcher: &dyn Kv,
    load: Arc<dyn Kv>,
    work: &Work,
    paced: Option<PacedPuts<'_>>,
) -> Result<(WatchRound, OpenWatch), EtcdError> {
    let (keys, clients, requests) = (work.keys.clone(), work.clients, work.requests);
    let (events, mut arrivals) = mpsc::unbounded_channel();
    let stream = watcher.watch(keys.prefix.clone(), 0, events).await?;
    let started = Instant::now();
    let mut tasks = match paced {
        Some(paced) => paced_puts(load, work, paced),
        None => closed_puts(load, work),
    };
    let mut acked: HashMap<i64, Instant> = HashMap::new();

    let mut failures = Failures::default();
    let mut delivered: Vec<Delivered> = Vec::with_capacity((clients * requests) as usize);
    let arrived = |event: Delivered, delivered: &mut Vec<Delivered>| {
        work.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed); // for the live view
        delivered.push(event);
    };
    // Events are taken as they come while the puts go on, so the live view moves.
    loop {
        tokio::select! {
            joined = tasks.join_next() => match joined {
                Some(done) => match done.map_err(|e| EtcdError::Protocol(format!("a put client failed: {e}"))).and_then(|r| r) {
                    Ok(acks) => acked.extend(acks),
                    Err(error) => failures.add(error),
                },
                None => break,
            },
            Some(event) = arrivals.recv() => arrived(event, &mut delivered),
        }
    }
    let wait_until = tokio::time::Instant::now() + CATCH_UP;
    let mut matched = delivered.iter().filter(|e| acked.contains_key(&e.revision)).count();
    while matched < acked.len() {
        match tokio::time::timeout_at(wait_until, arrivals.recv()).await {
            Ok(Some(event)) => {
                matched += usize::from(acked.contains_key(&event.revision));
                arrived(event, &mut delivered);
            }
            Ok(None) | Err(_) => break,
        }
    }
    // Whatever else already arrived (a duplicate of the last, say) is checked too.
    while let Ok(event) = arrivals.try_recv() {
        delivered.push(event);
    }
    let open = OpenWatch { arrivals, stream };
    let delay = delivery_delays(&delivered, &acked);
    let elapsed = delivered.last().map_or(started.elapsed(), |last| last.at - started);
    let mut put_revisions: Vec<i64> = acked.keys().copied().collect();
    put_revisions.sort_unstable();
    let arrived: Vec<i64> = delivered.iter().map(|e| e.revision).collect();
    let round = WatchRound {
        events: matched as u64,
        failures,
        delay,
        elapsed,
        broken: check_delivery(&put_revisions, &arrived),
    };
    Ok((round, open))
}

/// What a put task gives back: each put's revision and when it was acknowledged.
type Puts = Result<Vec<(i64, Instant)>, EtcdError>;

/// The round's puts as `clients` tasks, each putting its keys one after another.
fn closed_puts(load: Arc<dyn Kv>, work: &Work) -> JoinSet<Puts> {
    let (keys, value, clients, requests) = (work.keys.clone(), work.value.clone(), work.clients, work.requests);
    let mut tasks = JoinSet::new();
    for client in 0..clients {
        let (load, keys, value, work) = (load.clone(), keys.clone(), value.clone(), work.clone());
        tasks.spawn(async move {
            let mut acks = Vec::with_capacity(requests as usize);
            for n in 0..requests as u64 {
                if work.stopped() {
                    break;
                }
                // Each put a key of its own, so every event is one put's.
                let revision = load.put(keys.key(n * clients as u64 + client as u64), value.to_vec()).await?;
                acks.push((revision, Instant::now()));
            }
            Ok::<_, EtcdError>(acks)
        });
    }
    tasks
}

/// The pacing of an open-loop watch round's puts: the offer, the schedule's
/// seed, the pacer's thread name, and where the round's tally goes.
pub struct PacedPuts<'a> {
    pub open: &'a OpenLoop,
    pub seed: u64,
    pub thread: &'a str,
    pub tally: Arc<std::sync::Mutex<Option<PacedRound>>>,
}

/// The round's puts as arrivals at the offered rate, each one's key the
/// one the closed round's client would put as its nth; each put's instant
/// is its intended start.
fn paced_puts(load: Arc<dyn Kv>, work: &Work, paced: PacedPuts) -> JoinSet<Puts> {
    let count = paced.open.per_round() as usize;
    let offsets = paced.open.offsets(count, paced.seed);
    let (open, thread, stop, tally) = (*paced.open, paced.thread.to_string(), work.stop.clone(), paced.tally);
    let (keys, value) = (work.keys.clone(), work.value.clone());
    let mut tasks = JoinSet::new();
    tasks.spawn(async move {
        let arrival = move |ticket: engine::open_loop::Ticket| {
            let (load, key, value) = (load.clone(), keys.key(ticket.index as u64), value.to_vec());
            async move {
                let turn = ticket.start().await;
                let revision = load.put(key, value).await;
                // In open loop an event's delay counts from its put's
                // intended start: a stalled put delays its event, and that shows.
                (revision, turn.intended, turn.finished().1)
            }
        };
        let (puts, pacing) = run_paced(&open, offsets, stop, &thread, arrival).await;
        let (mut acks, mut service, mut first_error) = (Vec::new(), latency_histogram(), None);
        for (revision, at, took) in puts {
            match revision {
                Ok(revision) => {
                    acks.push((revision, at));
                    let _ = service.record(engine::open_loop::micros(took));
                }
                Err(error) => first_error = first_error.or(Some(error)),
            }
        }
        *tally.lock().unwrap() = Some(PacedRound::of(pacing, service));
        first_error.map_or(Ok(acks), Err)
    });
    tasks
}

/// Each put's event's delay from its answer to its arrival, in µs.
fn delivery_delays(delivered: &[Delivered], acked: &HashMap<i64, Instant>) -> hdrhistogram::Histogram<u64> {
    let mut delay = latency_histogram();
    for event in delivered {
        if let Some(ack) = acked.get(&event.revision) {
            // etcd may send the event before the put's answer reaches us: 0
            // then, recorded as 0 (HDR keeps zeros), as the report's note says.
            let _ = delay.record(event.at.saturating_duration_since(*ack).as_micros() as u64);
        }
    }
    delay
}

/// The watch, still open: an HTTP watch's connection closes with it, and
/// its bytes must be read off the socket before that.
pub struct OpenWatch {
    arrivals: mpsc::UnboundedReceiver<Delivered>,
    stream: tokio::task::JoinHandle<WatchEnd>,
}

impl OpenWatch {
    /// Ends the watch; how the stream had ended if it ended on its own.
    pub async fn close(self) -> Option<EtcdError> {
        drop(self.arrivals); // ends the watcher's task
        self.stream.await.unwrap_or(Ok(())).err()
    }
}

/// Every revision put (sorted) arrived exactly once and in order; else one
/// sentence naming the revisions that did not.
pub fn check_delivery(put: &[i64], arrived: &[i64]) -> Option<String> {
    let mut problems = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let duplicated: Vec<i64> = arrived.iter().copied().filter(|r| !seen.insert(*r)).collect();
    let reordered: Vec<i64> = arrived.windows(2).filter(|w| w[1] < w[0]).map(|w| w[1]).collect();
    let lost: Vec<i64> = put.iter().copied().filter(|r| !seen.contains(r)).collect();
    let wanted: std::collections::HashSet<i64> = put.iter().copied().collect();
    let foreign: Vec<i64> = seen.iter().copied().filter(|r| !wanted.contains(r)).collect();
    let list = |revisions: &[i64]| {
        let mut sorted = revisions.to_vec();
        sorted.sort_unstable();
        let shown: Vec<String> = sorted.iter().take(5).map(i64::to_string).collect();
        let more = if sorted.len() > 5 { format!(" and {} more", sorted.len() - 5) } else { String::new() };
        format!("{}{more}", shown.join(", "))
    };
    if !lost.is_empty() {
        problems.push(format!("{} lost (revision {})", lost.len(), list(&lost)));
    }
    if !duplicated.is_empty() {
        problems.push(format!("{} duplicated (revision {})", duplicated.len(), list(&duplicated)));
    }
    if !reordered.is_empty() {
        problems.push(format!("{} out of order (revision {})", reordered.len(), list(&reordered)));
    }
    if !foreign.is_empty() {
        problems.push(format!("{} not put by this run (revision {})", foreign.len(), list(&foreign)));
    }
    (!problems.is_empty()).then(|| format!("watch events {}", problems.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::check_delivery;

    #[test]
    fn every_revision_once_and_in_order_passes() {
        assert_eq!(check_delivery(&[5, 6, 7], &[5, 6, 7]), None);
    }

    #[test]
    fn lost_duplicated_reordered_and_foreign_events_are_named() {
        assert_eq!(check_delivery(&[5, 6, 7], &[5, 7]).unwrap(), "watch events 1 lost (revision 6)");
        assert_eq!(check_delivery(&[5, 6], &[5, 6, 6]).unwrap(), "watch events 1 duplicated (revision 6)");
        assert_eq!(check_delivery(&[5, 6], &[6, 5]).unwrap(), "watch events 1 out of order (revision 5)");
        assert_eq!(check_delivery(&[5], &[5, 9]).unwrap(), "watch events 1 not put by this run (revision 9)");
        let many: Vec<i64> = (1..=8).collect();
        assert_eq!(check_delivery(&many, &[]).unwrap(), "watch events 8 lost (revision 1, 2, 3, 4, 5 and 3 more)");
    }
}
