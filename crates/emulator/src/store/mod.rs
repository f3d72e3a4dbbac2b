//! Buckets, objects and upload sessions, in memory, shared by both APIs.
//!
//! By default content is verified and counted but not kept, so memory stays
//! flat however many GiB arrive; with `retain` the bytes are kept for reads.

use bytes::Bytes;
use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use super::ingest::Ingest;

/// What the client may get wrong, mapped to HTTP statuses and gRPC codes by the APIs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("bucket {0} not found")]
    NoBucket(String),
    #[error("bucket {0} already exists")]
    BucketExists(String),
    #[error("object {0} not found")]
    NoObject(String),
    #[error("upload session {0} not found or expired")]
    NoSession(String),
    #[error("precondition failed: {0}")]
    Precondition(String),
    #[error("checksum mismatch: {0}")]
    Checksum(String),
    #[error("{0}")]
    Invalid(String),
}

#[derive(Clone, Debug)]
pub struct StoredObject {
    pub bucket: String,
    pub name: String,
    pub size: u64,
    pub generation: i64,
    pub crc32c: u32,
    pub md5: Option<[u8; 16]>,
    pub content_type: String,
    pub created: SystemTime,
    pub data: Option<Bytes>,
    /// False for an appendable object still being written: readable up to
    /// its persisted size, with no finalize time yet.
    pub finalized: bool,
}

/// What a finished upload asks the store to create.
pub struct NewObject {
    pub bucket: String,
    pub name: String,
    pub content_type: String,
    pub if_generation_match: Option<i64>,
    pub expected_crc32c: Option<u32>,
    pub expected_size: Option<u64>,
    pub md5: Option<[u8; 16]>,
}

/// A resumable upload in progress: what its writes change, under its own lock.
pub struct Session {
    pub id: String,
    pub spec: NewObject,
    pub ingest: Ingest,
    pub touched: Instant,
}

/// A session, shared by the requests that name it. Writes take the lock;
/// status queries read the mirrors without it, so a stalled write never
/// holds up a client asking how far it got. A newer write supersedes an
/// older one still holding the lock, as on GCS: the older one is woken and
/// lets go.
pub struct SessionEntry {
    id: String,
    pub state: Arc<tokio::sync::Mutex<Session>>,
    persisted: AtomicU64,
    finished: Mutex<Option<StoredObject>>,
    claims: AtomicU64,
    superseded: tokio::sync::Notify,
    /// Set for an appendable object: what readers see of it while it grows.
    pub appendable: Option<appendable::Appendable>,
}

impl SessionEntry {
    pub fn id(&self) -> String {
        self.id.clone()
    }

    /// Registers a new write; any older one is now superseded.
    pub fn claim(&self) -> u64 {
        let claim = self.claims.fetch_add(1, Ordering::SeqCst) + 1;
        self.superseded.notify_waiters();
        claim
    }

    pub fn is_superseded(&self, claim: u64) -> bool {
        self.claims.load(Ordering::SeqCst) != claim
    }

    /// Resolves once a newer write has claimed the session.
    pub async fn superseded(&self, claim: u64) {
        loop {
            let notified = self.superseded.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_superseded(claim) {
                return;
            }
            notified.await;
        }
    }

    pub fn persisted(&self) -> u64 {
        self.persisted.load(Ordering::Relaxed)
    }

    pub fn set_persisted(&self, bytes: u64) {
        self.persisted.store(bytes, Ordering::Relaxed);
    }

    pub fn finished(&self) -> Option<StoredObject> {
        self.finished.lock().unwrap().clone()
    }

    pub fn set_finished(&self, object: StoredObject) {
        *self.finished.lock().unwrap() = Some(object);
    }
}

pub type SessionRef = Arc<SessionEntry>;

#[derive(Default)]
struct Bucket {
    created: Option<SystemTime>,
    objects: HashMap<String, StoredObject>,
}

pub struct Store {
    pub retain: bool,
    session_ttl: Duration,
    buckets: Mutex<HashMap<String, Bucket>>,
    /// Retained bytes, shared by objects of the same content (taken after `buckets`).
    contents: Mutex<super::contents::Contents>,
    sessions: Mutex<HashMap<String, SessionRef>>,
    /// Appendable objects not yet finalized, by (bucket, name).
    appendables: Mutex<HashMap<(String, String), SessionRef>>,
    next_generation: AtomicI64,
    next_session: AtomicU64,
    /// Objects created whose whole-object crc32c the client sent and the store checked.
    pub checksums_verified: AtomicU64,
    /// Objects created and their bytes, since start (for the stop summary).
    pub objects_created: AtomicU64,
    pub bytes_stored: AtomicU64,
}

impl Store {
    pub fn new(retain: bool, session_ttl: Duration) -> Self {
        let micros =
            SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_micros() as i64).unwrap_or(1);
        Self {
            retain,
            session_ttl,
            buckets: Mutex::default(),
            contents: Mutex::default(),
            sessions: Mutex::default(),
            appendables: Mutex::default(),
            // GCS generations are microsecond timestamps; keep them unique and rising.
            next_generation: AtomicI64::new(micros),
            next_session: AtomicU64::new(micros as u64),
            checksums_verified: AtomicU64::new(0),
            objects_created: AtomicU64::new(0),
            bytes_stored: AtomicU64::new(0),
        }
    }

    pub fn create_bucket(&self, name: &str) -> Result<(), StoreError> {
        gcs_protocol::rules::validate_bucket_name(name).map_err(StoreError::Invalid)?;
        let mut buckets = self.buckets.lock().unwrap();
        if buckets.contains_key(name) {
            return Err(StoreError::BucketExists(name.into()));
        }
        buckets.insert(name.into(), Bucket { created: Some(SystemTime::now()), ..Bucket::default() });
        Ok(())
    }

    pub fn bucket_created(&self, name: &str) -> Result<SystemTime, StoreError> {
        let buckets = self.buckets.lock().unwrap();
        let bucket = buckets.get(name).ok_or_else(|| StoreError::NoBucket(name.into()))?;
        Ok(bucket.created.unwrap_or(SystemTime::UNIX_EPOCH))
    }

    pub fn bucket_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.buckets.lock().unwrap().keys().cloned().collect();
        names.sort();
        names
    }

    pub fn get(&self, bucket: &str, name: &str) -> Result<StoredObject, StoreError> {
        if let Some(growing) = self.unfinalized(bucket, name) {
            return Ok(growing);
        }
        let buckets = self.buckets.lock().unwrap();
        let found = buckets.get(bucket).ok_or_else(|| StoreError::NoBucket(bucket.into()))?;
        found.objects.get(name).cloned().ok_or_else(|| StoreError::NoObject(name.into()))
    }

    pub fn list(&self, bucket: &str, prefix: &str) -> Result<Vec<StoredObject>, StoreError> {
        let buckets = self.buckets.lock().unwrap();
        let found = buckets.get(bucket).ok_or_else(|| StoreError::NoBucket(bucket.into()))?;
        let mut objects: Vec<StoredObject> =
            found.objects.values().filter(|o| o.name.starts_with(prefix)).cloned().collect();
        objects.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(objects)
    }

    /// The cached crc32c of pieces of this object's bytes, when they are kept shared.
    pub fn piece_crcs(&self, object: &StoredObject) -> Option<std::sync::Arc<super::contents::PieceCrcs>> {
        let data = object.data.as_ref()?;
        self.contents.lock().unwrap().piece_crcs(object.crc32c, data)
    }

    fn release(&self, object: &StoredObject) {
        if let Some(data) = &object.data {
            self.contents.lock().unwrap().release(object.crc32c, data);
        }
    }

    /// Bytes of object content kept (with `retain`), each distinct content once.
    pub fn retained_bytes(&self) -> u64 {
        self.contents.lock().unwrap().kept_bytes()
    }

    /// Counts every object in every bucket (tests check that runs leave none).
    pub fn object_count(&self) -> usize {
        let unfinalized = self.appendables.lock().unwrap().len();
        self.buckets.lock().unwrap().values().map(|b| b.objects.len()).sum::<usize>() + unfinalized
    }

    pub fn delete(&self, bucket: &str, name: &str, if_generation_match: Option<i64>) -> Result<(), StoreError> {
        if self.delete_unfinalized(bucket, name, if_generation_match)? {
            return Ok(());
        }
        let mut buckets = self.buckets.lock().unwrap();
        let found = buckets.get_mut(bucket).ok_or_else(|| StoreError::NoBucket(bucket.into()))?;
        let object = found.objects.get(name).ok_or_else(|| StoreError::NoObject(name.into()))?;
        if let Some(expected) = if_generation_match
            && object.generation != expected
        {
            return Err(StoreError::Precondition(format!(
                "object {name} has generation {}, not {expected}",
                object.generation
            )));
        }
        if let Some(gone) = found.objects.remove(name) {
            self.release(&gone);
        }
        Ok(())
    }

    /// Checks what can be checked before any byte arrives: bucket and preconditions.
    pub fn check_create(&self, spec: &NewObject) -> Result<(), StoreError> {
        validate_object_name(&spec.name)?;
        let buckets = self.buckets.lock().unwrap();
        let bucket = buckets.get(&spec.bucket).ok_or_else(|| StoreError::NoBucket(spec.bucket.clone()))?;
        check_generation(bucket, spec)
    }

    /// Creates the object from a finished ingest, verifying size, checksum and
    /// preconditions; on any failure nothing is created.
    pub fn finalize(&self, spec: &NewObject, ingest: Ingest) -> Result<StoredObject, StoreError> {
        self.finalize_at(spec, ingest, None)
    }

    /// `finalize`, keeping a generation given at the start (an appendable
    /// object's) instead of taking the next one.
    pub fn finalize_at(
        &self,
        spec: &NewObject,
        ingest: Ingest,
        generation: Option<i64>,
    ) -> Result<StoredObject, StoreError> {
        if let Some(expected) = spec.expected_size
            && expected != ingest.size
        {
            return Err(StoreError::Invalid(format!("the upload declared {expected} bytes but sent {}", ingest.size)));
        }
        if let Some(expected) = spec.expected_crc32c
            && expected != ingest.crc32c
        {
            return Err(StoreError::Checksum(format!(
                "crc32c of the data is {}, the client said {}",
                gcs_protocol::crc::crc32c_base64(ingest.crc32c),
                gcs_protocol::crc::crc32c_base64(expected)
            )));
        }
        let mut buckets = self.buckets.lock().unwrap();
        let bucket = buckets.get_mut(&spec.bucket).ok_or_else(|| StoreError::NoBucket(spec.bucket.clone()))?;
        check_generation(bucket, spec)?;
        if spec.expected_crc32c.is_some() {
            self.checksums_verified.fetch_add(1, Ordering::Relaxed);
        }
        let ingest_crc = ingest.crc32c;
        let object = StoredObject {
            bucket: spec.bucket.clone(),
            name: spec.name.clone(),
            size: ingest.size,
            generation: generation.unwrap_or_else(|| self.next_generation.fetch_add(1, Ordering::Relaxed)),
            crc32c: ingest.crc32c,
            md5: spec.md5,
            content_type: spec.content_type.clone(),
            created: SystemTime::now(),
            data: ingest.into_data().map(|data| self.contents.lock().unwrap().share(ingest_crc, data)),
            finalized: true,
        };
        if let Some(replaced) = bucket.objects.insert(spec.name.clone(), object.clone()) {
            self.release(&replaced);
        }
        self.objects_created.fetch_add(1, Ordering::Relaxed);
        self.bytes_stored.fetch_add(object.size, Ordering::Relaxed);
        Ok(object)
    }

    pub fn start_session(&self, spec: NewObject) -> Result<String, StoreError> {
        Ok(self.new_session(spec, None)?.id())
    }

    fn new_session(
        &self,
        spec: NewObject,
        appendable: Option<appendable::Appendable>,
    ) -> Result<SessionRef, StoreError> {
        self.check_create(&spec)?;
        self.expire_sessions();
        let id = format!("emu-{:x}", self.next_session.fetch_add(1, Ordering::Relaxed));
        let session = Session { id: id.clone(), spec, ingest: Ingest::new(self.retain), touched: Instant::now() };
        let session = Arc::new(SessionEntry {
            id,
            state: Arc::new(tokio::sync::Mutex::new(session)),
            persisted: AtomicU64::new(0),
            finished: Mutex::new(None),
            claims: AtomicU64::new(0),
            superseded: tokio::sync::Notify::new(),
            appendable,
        });
        self.sessions.lock().unwrap().insert(session.id.clone(), session.clone());
        Ok(session)
    }

    pub fn session(&self, id: &str) -> Result<SessionRef, StoreError> {
        self.sessions.lock().unwrap().get(id).cloned().ok_or_else(|| StoreError::NoSession(id.into()))
    }

    pub fn cancel_session(&self, id: &str) -> Result<(), StoreError> {
        self.sessions.lock().unwrap().remove(id).map(|_| ()).ok_or_else(|| StoreError::NoSession(id.into()))
    }

    pub fn session_count(&self) -> usize {
        self.sessions.lock().unwrap().len()
    }

    /// Sessions neither finished nor cancelled: uploads someone left open.
    pub fn open_session_count(&self) -> usize {
        self.sessions.lock().unwrap().values().filter(|s| s.finished().is_none()).count()
    }

    /// Forgets sessions idle for longer than the TTL, so abandoned uploads
    /// cannot grow memory without bound. A session busy with a request is kept.
    fn expire_sessions(&self) {
        let ttl = self.session_ttl;
        self.sessions.lock().unwrap().retain(|_, session| match session.state.try_lock() {
            Ok(session) => session.touched.elapsed() < ttl,
            Err(_) => true,
        });
    }
}

fn check_generation(bucket: &Bucket, spec: &NewObject) -> Result<(), StoreError> {
    let Some(expected) = spec.if_generation_match else {
        return Ok(());
    };
    let current = bucket.objects.get(&spec.name).map_or(0, |o| o.generation);
    if current != expected {
        return Err(StoreError::Precondition(format!("object {} has generation {current}, not {expected}", spec.name)));
    }
    Ok(())
}

pub fn validate_object_name(name: &str) -> Result<(), StoreError> {
    if name.is_empty() || name.len() > 1024 || name.contains(['\r', '\n']) || name == "." || name == ".." {
        return Err(StoreError::Invalid(format!("'{name}' is not a valid object name")));
    }
    Ok(())
}

mod appendable;
#[cfg(test)]
mod tests;
