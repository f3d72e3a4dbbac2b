//! Small pieces of the JSON API's wire format: query strings, Content-Range,
//! x-goog-hash, multipart/related bodies, object resources and error bodies.

use super::store::{StoreError, StoredObject};
use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, StatusCode};
use percent_encoding::percent_decode_str;
use std::collections::HashMap;
use units::rfc3339;

pub type JsonResponse = Response<Full<Bytes>>;

pub fn query_map(query: Option<&str>) -> HashMap<String, String> {
    query
        .unwrap_or("")
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(key), decode(&value.replace('+', " ")))
        })
        .collect()
}

pub fn decode(text: &str) -> String {
    percent_decode_str(text).decode_utf8_lossy().into_owned()
}

/// A `Content-Range` on a resumable PUT.
#[derive(Debug, PartialEq, Eq)]
pub struct ContentRange {
    /// `Some((first, last))` for a data chunk, `None` for a status query (`*/...`).
    pub bytes: Option<(u64, u64)>,
    /// The object's total size once the client knows it.
    pub total: Option<u64>,
}

/// Parses `bytes A-B/T`, `bytes A-B/*`, `bytes */T` and `bytes */*`.
pub fn parse_content_range(text: &str) -> Result<ContentRange, String> {
    let invalid = || format!("invalid Content-Range '{text}': expected bytes A-B/TOTAL, bytes A-B/* or bytes */TOTAL");
    let spec = text.trim().strip_prefix("bytes ").ok_or_else(invalid)?;
    let (range, total) = spec.split_once('/').ok_or_else(invalid)?;
    let total = match total {
        "*" => None,
        t => Some(t.parse::<u64>().map_err(|_| invalid())?),
    };
    let bytes = match range {
        "*" => None,
        r => {
            let (first, last) = r.split_once('-').ok_or_else(invalid)?;
            let first: u64 = first.parse().map_err(|_| invalid())?;
            let last: u64 = last.parse().map_err(|_| invalid())?;
            if last < first || total.is_some_and(|t| last >= t) {
                return Err(invalid());
            }
            Some((first, last))
        }
    };
    Ok(ContentRange { bytes, total })
}

/// The crc32c (and md5) of `x-goog-hash: crc32c=...,md5=...`.
pub fn parse_goog_hash(text: &str) -> (Option<u32>, Option<[u8; 16]>) {
    use base64::Engine;
    let mut crc = None;
    let mut md5 = None;
    for part in text.split(',') {
        match part.trim().split_once('=') {
            Some(("crc32c", value)) => crc = gcs_protocol::crc::crc32c_from_base64(value),
            Some(("md5", value)) => {
                md5 = base64::engine::general_purpose::STANDARD
                    .decode(value.trim())
                    .ok()
                    .and_then(|raw| raw.try_into().ok())
            }
            _ => {}
        }
    }
    (crc, md5)
}

/// The crc32c and md5 a request's `x-goog-hash` header carries, if any.
pub fn goog_hash(headers: &hyper::HeaderMap) -> (Option<u32>, Option<[u8; 16]>) {
    headers.get("x-goog-hash").and_then(|v| v.to_str().ok()).map(parse_goog_hash).unwrap_or((None, None))
}

/// Splits a `multipart/related` body into its metadata JSON and its data,
/// slicing the body without copying the data.
pub fn split_multipart(content_type: &str, body: &Bytes) -> Result<(serde_json::Value, Bytes), String> {
    let boundary = content_type
        .split(';')
        .find_map(|p| p.trim().strip_prefix("boundary="))
        .map(|b| b.trim_matches('"'))
        .ok_or("multipart upload without a boundary")?;
    let delimiter = format!("--{boundary}");
    let parts: Vec<Bytes> = split_on(body, delimiter.as_bytes());
    let mut contents = parts.into_iter().filter_map(|part| {
        let start = find(&part, b"\r\n\r\n")? + 4;
        let end = part.len().checked_sub(2).filter(|e| part[*e..].starts_with(b"\r\n"))?;
        (start <= end).then(|| part.slice(start..end))
    });
    let metadata = contents.next().ok_or("multipart upload without a metadata part")?;
    let data = contents.next().ok_or("multipart upload without a data part")?;
    let metadata: serde_json::Value =
        serde_json::from_slice(&metadata).map_err(|e| format!("multipart metadata is not JSON: {e}"))?;
    Ok((metadata, data))
}

fn split_on(body: &Bytes, delimiter: &[u8]) -> Vec<Bytes> {
    let mut parts = Vec::new();
    let mut rest = 0;
    while let Some(at) = find(&body[rest..], delimiter) {
        if at > 0 {
            parts.push(body.slice(rest..rest + at));
        }
        rest += at + delimiter.len();
    }
    parts
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

pub fn object_resource(object: &StoredObject) -> serde_json::Value {
    use base64::Engine;
    let created = rfc3339(object.created);
    let mut resource = serde_json::json!({
        "kind": "storage#object",
        "id": format!("{}/{}/{}", object.bucket, object.name, object.generation),
        "name": object.name,
        "bucket": object.bucket,
        "generation": object.generation.to_string(),
        "metageneration": "1",
        "contentType": object.content_type,
        "storageClass": "STANDARD",
        "size": object.size.to_string(),
        "crc32c": gcs_protocol::crc::crc32c_base64(object.crc32c),
        "etag": format!("CN{}", object.generation),
        "timeCreated": created,
        "updated": created,
    });
    if let Some(md5) = object.md5 {
        resource["md5Hash"] = base64::engine::general_purpose::STANDARD.encode(md5).into();
    }
    resource
}

pub fn json_response(status: StatusCode, value: &serde_json::Value) -> JsonResponse {
    Response::builder()
        .status(status)
        .header("content-type", "application/json; charset=UTF-8")
        .body(Full::new(Bytes::from(value.to_string())))
        .expect("static headers are valid")
}

/// The GCS JSON error body: `{"error":{"code","message","errors":[...]}}`.
pub fn error_response(status: StatusCode, message: &str) -> JsonResponse {
    let reason = match status.as_u16() {
        400 => "invalid",
        401 => "required",
        403 => "forbidden",
        404 => "notFound",
        409 => "conflict",
        412 => "conditionNotMet",
        429 => "rateLimitExceeded",
        _ => "backendError",
    };
    json_response(
        status,
        &serde_json::json!({"error": {"code": status.as_u16(), "message": message,
            "errors": [{"message": message, "domain": "global", "reason": reason}]}}),
    )
}

pub fn store_error_response(error: &StoreError) -> JsonResponse {
    let status = match error {
        StoreError::NoBucket(_) | StoreError::NoObject(_) | StoreError::NoSession(_) => StatusCode::NOT_FOUND,
        StoreError::BucketExists(_) => StatusCode::CONFLICT,
        StoreError::Precondition(_) => StatusCode::PRECONDITION_FAILED,
        StoreError::Checksum(_) | StoreError::Invalid(_) => StatusCode::BAD_REQUEST,
    };
    error_response(status, &error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_ranges_parse_in_all_four_forms() {
        assert_eq!(parse_content_range("bytes 0-99/200"), Ok(ContentRange { bytes: Some((0, 99)), total: Some(200) }));
        assert_eq!(parse_content_range("bytes 0-99/*"), Ok(ContentRange { bytes: Some((0, 99)), total: None }));
        assert_eq!(parse_content_range("bytes */200"), Ok(ContentRange { bytes: None, total: Some(200) }));
        assert_eq!(parse_content_range("bytes */*"), Ok(ContentRange { bytes: None, total: None }));
        for bad in ["bytes 5-1/10", "bytes 0-10/10", "0-1/2", "bytes a-b/c", "bytes 0-1", ""] {
            assert!(parse_content_range(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn goog_hash_gives_crc_and_md5() {
        let (crc, md5) = parse_goog_hash("crc32c=yZRlqg==,md5=XrY7u+Ae7tCTyyK7j1rNww==");
        assert_eq!(crc, Some(0xc994_65aa));
        assert_eq!(md5.map(|m| m[0]), Some(0x5e));
        assert_eq!(parse_goog_hash("md5=bad"), (None, None));
    }

    #[test]
    fn multipart_bodies_split_into_metadata_and_data() {
        let body = Bytes::from_static(
            b"--xyz\r\ncontent-type: application/json\r\n\r\n{\"name\":\"o\"}\r\n--xyz\r\n\
              content-type: application/octet-stream\r\n\r\nDATA\r\n\r\n--xyz--\r\n",
        );
        let (metadata, data) = split_multipart("multipart/related; boundary=xyz", &body).unwrap();
        assert_eq!(metadata["name"], "o");
        assert_eq!(&data[..], b"DATA\r\n");
        assert!(split_multipart("multipart/related", &body).is_err());
    }

    #[test]
    fn queries_decode() {
        let q = query_map(Some("name=a%2Fb&uploadType=media&ifGenerationMatch=0"));
        assert_eq!(q["name"], "a/b");
        assert_eq!(q["ifGenerationMatch"], "0");
    }
}
