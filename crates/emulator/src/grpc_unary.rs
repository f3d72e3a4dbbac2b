//! The v2 API's one-request methods: each a function from the request
//! message to the answer, served through tonic's unary machinery.

use super::Shared;
use super::grpc_write::{BUCKET_PREFIX, bucket_name, new_object, to_proto, to_status};
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use hyper::body::Incoming;
use std::future::Future;
use std::sync::Arc;
use tonic::{Request, Response, Status};
use tower::service_fn;

/// Serves one call of a unary method whose answer `answer` gives.
pub async fn unary<Q, A, F, Fut>(
    shared: Arc<Shared>,
    req: http::Request<Incoming>,
    answer: F,
) -> http::Response<tonic::body::Body>
where
    Q: prost::Message + Default + Send + 'static,
    A: prost::Message + Default + Send + 'static,
    F: Fn(Arc<Shared>, Q) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = Result<A, Status>> + Send + 'static,
{
    let service = service_fn(move |r: Request<Q>| answer.clone()(shared.clone(), r.into_inner()));
    let service = tower::ServiceExt::map_response(service, Response::new);
    super::grpc_api::grpc::<A, Q>().unary(service, req).await
}

pub async fn start_resumable_write(
    shared: Arc<Shared>,
    r: pb::StartResumableWriteRequest,
) -> Result<pb::StartResumableWriteResponse, Status> {
    let spec = r.write_object_spec.ok_or_else(|| Status::invalid_argument("write_object_spec is required"))?;
    let spec = new_object(&spec, r.object_checksums.as_ref())?;
    let upload_id = shared.store.start_session(spec).map_err(to_status)?;
    Ok(pb::StartResumableWriteResponse { upload_id })
}

/// Answered from the session's mirrors: a write in progress does not hold it up.
pub async fn query_write_status(
    shared: Arc<Shared>,
    r: pb::QueryWriteStatusRequest,
) -> Result<pb::QueryWriteStatusResponse, Status> {
    use pb::query_write_status_response::WriteStatus;
    let entry = shared.store.session(&r.upload_id).map_err(to_status)?;
    let status = match entry.finished() {
        Some(object) => WriteStatus::Resource(to_proto(&object)),
        None => WriteStatus::PersistedSize(entry.persisted() as i64),
    };
    Ok(pb::QueryWriteStatusResponse { write_status: Some(status) })
}

pub async fn cancel_resumable_write(
    shared: Arc<Shared>,
    r: pb::CancelResumableWriteRequest,
) -> Result<pb::CancelResumableWriteResponse, Status> {
    shared.store.cancel_session(&r.upload_id).map_err(to_status)?;
    Ok(pb::CancelResumableWriteResponse {})
}

pub async fn get_object(shared: Arc<Shared>, r: pb::GetObjectRequest) -> Result<pb::Object, Status> {
    let object = shared.store.get(bucket_name(&r.bucket)?, &r.object).map_err(to_status)?;
    if r.generation != 0 && r.generation != object.generation {
        return Err(Status::not_found(format!("generation {} of {} not found", r.generation, r.object)));
    }
    Ok(to_proto(&object))
}

pub async fn delete_object(shared: Arc<Shared>, r: pb::DeleteObjectRequest) -> Result<(), Status> {
    let generation = r.if_generation_match.or((r.generation != 0).then_some(r.generation));
    shared.store.delete(bucket_name(&r.bucket)?, &r.object, generation).map_err(to_status)
}

/// Pages in name order: the token is the last name given.
pub async fn list_objects(shared: Arc<Shared>, r: pb::ListObjectsRequest) -> Result<pb::ListObjectsResponse, Status> {
    let objects = shared.store.list(bucket_name(&r.parent)?, &r.prefix).map_err(to_status)?;
    let page = if r.page_size > 0 { r.page_size as usize } else { 1000 };
    let rest: Vec<_> = objects.iter().filter(|o| o.name > r.page_token).collect();
    let next_page_token = if rest.len() > page { rest[page - 1].name.clone() } else { String::new() };
    let objects = rest.into_iter().take(page).map(to_proto).collect();
    Ok(pb::ListObjectsResponse { objects, next_page_token, ..Default::default() })
}

pub async fn get_bucket(shared: Arc<Shared>, r: pb::GetBucketRequest) -> Result<pb::Bucket, Status> {
    shared.store.bucket_created(bucket_name(&r.name)?).map_err(to_status)?;
    Ok(pb::Bucket { name: r.name.clone(), bucket_id: r.name, ..Default::default() })
}

pub async fn create_bucket(shared: Arc<Shared>, r: pb::CreateBucketRequest) -> Result<pb::Bucket, Status> {
    shared.store.create_bucket(&r.bucket_id).map_err(to_status)?;
    let name = format!("{BUCKET_PREFIX}{}", r.bucket_id);
    Ok(pb::Bucket { name, bucket_id: r.bucket_id, ..Default::default() })
}
