//! Appendable objects over `BidiWriteObject`: a first message whose
//! `write_object_spec` says `appendable: true` creates one; a first message
//! with an `append_object_spec` takes one over by its generation (the older
//! stream on it is aborted, as on GCS). Either is answered at once with the
//! object as it stands (its generation, the size persisted) and a write
//! handle; the writes that follow are those of any session.

use super::Shared;
use super::grpc_write::{WriteMessage, bucket_name, new_object, to_proto, to_status};
use super::store::SessionRef;
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use tonic::Status;

/// The appendable object the first message opens or takes over, if it names one.
pub fn opened(shared: &Shared, first: &WriteMessage) -> Result<Option<SessionRef>, Status> {
    if let Some(spec) = first.spec.as_ref().filter(|spec| spec.appendable == Some(true)) {
        let spec = new_object(spec, None)?;
        return shared.store.start_appendable(spec).map(Some).map_err(to_status);
    }
    let Some(append) = &first.append else { return Ok(None) };
    let entry = shared.store.appendable(bucket_name(&append.bucket)?, &append.object, append.generation);
    let entry = entry.map_err(to_status)?;
    if let Some(handle) = &append.write_handle
        && handle.handle != entry.id().as_bytes()
    {
        return Err(Status::invalid_argument(format!(
            "the write_handle is not that of {}'s write: leave it out to take over by generation",
            append.object
        )));
    }
    Ok(Some(entry))
}

/// What an appendable write's first message is answered with, or `None`
/// for a write that is not appendable.
pub fn opening_answer(shared: &Shared, entry: &SessionRef) -> Option<pb::BidiWriteObjectResponse> {
    use pb::bidi_write_object_response::WriteStatus;
    let appendable = entry.appendable.as_ref()?;
    let object = shared.store.get(&appendable.bucket, &appendable.name).ok()?;
    Some(pb::BidiWriteObjectResponse {
        write_status: Some(WriteStatus::Resource(to_proto(&object))),
        write_handle: Some(pb::BidiWriteHandle { handle: entry.id().into() }),
    })
}
