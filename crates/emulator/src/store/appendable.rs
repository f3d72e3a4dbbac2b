//! Appendable objects (the v2 API's `appendable: true` writes): an object
//! that exists, with a generation, from the moment its write opens, grows as
//! its bytes arrive, is readable up to what was persisted while it grows,
//! and can be taken over by a new stream naming its generation until it is
//! finalized. Its write is an upload session; what readers see is kept
//! beside it here, so a reader never waits on the writer's lock.
//!
//! The emulator persists every byte as it arrives, so a flush has nothing
//! left to do and the persisted size is the size received.

use super::{NewObject, SessionRef, Store, StoreError, StoredObject};
use bytes::{Bytes, BytesMut};
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::SystemTime;

/// What readers see of an appendable object while it grows.
pub struct Appendable {
    pub bucket: String,
    pub name: String,
    pub generation: i64,
    content_type: String,
    created: SystemTime,
    seen: Mutex<Seen>,
}

#[derive(Default)]
struct Seen {
    /// The persisted bytes, as the pieces they arrived in (kept only when retaining).
    pieces: Vec<Bytes>,
    size: u64,
    crc32c: u32,
    /// The pieces joined, made on the first read after they changed.
    joined: Option<Bytes>,
}

impl Appendable {
    /// Bytes persisted so far: the pieces taken off the ingest (when
    /// retaining), with the size and crc32c of everything persisted.
    pub fn publish(&self, piece: Option<Bytes>, size: u64, crc32c: u32) {
        let mut seen = self.seen.lock().unwrap();
        if let Some(piece) = piece.filter(|p| !p.is_empty()) {
            seen.pieces.push(piece);
            seen.joined = None;
        }
        (seen.size, seen.crc32c) = (size, crc32c);
    }

    /// Every persisted piece, for the object finalize creates.
    pub fn pieces(&self) -> Vec<Bytes> {
        self.seen.lock().unwrap().pieces.clone()
    }

    /// The object as a reader sees it now.
    fn view(&self, retain: bool) -> StoredObject {
        let mut seen = self.seen.lock().unwrap();
        let data = retain.then(|| {
            let pieces = &seen.pieces;
            let joined = seen.joined.clone().unwrap_or_else(|| join(pieces));
            seen.joined = Some(joined.clone());
            joined
        });
        StoredObject {
            bucket: self.bucket.clone(),
            name: self.name.clone(),
            size: seen.size,
            generation: self.generation,
            crc32c: seen.crc32c,
            md5: None,
            content_type: self.content_type.clone(),
            created: self.created,
            data,
            finalized: false,
        }
    }
}

fn join(pieces: &[Bytes]) -> Bytes {
    match pieces {
        [one] => one.clone(),
        _ => {
            let mut joined = BytesMut::with_capacity(pieces.iter().map(Bytes::len).sum());
            pieces.iter().for_each(|piece| joined.extend_from_slice(piece));
            joined.freeze()
        }
    }
}

impl Store {
    /// Creates an appendable object, empty and unfinalized, under a new
    /// generation; its session is how its writes reach it.
    pub fn start_appendable(&self, spec: NewObject) -> Result<SessionRef, StoreError> {
        let appendable = Appendable {
            bucket: spec.bucket.clone(),
            name: spec.name.clone(),
            generation: self.next_generation.fetch_add(1, Ordering::Relaxed),
            content_type: spec.content_type.clone(),
            created: SystemTime::now(),
            seen: Mutex::default(),
        };
        let key = (spec.bucket.clone(), spec.name.clone());
        let entry = self.new_session(spec, Some(appendable))?;
        self.appendables.lock().unwrap().insert(key, entry.clone());
        Ok(entry)
    }

    /// The unfinalized appendable object `name` at `generation`, to take over.
    pub fn appendable(&self, bucket: &str, name: &str, generation: i64) -> Result<SessionRef, StoreError> {
        let found = self.appendables.lock().unwrap().get(&(bucket.into(), name.into())).cloned();
        let Some(entry) = found else {
            return Err(match self.get(bucket, name) {
                Ok(_) => StoreError::Precondition(format!("object {name} is finalized: it cannot be appended to")),
                Err(error) => error,
            });
        };
        let current = entry.appendable.as_ref().map_or(0, |a| a.generation);
        if current != generation {
            return Err(StoreError::Precondition(format!(
                "object {name} is at generation {current}, not {generation}"
            )));
        }
        Ok(entry)
    }

    /// Once finalized, the object lives with the others.
    pub fn forget_appendable(&self, bucket: &str, name: &str) {
        self.appendables.lock().unwrap().remove(&(bucket.into(), name.into()));
    }

    pub(super) fn unfinalized(&self, bucket: &str, name: &str) -> Option<StoredObject> {
        let entry = self.appendables.lock().unwrap().get(&(bucket.into(), name.into())).cloned()?;
        entry.appendable.as_ref().map(|a| a.view(self.retain))
    }

    /// Deletes an unfinalized appendable object; false when there is none.
    pub(super) fn delete_unfinalized(
        &self,
        bucket: &str,
        name: &str,
        if_generation_match: Option<i64>,
    ) -> Result<bool, StoreError> {
        let mut appendables = self.appendables.lock().unwrap();
        let key = (bucket.to_string(), name.to_string());
        let Some(entry) = appendables.get(&key) else { return Ok(false) };
        let generation = entry.appendable.as_ref().map_or(0, |a| a.generation);
        if if_generation_match.is_some_and(|wanted| wanted != generation) {
            return Err(StoreError::Precondition(format!("object {name} has generation {generation}")));
        }
        let entry = appendables.remove(&key).expect("found above");
        drop(appendables);
        let _ = self.cancel_session(&entry.id());
        entry.claim(); // a writer still on it is told it was taken over
        Ok(true)
    }
}
