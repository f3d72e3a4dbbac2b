//! How far one upload or read has got, shared with the runner's ticker, and
//! what it took to get there (retries, and what each was a retry after).

use super::TransportError;
use super::error_kind::ErrorKinds;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

#[derive(Default)]
pub struct Progress {
    /// Bytes handed to the connection so far, as an absolute offset (a
    /// resumed upload moves it back).
    bytes: AtomicU64,
    /// When the last byte of the object was handed over.
    last_byte: Mutex<Option<Instant>>,
    /// The open resumable session (JSON session URI or gRPC upload_id), so
    /// that an upload cut off by a cancel can have it cancelled too.
    session: Mutex<Option<String>>,
    /// A session start is in flight: the server may create a session that
    /// only the answer's id can cancel, so a stop lets it answer first.
    session_starting: AtomicBool,
    /// Bytes handed over in all, resends included.
    sent: AtomicU64,
    retries: AtomicU32,
    /// The kind of each error a retry followed (`HTTP 503`, `reset`).
    retried_after: Mutex<ErrorKinds>,
    resumes: AtomicU32,
    /// The one retry after a refused token has been used.
    auth_retried: AtomicBool,
    /// Each chunk's (append's) send start and the answer that said it was
    /// persisted, for the append workload's per-flush latency.
    flushes: Mutex<Vec<(Instant, Option<Instant>)>>,
    /// Each flush's time from its first byte until a second stream had read
    /// its bytes back (gRPC appendable objects), in seconds.
    read_back: Mutex<Vec<f64>>,
}

/// What an item took beyond one clean attempt.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recovery {
    pub retries: u32,
    pub resumes: u32,
    /// Bytes moved more than once.
    pub resent_bytes: u64,
    /// What the retries followed, by kind.
    pub retried_after: ErrorKinds,
}

impl Progress {
    /// Takes this item's one retry after a refused token; false if it was taken.
    pub fn take_auth_retry(&self) -> bool {
        !self.auth_retried.swap(true, Ordering::Relaxed)
    }

    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Moves to an absolute offset; going back (a resume) counts nothing,
    /// going forward counts the bytes as sent (again, after going back).
    pub fn advance_to(&self, offset: u64) {
        let before = self.bytes.swap(offset, Ordering::Relaxed);
        if offset > before {
            self.sent.fetch_add(offset - before, Ordering::Relaxed);
        }
    }

    /// Takes in a part read with a progress of its own (one range of many):
    /// its bytes, and what it took to get them.
    pub fn absorb(&self, part: &Progress) {
        self.bytes.fetch_add(part.bytes(), Ordering::Relaxed);
        self.sent.fetch_add(part.sent.load(Ordering::Relaxed), Ordering::Relaxed);
        self.retries.fetch_add(part.retries.load(Ordering::Relaxed), Ordering::Relaxed);
        self.resumes.fetch_add(part.resumes.load(Ordering::Relaxed), Ordering::Relaxed);
        let mut kinds = self.retried_after.lock().unwrap();
        for (kind, count) in part.retried_after.lock().unwrap().iter() {
            *kinds.entry(kind.clone()).or_default() += count;
        }
    }

    /// A chunk (an append) starts to be sent. A chunk sent again after a
    /// failure is the same flush: its time runs from the first attempt.
    pub fn flush_started(&self) {
        let mut flushes = self.flushes.lock().unwrap();
        if !matches!(flushes.last(), Some((_, None))) {
            flushes.push((Instant::now(), None));
        }
    }

    /// The server said the chunk sent last is persisted; the flush's
    /// first byte's time, for its read back.
    pub fn flush_persisted(&self) -> Option<Instant> {
        match self.flushes.lock().unwrap().last_mut() {
            Some((started, answered @ None)) => {
                *answered = Some(Instant::now());
                Some(*started)
            }
            _ => None,
        }
    }

    /// A second stream has read the bytes of the flush that started at
    /// `started`, now.
    pub fn flush_read_back(&self, started: Instant) {
        self.read_back.lock().unwrap().push(started.elapsed().as_secs_f64());
    }

    /// Each flush's time from its first byte until it was read back, in seconds.
    pub fn read_back_latencies(&self) -> Vec<f64> {
        self.read_back.lock().unwrap().clone()
    }

    /// Each answered chunk's time from its first byte to its answer, in seconds.
    pub fn flush_latencies(&self) -> Vec<f64> {
        let flushes = self.flushes.lock().unwrap();
        flushes.iter().filter_map(|(sent, answered)| Some((*answered)?.duration_since(*sent).as_secs_f64())).collect()
    }

    /// A retry after `error`.
    pub fn note_retry(&self, error: &TransportError) {
        self.retries.fetch_add(1, Ordering::Relaxed);
        *self.retried_after.lock().unwrap().entry(error.kind()).or_default() += 1;
    }

    pub fn note_resume(&self) {
        self.resumes.fetch_add(1, Ordering::Relaxed);
    }

    /// What an upload or read of `size` bytes took beyond one clean attempt.
    pub fn recovery(&self, size: u64) -> Recovery {
        let sent = self.sent.load(Ordering::Relaxed);
        Recovery {
            retries: self.retries.load(Ordering::Relaxed),
            resumes: self.resumes.load(Ordering::Relaxed),
            resent_bytes: sent.saturating_sub(size),
            retried_after: self.retried_after.lock().unwrap().clone(),
        }
    }

    pub fn mark_last_byte(&self) {
        *self.last_byte.lock().unwrap() = Some(Instant::now());
    }

    pub fn last_byte(&self) -> Option<Instant> {
        *self.last_byte.lock().unwrap()
    }

    pub fn set_session(&self, session: Option<String>) {
        *self.session.lock().unwrap() = session;
    }

    /// Runs a session start and keeps its id; while it runs,
    /// [`Progress::starting_session`] says so.
    pub async fn start_session<E>(&self, start: impl Future<Output = Result<String, E>>) -> Result<String, E> {
        self.session_starting.store(true, Ordering::Release);
        let _answered = ClearOnDrop(&self.session_starting);
        let session = start.await?;
        self.set_session(Some(session.clone()));
        Ok(session)
    }

    pub fn starting_session(&self) -> bool {
        self.session_starting.load(Ordering::Acquire)
    }

    pub fn session(&self) -> Option<String> {
        self.session.lock().unwrap().clone()
    }
}

/// Clears a flag however the future holding it ends (answered, failed or dropped).
struct ClearOnDrop<'a>(&'a AtomicBool);

impl Drop for ClearOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flush_sent_again_is_timed_from_its_first_attempt() {
        let progress = Progress::default();
        progress.flush_started();
        std::thread::sleep(std::time::Duration::from_millis(20));
        progress.flush_started(); // the chunk again, after a failure
        progress.flush_persisted();
        progress.flush_started();
        progress.flush_persisted();
        let latencies = progress.flush_latencies();
        assert_eq!(latencies.len(), 2, "two flushes, not three: {latencies:?}");
        assert!(latencies[0] >= 0.020, "the retried flush counts its failed attempt: {latencies:?}");
    }
}
