//! The write half of the gRPC API, shared by WriteObject and BidiWriteObject:
//! offsets, per-message and whole-object checksums, faults, finalize.

use super::Shared;
use super::faults::{FaultAction, Trigger};
use super::grpc_read::{Content, Rope, malformed, split_data};
use super::ingest::Ingest;
use super::store::{NewObject, Session, SessionRef, StoreError, StoredObject};
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use tonic::{Code, Status};

pub const BUCKET_PREFIX: &str = "projects/_/buckets/";

/// One request of either write RPC, in one shape.
pub struct WriteMessage {
    pub upload_id: Option<String>,
    pub spec: Option<pb::WriteObjectSpec>,
    /// A takeover of an appendable object.
    pub append: Option<pb::AppendObjectSpec>,
    pub write_offset: i64,
    pub data: Option<Content>,
    pub object_checksums: Option<pb::ObjectChecksums>,
    pub finish_write: bool,
    pub state_lookup: bool,
}

impl WriteMessage {
    /// Decodes a request of type `M` from its received bytes, its data left
    /// in the buffers it arrived in.
    pub fn decode<M: prost::Message + Default + Into<WriteMessage>>(message: Rope) -> Result<Self, Status> {
        let (others, data) = split_data(message)?;
        let others = M::decode(others).map_err(malformed)?;
        Ok(WriteMessage { data, ..others.into() })
    }
}

/// The fields other than the data (which `split_data` takes out first).
impl From<pb::WriteObjectRequest> for WriteMessage {
    fn from(m: pb::WriteObjectRequest) -> Self {
        use pb::write_object_request::FirstMessage;
        let (upload_id, spec) = match m.first_message {
            Some(FirstMessage::UploadId(id)) => (Some(id), None),
            Some(FirstMessage::WriteObjectSpec(spec)) => (None, Some(spec)),
            None => (None, None),
        };
        Self {
            upload_id,
            spec,
            append: None,
            write_offset: m.write_offset,
            data: None,
            object_checksums: m.object_checksums,
            finish_write: m.finish_write,
            state_lookup: false,
        }
    }
}

impl From<pb::BidiWriteObjectRequest> for WriteMessage {
    fn from(m: pb::BidiWriteObjectRequest) -> Self {
        use pb::bidi_write_object_request::FirstMessage;
        let (upload_id, spec, append) = match m.first_message {
            Some(FirstMessage::UploadId(id)) => (Some(id), None, None),
            Some(FirstMessage::WriteObjectSpec(spec)) => (None, Some(spec), None),
            Some(FirstMessage::AppendObjectSpec(append)) => (None, None, Some(append)),
            None => (None, None, None),
        };
        Self {
            upload_id,
            spec,
            append,
            write_offset: m.write_offset,
            data: None,
            object_checksums: m.object_checksums,
            finish_write: m.finish_write,
            state_lookup: m.state_lookup,
        }
    }
}

/// Why a write stopped early.
pub enum WriteStop {
    Status(Status),
    Reset,
}

impl From<Status> for WriteStop {
    fn from(status: Status) -> Self {
        WriteStop::Status(status)
    }
}

enum Target {
    OneShot {
        spec: NewObject,
        ingest: Ingest,
    },
    /// The session, this stream's claim on it, and its lock.
    Resumable(SessionRef, u64, tokio::sync::OwnedMutexGuard<Session>),
}

pub struct Writer<'a> {
    shared: &'a Shared,
    target: Target,
    trigger: Trigger,
}

impl<'a> Writer<'a> {
    /// Opens the write the first message names: a new object or a session.
    pub async fn open(shared: &'a Shared, first: &WriteMessage, trigger: Trigger) -> Result<Self, Status> {
        let target = if let Some(id) = &first.upload_id {
            claimed(shared.store.session(id).map_err(to_status)?).await
        } else if let Some(entry) = super::grpc_append::opened(shared, first)? {
            claimed(entry).await
        } else if let Some(spec) = &first.spec {
            let spec = new_object(spec, None)?;
            shared.store.check_create(&spec).map_err(to_status)?;
            Target::OneShot { spec, ingest: Ingest::new(shared.store.retain) }
        } else {
            return Err(Status::invalid_argument("the first message must carry an upload_id or a write_object_spec"));
        };
        Ok(Self { shared, target, trigger })
    }

    /// The session's entry, for a resumable or appendable write.
    pub fn session(&self) -> Option<&SessionRef> {
        match &self.target {
            Target::Resumable(entry, ..) => Some(entry),
            Target::OneShot { .. } => None,
        }
    }

    pub fn is_resumable(&self) -> bool {
        matches!(self.target, Target::Resumable(..))
    }

    pub fn persisted(&self) -> u64 {
        match &self.target {
            Target::OneShot { ingest, .. } => ingest.size,
            Target::Resumable(_, _, session) => session.ingest.size,
        }
    }

    /// The finished object, when a session was completed by an earlier stream.
    pub fn finished(&self) -> Option<pb::Object> {
        match &self.target {
            Target::Resumable(entry, ..) => entry.finished().as_ref().map(to_proto),
            Target::OneShot { .. } => None,
        }
    }

    fn parts(&mut self) -> (&mut Ingest, &NewObject) {
        match &mut self.target {
            Target::OneShot { spec, ingest } => (ingest, spec),
            Target::Resumable(_, _, session) => {
                let session = &mut **session;
                (&mut session.ingest, &session.spec)
            }
        }
    }

    /// Resolves when a newer write claims this stream's session (never for one shot).
    pub async fn superseded(&self) {
        match &self.target {
            Target::Resumable(entry, claim, _) => entry.superseded(*claim).await,
            Target::OneShot { .. } => std::future::pending().await,
        }
    }

    /// Publishes the persisted size for status queries, and an appendable
    /// object's new bytes for its readers.
    fn mirror(&mut self) {
        if let Target::Resumable(entry, _, session) = &mut self.target {
            entry.set_persisted(session.ingest.size);
            if let Some(appendable) = &entry.appendable {
                appendable.publish(session.ingest.take_kept(), session.ingest.size, session.ingest.crc32c);
            }
        }
    }

    /// Takes one message's data at its absolute offset: bytes already
    /// persisted are skipped, a gap is OUT_OF_RANGE, a bad crc32c is refused.
    pub async fn write(&mut self, offset: i64, data: Content) -> Result<(), WriteStop> {
        let persisted = self.persisted();
        let offset = u64::try_from(offset).map_err(|_| Status::invalid_argument("write_offset is negative"))?;
        if offset > persisted {
            return Err(Status::out_of_range(format!(
                "write_offset {offset} leaves a gap: only {persisted} bytes are persisted"
            ))
            .into());
        }
        let len = data.bytes.len();
        let (take, fault) = self.trigger.split(len);
        // A corrupting fault acts on the wire, before any check.
        let content = match fault {
            Some(FaultAction::Corrupt) => {
                let whole = data.bytes.flatten();
                let mut bytes = whole[..take].to_vec();
                bytes.extend(super::faults::corrupted(&whole[take..]));
                Rope::from(bytes::Bytes::from(bytes))
            }
            _ => data.bytes,
        };
        let crc = content.crc32c();
        if let Some(expected) = data.crc32c
            && expected != crc
        {
            return Err(Status::invalid_argument(format!(
                "the message's crc32c {expected:#010x} does not match its data ({crc:#010x})"
            ))
            .into());
        }
        let skip = ((persisted - offset) as usize).min(len);
        let accept = |ingest: &mut Ingest, end: usize| {
            if skip == 0 && end == len {
                ingest.push_checked(&content, crc); // taken whole: its crc is known
            } else if end > skip {
                ingest.push_range(&content, skip, end);
            }
        };
        let (ingest, spec) = self.parts();
        if let Some(limit) = spec.expected_size
            && offset + len as u64 > limit
        {
            return Err(Status::out_of_range(format!("the data runs past the declared object_size {limit}")).into());
        }
        match fault {
            None | Some(FaultAction::Corrupt) => accept(ingest, len),
            Some(FaultAction::Stall(duration)) => {
                tokio::select! {
                    _ = tokio::time::sleep(duration) => {}
                    _ = self.superseded() => return Err(Status::aborted("a newer write to this session took over").into()),
                }
                accept(self.parts().0, len);
            }
            Some(FaultAction::Return(code)) => {
                accept(ingest, take);
                self.mirror();
                return Err(WriteStop::Status(Status::new(grpc_code(code), format!("injected fault: return-{code}"))));
            }
            Some(FaultAction::ResetConnection) => {
                accept(ingest, take);
                self.mirror();
                return Err(WriteStop::Reset);
            }
        }
        self.mirror();
        Ok(())
    }

    /// Creates the object, checking the whole-object crc32c and the size.
    pub fn finish(&mut self, checksums: Option<pb::ObjectChecksums>) -> Result<pb::Object, Status> {
        let retain = self.shared.store.retain;
        let store = &self.shared.store;
        let result = match &mut self.target {
            Target::OneShot { spec, ingest } => {
                let ingest = std::mem::replace(ingest, Ingest::new(retain));
                apply_checksums(spec, checksums);
                store.finalize(spec, ingest)
            }
            Target::Resumable(entry, _, session) => {
                let session = &mut **session;
                let mut ingest = std::mem::replace(&mut session.ingest, Ingest::new(false));
                apply_checksums(&mut session.spec, checksums);
                let appendable = entry.appendable.as_ref();
                if let Some(appendable) = appendable {
                    ingest.restore_kept(&appendable.pieces());
                }
                let result = store.finalize_at(&session.spec, ingest, appendable.map(|a| a.generation));
                match &result {
                    Ok(object) => {
                        if let Some(appendable) = appendable {
                            store.forget_appendable(&appendable.bucket, &appendable.name);
                        }
                        entry.set_finished(object.clone())
                    }
                    Err(_) => {
                        let _ = store.cancel_session(&session.id);
                    }
                }
                result
            }
        };
        result.map(|object| to_proto(&object)).map_err(to_status)
    }
}

/// A session's write target: this stream's claim on it (superseding any
/// older stream) and its lock.
async fn claimed(entry: SessionRef) -> Target {
    let claim = entry.claim();
    let mut session = entry.state.clone().lock_owned().await;
    session.touched = std::time::Instant::now();
    Target::Resumable(entry, claim, session)
}

fn apply_checksums(spec: &mut NewObject, checksums: Option<pb::ObjectChecksums>) {
    if let Some(crc) = checksums.and_then(|c| c.crc32c) {
        spec.expected_crc32c = Some(crc);
    }
}

/// The store's view of a `WriteObjectSpec`.
pub fn new_object(spec: &pb::WriteObjectSpec, checksums: Option<&pb::ObjectChecksums>) -> Result<NewObject, Status> {
    let resource =
        spec.resource.as_ref().ok_or_else(|| Status::invalid_argument("write_object_spec needs a resource"))?;
    Ok(NewObject {
        bucket: bucket_name(&resource.bucket)?.to_string(),
        name: resource.name.clone(),
        content_type: if resource.content_type.is_empty() {
            "application/octet-stream".into()
        } else {
            resource.content_type.clone()
        },
        if_generation_match: spec.if_generation_match,
        expected_crc32c: checksums.and_then(|c| c.crc32c),
        expected_size: spec.object_size.map(|s| s.max(0) as u64),
        md5: None,
    })
}

/// `projects/_/buckets/NAME` -> `NAME`; a bare name is NOT_FOUND, as on GCS.
pub fn bucket_name(resource: &str) -> Result<&str, Status> {
    resource.strip_prefix(BUCKET_PREFIX).ok_or_else(|| {
        Status::not_found(format!("bucket '{resource}' not found: gRPC bucket names are {BUCKET_PREFIX}NAME"))
    })
}

pub fn to_proto(object: &StoredObject) -> pb::Object {
    let since = object.created.duration_since(std::time::SystemTime::UNIX_EPOCH).unwrap_or_default();
    let created = prost_types::Timestamp { seconds: since.as_secs() as i64, nanos: since.subsec_nanos() as i32 };
    pb::Object {
        name: object.name.clone(),
        bucket: format!("{BUCKET_PREFIX}{}", object.bucket),
        generation: object.generation,
        metageneration: 1,
        size: object.size as i64,
        content_type: object.content_type.clone(),
        storage_class: "STANDARD".into(),
        checksums: Some(pb::ObjectChecksums {
            crc32c: Some(object.crc32c),
            md5_hash: object.md5.map(|m| bytes::Bytes::copy_from_slice(&m)).unwrap_or_default(),
        }),
        create_time: Some(created),
        // An appendable object being written has none yet.
        finalize_time: object.finalized.then_some(created),
        ..Default::default()
    }
}

pub fn to_status(error: StoreError) -> Status {
    let code = match &error {
        StoreError::NoBucket(_) | StoreError::NoObject(_) | StoreError::NoSession(_) => Code::NotFound,
        StoreError::BucketExists(_) => Code::AlreadyExists,
        StoreError::Precondition(_) => Code::FailedPrecondition,
        StoreError::Checksum(_) | StoreError::Invalid(_) => Code::InvalidArgument,
    };
    Status::new(code, error.to_string())
}

/// The gRPC code GCS uses for an HTTP status.
pub fn grpc_code(http: u16) -> Code {
    match http {
        400 => Code::InvalidArgument,
        401 => Code::Unauthenticated,
        403 => Code::PermissionDenied,
        404 => Code::NotFound,
        408 | 504 => Code::DeadlineExceeded,
        409 => Code::Aborted,
        412 => Code::FailedPrecondition,
        429 => Code::ResourceExhausted,
        500 => Code::Internal,
        501 => Code::Unimplemented,
        503 => Code::Unavailable,
        _ => Code::Unknown,
    }
}
