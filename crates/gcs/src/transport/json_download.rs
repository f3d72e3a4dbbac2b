//! JSON API reads: `GET .../o/NAME?alt=media&generation=G`, with `Range` for
//! a part (and for a resume, with `ifGenerationMatch` so a replaced object
//! is never stitched onto the old one's bytes). The body is taken as the
//! buffers hyper read it into, counted and checksummed, and dropped.

use super::download::{DownloadOutcome, DownloadRequest, ListedObject, OpenRead, Piece, read_resuming};
use super::json::JsonTransport;
use super::json_answers::{connection_error, http_error};
use super::{CreatedObject, TransportError, stall_guard};
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
                        part.trim().strip_prefix("crc32c=").and_then(gcs_protocol::crc::crc32c_from_base64)
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

    /// Up to `limit` objects under `prefix`, by name, following pages.
    pub(super) async fn list_objects(&self, prefix: &str, limit: usize) -> Result<Vec<ListedObject>, TransportError> {
        let url = format!("{}/storage/v1/b/{}/o", self.settings().base_url, self.settings().bucket);
        let mut listed = Vec::new();
        let mut page: Option<String> = None;
        while listed.len() < limit {
            let mut builder = self.request(Method::GET, &url).await?.query(&[("prefix", prefix)]);
            builder = builder.query(&[("maxResults", limit.min(1000).to_string())]);
            if let Some(token) = &page {
                builder = builder.query(&[("pageToken", token.as_str())]);
            }
            let response = self.send(builder, "list the objects to read").await?;
            if !response.status().is_success() {
                return Err(http_error(response).await);
            }
            let body: serde_json::Value = response
                .json()
                .await
                .map_err(|e| TransportError::Protocol(format!("the object listing is not JSON: {e}")))?;
            for item in body["items"].as_array().into_iter().flatten() {
                let number = |key: &str| item[key].as_str().and_then(|s| s.parse().ok()).or_else(|| item[key].as_i64());
                let (Some(name), Some(generation)) = (item["name"].as_str(), number("generation")) else {
                    return Err(TransportError::Protocol("an object in the listing has no name or generation".into()));
                };
                let object = CreatedObject { name: name.to_string(), generation };
                listed.push(ListedObject { object, size: number("size").unwrap_or(0) as u64 });
            }
            page = body["nextPageToken"].as_str().map(String::from);
            if page.is_none() {
                break;
            }
        }
        listed.truncate(limit);
        Ok(listed)
    }
}
