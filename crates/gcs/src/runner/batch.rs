//! A batch of uploads started at once, and waiting for a batch of uploads
//! or reads, with live progress, a cancel and the run's deadline.

use super::delivered::Delivered;
use super::failed::Failed;
use super::paced::{self, Paced};
use super::{Finished, PROGRESS_INTERVAL, Runner, Stop, Stored};
use crate::config::TransportKind;
use crate::payload::Payload;
use crate::transport::{Progress, Recovery, UploadRequest, Uploader};
use engine::events::RunEvent;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinSet;
use tokio::time::{Instant, MissedTickBehavior};

/// How long a stop waits for session starts in flight to answer. A start
/// cut off unanswered leaves a session on the server that nobody can cancel
/// (its id never arrived); one request's round trip is far less than this.
const SESSION_START_GRACE: Duration = Duration::from_secs(3);

impl Runner {
    /// Waits for a batch's tasks, sending progress from their counters each
    /// tick (capped by what the peer acknowledged, for uploads), until all
    /// are done, the run is cancelled or its time is up (the tasks still
    /// running are then aborted); returns what finished, with each one's
    /// recovery (retries and what they followed, resumes, bytes moved more
    /// than once, of its item's size).
    /// Progress counts from `done_before`, the round's work before this batch.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn collect<T: Send + 'static>(
        &mut self,
        kind: TransportKind,
        round: Option<u32>,
        mut tasks: JoinSet<(u32, f64, f64, T)>,
        counters: &[Arc<Progress>],
        (done_before, bytes_total): (u64, u64),
        item_sizes: &[u64],
        mut delivered: Option<Delivered>,
    ) -> (Vec<(u32, f64, f64, T, Recovery)>, Option<Stop>) {
        // The first tick after an interval, not at once: a batch done
        // sooner (a small object's) reads no sockets for progress.
        let mut ticker = tokio::time::interval_at(Instant::now() + PROGRESS_INTERVAL, PROGRESS_INTERVAL);
        ticker.set_missed_tick_behavior(MissedTickBehavior::Skip);
        let mut progress = move || {
            let handed = counters.iter().map(|c| c.bytes()).sum();
            done_before + delivered.as_mut().map_or(handed, |d| d.bytes(handed))
        };
        let mut results = Vec::new();
        let stop = loop {
            tokio::select! {
                biased;
                _ = self.cancel.cancelled() => break Some(Stop::Cancelled),
                _ = tokio::time::sleep_until(self.deadline) => break Some(Stop::TimedOut),
                joined = tasks.join_next() => match joined {
                    None => break None,
                    Some(Ok((worker, start, elapsed, result))) => {
                        let recovery = counters[worker as usize].recovery(item_sizes[worker as usize]);
                        results.push((worker, start, elapsed, result, recovery));
                    }
                    Some(Err(error)) => self.emit(RunEvent::Note(format!("a request task failed: {error}"))).await,
                },
                _ = ticker.tick() => {
                    let bytes = progress();
                    let at_s = self.at_s();
                    self.progress(RunEvent::Progress { transport: kind, round, done: bytes, total: bytes_total, at_s });
                }
            }
        };
        if stop.is_some() {
            self.let_session_starts_answer(counters).await;
            tasks.abort_all();
            while let Some(joined) = tasks.join_next().await {
                if let Ok((worker, start, elapsed, result)) = joined {
                    let recovery = counters[worker as usize].recovery(item_sizes[worker as usize]);
                    results.push((worker, start, elapsed, result, recovery));
                }
            }
        }
        let at_s = self.at_s();
        let bytes = progress();
        self.progress(RunEvent::Progress { transport: kind, round, done: bytes, total: bytes_total, at_s });
        (results, stop)
    }

    /// Before a stop aborts the batch, lets each session start in flight
    /// answer (bounded), so that its session can be cancelled with the rest.
    async fn let_session_starts_answer(&self, counters: &[Arc<Progress>]) {
        let give_up = Instant::now() + SESSION_START_GRACE;
        while counters.iter().any(|c| c.starting_session()) {
            if Instant::now() >= give_up {
                let note = "a session start did not answer within 3 s of the stop: its session may stay open on \
                            the server until it expires (a week on GCS)";
                self.emit(RunEvent::Note(note.into())).await;
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// Uploads the named objects at once (a timed round in open loop: at
    /// `--rate`); returns (worker, start, elapsed, result) for each that
    /// finished, why it stopped early if it did, and its pacing.
    pub(super) async fn upload_batch(
        &mut self,
        uploader: &Arc<dyn Uploader>,
        round: Option<u32>,
        names: Vec<String>,
        payload: &Payload,
        delivered: Delivered,
    ) -> (Vec<Finished>, Option<Stop>, Option<Paced>) {
        let kind = uploader.kind();
        let at_s = self.at_s();
        self.emit(RunEvent::RoundStarted { transport: kind, round, at_s }).await;
        let bytes_total = payload.size() * names.len() as u64;
        let counters: Vec<Arc<Progress>> = names.iter().map(|_| Arc::new(Progress::default())).collect();
        let all_names = names.clone();
        // In flight is "may exist": a second Ctrl-C names them even while a
        // stop waits for their session starts to answer.
        names.iter().for_each(|name| self.ledger.add(name));
        let mut tasks = JoinSet::new();
        // Both transports' round N get the same arrival schedule.
        let open = round.and(self.config.open_loop.as_ref());
        let (paced, gates) = paced::gates(open, names.len(), round.map_or(0, |r| r as u64 + 1), self.clock());
        for ((worker, name), gate) in names.into_iter().enumerate().zip(gates) {
            let uploader = uploader.clone();
            let request = UploadRequest { name, payload: payload.clone(), progress: counters[worker].clone() };
            let clock = self.clock();
            let bucket = self.config.bucket.clone();
            let expected = request.payload.size();
            let (progress, appending) = (request.progress.clone(), self.config.append.is_some());
            let upload = async move {
                let outcome = uploader.upload(request).await.map_err(|e| Failed::of(&e, &bucket))?;
                match outcome.size {
                    Some(size) if size != expected => {
                        Err(Failed::short("short write", format!("the server stored {size} bytes of {expected}")))
                    }
                    size => Ok(Stored {
                        object: outcome.object,
                        phases: outcome.phases,
                        unchecked: size.is_none(),
                        flushes: appending.then(|| progress.flush_latencies()),
                        read_back: Some(progress.read_back_latencies()).filter(|read| !read.is_empty()),
                    }),
                }
            };
            tasks.spawn(paced::timed(gate, worker as u32, clock, upload));
        }
        let delivered = Some(delivered);
        let sizes = vec![payload.size(); counters.len()];
        let (results, stop) = self.collect(kind, round, tasks, &counters, (0, bytes_total), &sizes, delivered).await;
        for (worker, name) in all_names.into_iter().enumerate() {
            match results.iter().find(|r| r.0 == worker as u32) {
                Some((.., Err(_), _)) if self.config.append.is_none() => self.ledger.remove(&name),
                // A failed appendable write leaves its object, unfinalized: found and deleted at cleanup.
                Some((.., Err(_), _)) => self.cut_off.push((kind, name, None)),
                Some(_) => {}
                None => self.cut_off.push((kind, name, counters[worker].session())),
            }
        }
        (results, stop, paced)
    }
}
