//! gRPC reads: `ReadObject` (server streaming) at `read_offset` with
//! `read_limit`, pinned to the object's generation, each message's crc32c
//! checked when checksums are on (a mismatch is an error, never retried).
//! A resume is a new ReadObject at the first byte not yet received.

use super::download::{DownloadOutcome, DownloadRequest, ListedObject, OpenRead, Piece, read_resuming};
use super::grpc::{GrpcTransport, status_error};
use super::{CreatedObject, TransportError, stall_guard};
use futures::StreamExt;
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;

impl GrpcTransport {
    pub(super) async fn download_object(&self, request: DownloadRequest) -> Result<DownloadOutcome, TransportError> {
        let check = self.settings().checksum;
        let open = |offset: u64, len: Option<u64>| {
            let object = request.object.clone();
            async move {
                let read = pb::ReadObjectRequest {
                    bucket: self.bucket_resource(),
                    object: object.name.clone(),
                    generation: object.generation,
                    read_offset: offset as i64,
                    read_limit: len.unwrap_or(0) as i64,
                    ..Default::default()
                };
                let mut stream = self
                    .client()
                    .read_object(self.with_metadata(read).await?)
                    .await
                    .map_err(status_error)?
                    .into_inner();
                let first = stream.message().await.map_err(status_error)?;
                let object_crc32c = first.as_ref().and_then(whole_object_crc32c);
                let mut at = offset;
                let rest = futures::stream::unfold(stream, |mut stream| async move {
                    let next = stream.message().await.map_err(status_error).transpose()?;
                    Some((next, stream))
                });
                let pieces = futures::stream::iter(first.map(Ok))
                    .chain(rest)
                    .map(move |message| {
                        let data = message?.checksummed_data.unwrap_or_default();
                        // Computed once: checked here, and combined into the whole object's.
                        let crc = check.then(|| gcs_protocol::crc::crc32c(&data.content));
                        if let (Some(got), Some(expected)) = (crc, data.crc32c)
                            && got != expected
                        {
                            return Err(TransportError::Protocol(format!(
                                "checksum mismatch in the ReadObject message at offset {at} of {}",
                                object.name
                            )));
                        }
                        at += data.content.len() as u64;
                        Ok(Piece { bytes: data.content, crc32c: crc })
                    })
                    .boxed();
                Ok(OpenRead { pieces, object_crc32c })
            }
        };
        let reading = read_resuming(&self.settings().retry, &request, open);
        stall_guard(&request.progress, self.settings().request_timeout, reading).await
    }

    /// Up to `limit` objects under `prefix`, by name, following pages.
    pub(super) async fn list_objects(&self, prefix: &str, limit: usize) -> Result<Vec<ListedObject>, TransportError> {
        let mut listed = Vec::new();
        let mut page_token = String::new();
        while listed.len() < limit {
            let list = pb::ListObjectsRequest {
                parent: self.bucket_resource(),
                prefix: prefix.into(),
                page_size: limit.min(1000) as i32,
                page_token: page_token.clone(),
                ..Default::default()
            };
            let answer =
                self.client().list_objects(self.with_metadata(list).await?).await.map_err(status_error)?.into_inner();
            listed.extend(answer.objects.into_iter().map(|o| ListedObject {
                object: CreatedObject { name: o.name, generation: o.generation },
                size: o.size.max(0) as u64,
            }));
            if answer.next_page_token.is_empty() {
                break;
            }
            page_token = answer.next_page_token;
        }
        listed.truncate(limit);
        Ok(listed)
    }
}

/// The whole object's crc32c, as the first ReadObject message may say it:
/// in `object_checksums`, or only in `metadata.checksums` (the proto allows
/// either, or neither).
fn whole_object_crc32c(first: &pb::ReadObjectResponse) -> Option<u32> {
    let in_metadata = || first.metadata.as_ref().and_then(|m| m.checksums.as_ref()).and_then(|c| c.crc32c);
    first.object_checksums.as_ref().and_then(|c| c.crc32c).or_else(in_metadata)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_whole_objects_crc32c_is_read_from_either_place_the_proto_allows() {
        let checksums = |crc: u32| Some(pb::ObjectChecksums { crc32c: Some(crc), ..Default::default() });
        let in_metadata = pb::ReadObjectResponse {
            metadata: Some(pb::Object { checksums: checksums(7), ..Default::default() }),
            ..Default::default()
        };
        assert_eq!(whole_object_crc32c(&in_metadata), Some(7));
        let both = pb::ReadObjectResponse { object_checksums: checksums(9), ..in_metadata.clone() };
        assert_eq!(whole_object_crc32c(&both), Some(9), "object_checksums first");
        assert_eq!(whole_object_crc32c(&pb::ReadObjectResponse::default()), None);
    }
}
