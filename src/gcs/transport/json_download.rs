//! JSON API reads: `GET .../o/NAME?alt=media&generation=G`, with `Range` for
//! a part (and for a resume, with `ifGenerationMatch` so a replaced object
//! is never stitched onto the old one's bytes). The body is taken as the
//! buffers hyper read it into, counted and checksummed, and dropped.

use super::download::{DownloadOutcome, DownloadRequest, OpenRead, Piece, read_resuming};
use super::json::JsonTransport;
use super::json_answers::{connection_error, http_error};
use super::{TransportError, stall_guard};
use futures::StreamExt;
use reqwest::Method;

impl JsonTransport {
    pub(super) async fn download_object(&self, request: DownloadRequest) -> Result<DownloadOutcome, TransportError> {
        let base = self.settings().base_url.clone();
        let open = |offset: u64, len: Option<u64>| {
            let (base, object) = (base.clone(), request.object.clone());
            async move {
                let url = self.object_url(&object.name);
                let generation = object.generation.to_string();
                let mut builder = self
                    .request(Method::GET, &url)
                    .await?
                    .query(&[("alt", "media"), ("generation", generation.as_str())]);
                if offset > 0 || len.is_some() {
                    let last = len.map(|len| (offset + len - 1).to_string()).unwrap_or_default();
                    builder = builder.header("range", format!("bytes={offset}-{last}"));
                    builder = builder.query(&[("ifGenerationMatch", generation.as_str())]);
                }
                let response = self.send(builder, "read the object").await?;
                if !response.status().is_success() {
                    return Err(http_error(response).await);
                }
                let object_crc32c = response
                    .headers()
                    .get_all("x-goog-hash")
                    .iter()
                    .filter_map(|v| v.to_str().ok())
                    .flat_map(|v| v.split(','))
                    .find_map(|part| {
                        part.trim().strip_prefix("crc32c=").and_then(crate::gcs::payload::crc32c_from_base64)
                    });
                let pieces = response
                    .bytes_stream()
                    .map(move |piece| {
                        let bytes = piece.map_err(|e| connection_error(&base, "read the object", &e))?;
                        Ok(Piece { bytes, crc32c: None })
                    })
                    .boxed();
                Ok(OpenRead { pieces, object_crc32c })
            }
        };
        let reading = read_resuming(&self.settings().retry, &request, open);
        stall_guard(&request.progress, self.settings().request_timeout, reading).await
    }
}
