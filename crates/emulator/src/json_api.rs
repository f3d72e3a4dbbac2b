//! The JSON API routes: buckets, object metadata, reads and deletes. Uploads
//! are in `json_upload`.
// Handlers return a finished error response as their Err: it is the answer
// itself, built once on the error path, so boxing it would buy nothing.
#![allow(clippy::result_large_err)]

use super::Shared;
use super::json_read::{self, Body, whole};
use super::json_upload;
use super::json_wire::*;
use super::server::ConnectionKill;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use std::convert::Infallible;
use std::sync::Arc;

/// Largest JSON body (bucket insert, resumable metadata) read into memory.
const MAX_METADATA_BYTES: usize = 1 << 20;

pub async fn handle(
    shared: Arc<Shared>,
    kill: ConnectionKill,
    req: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    Ok(route(&shared, &kill, req).await)
}

async fn route(shared: &Shared, kill: &ConnectionKill, req: Request<Incoming>) -> Response<Body> {
    let req = match super::oauth::route(shared, req).await {
        Ok(answer) => return whole(answer),
        Err(req) => req,
    };
    let principal = match authenticate(shared, req.headers()) {
        Ok(principal) => principal,
        Err(refused) => return whole(refused),
    };
    let method = req.method().clone();
    // Split before decoding: an object name's own slashes arrive as %2F.
    let segments: Vec<String> = req.uri().path().trim_start_matches('/').split('/').map(decode).collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    let query = query_map(req.uri().query());
    let store = &shared.store;
    if let Some(permission) = permission_needed(&method, &segments).filter(|p| !shared.authority.grants(p)) {
        return whole(super::oauth::forbidden(&principal, permission));
    }
    let answer = match (&method, segments.as_slice()) {
        (&Method::GET, ["storage", "v1", "b", _, "iam", "testPermissions"]) => {
            test_permissions(shared, req.uri().query())
        }
        (&Method::POST, ["storage", "v1", "b"]) => match read_json(req).await {
            Ok(body) => create_bucket(shared, &body),
            Err(response) => response,
        },
        (&Method::GET, ["storage", "v1", "b"]) => {
            let items: Vec<_> = store.bucket_names().iter().map(|name| bucket_resource(shared, name)).collect();
            json_response(StatusCode::OK, &serde_json::json!({"kind": "storage#buckets", "items": items}))
        }
        (&Method::GET, ["storage", "v1", "b", bucket]) => match store.bucket_created(bucket) {
            Ok(_) => json_response(StatusCode::OK, &bucket_resource(shared, bucket)),
            Err(error) => store_error_response(&error),
        },
        (&Method::GET, ["storage", "v1", "b", bucket, "o"]) => list_objects(shared, bucket, &query),
        // Clients read media from /download/... as well.
        (&Method::GET, ["storage", "v1", "b", bucket, "o", name @ ..])
        | (&Method::GET, ["download", "storage", "v1", "b", bucket, "o", name @ ..]) => {
            let object = match shared.store.get(bucket, &name.join("/")) {
                Ok(object) => object,
                Err(error) => return whole(store_error_response(&error)),
            };
            if query.get("alt").map(String::as_str) == Some("media") {
                return json_read::media(shared, kill, object, &query, req.headers()).await;
            }
            json_response(StatusCode::OK, &object_resource(&object))
        }
        (&Method::DELETE, ["storage", "v1", "b", bucket, "o", name @ ..]) => {
            delete_object(shared, bucket, &name.join("/"), &query)
        }
        (_, ["upload", "storage", "v1", "b", bucket, "o"]) => {
            let bucket = bucket.to_string();
            json_upload::route(shared, kill, method, bucket, query, req).await
        }
        _ => error_response(StatusCode::NOT_FOUND, &format!("no route for {method} {}", req.uri().path())),
    };
    whole(answer)
}

/// The caller a token names, when tokens are required; else "the caller".
fn authenticate(shared: &Shared, headers: &hyper::HeaderMap) -> Result<String, JsonResponse> {
    if !shared.authority.required {
        return Ok("the caller".to_string());
    }
    let authorization = headers.get("authorization").and_then(|v| v.to_str().ok());
    shared.authority.principal(authorization).map_err(|why| super::oauth::refusal(&why))
}

/// The IAM permission a request needs, as GCS names it.
fn permission_needed(method: &Method, segments: &[&str]) -> Option<&'static str> {
    match (method, segments) {
        (&Method::DELETE, ["storage", "v1", "b", _, "o", ..]) => Some("storage.objects.delete"),
        (&Method::POST, ["upload", "storage", "v1", "b", _, "o"]) => Some("storage.objects.create"),
        (&Method::GET, ["storage", "v1", "b", _, "o"]) => Some("storage.objects.list"),
        (&Method::GET, ["storage", "v1", "b", _, "o", _, ..]) | (&Method::GET, ["download", ..]) => {
            Some("storage.objects.get")
        }
        _ => None,
    }
}

/// testIamPermissions: the query repeats `permissions`; every one is read.
fn test_permissions(shared: &Shared, query: Option<&str>) -> JsonResponse {
    let asked = query.unwrap_or_default().split('&').filter_map(|pair| pair.strip_prefix("permissions=").map(decode));
    let granted: Vec<String> = asked.filter(|p| shared.authority.grants(p)).collect();
    json_response(
        StatusCode::OK,
        &serde_json::json!({"kind": "storage#testIamPermissionsResponse", "permissions": granted}),
    )
}

fn list_objects(shared: &Shared, bucket: &str, query: &std::collections::HashMap<String, String>) -> JsonResponse {
    let prefix = query.get("prefix").map_or("", String::as_str);
    match shared.store.list(bucket, prefix) {
        Ok(objects) => {
            let items: Vec<_> = objects.iter().map(object_resource).collect();
            json_response(StatusCode::OK, &serde_json::json!({"kind": "storage#objects", "items": items}))
        }
        Err(error) => store_error_response(&error),
    }
}

fn delete_object(
    shared: &Shared,
    bucket: &str,
    name: &str,
    query: &std::collections::HashMap<String, String>,
) -> JsonResponse {
    let if_generation_match = match optional_i64(query, "ifGenerationMatch") {
        Ok(value) => value,
        Err(response) => return response,
    };
    match shared.store.delete(bucket, name, if_generation_match) {
        Ok(()) => Response::builder().status(StatusCode::NO_CONTENT).body(Full::default()).unwrap(),
        Err(error) => store_error_response(&error),
    }
}

fn create_bucket(shared: &Shared, body: &serde_json::Value) -> JsonResponse {
    let Some(name) = body["name"].as_str() else {
        return error_response(StatusCode::BAD_REQUEST, "bucket insert needs a JSON body with a name");
    };
    match shared.store.create_bucket(name) {
        Ok(()) => json_response(StatusCode::OK, &bucket_resource(shared, name)),
        Err(error) => store_error_response(&error),
    }
}

fn bucket_resource(shared: &Shared, name: &str) -> serde_json::Value {
    let created = shared.store.bucket_created(name).unwrap_or(std::time::SystemTime::UNIX_EPOCH);
    serde_json::json!({"kind": "storage#bucket", "id": name, "name": name,
        "location": "US", "storageClass": "STANDARD", "timeCreated": units::rfc3339(created)})
}

pub fn optional_i64(query: &std::collections::HashMap<String, String>, key: &str) -> Result<Option<i64>, JsonResponse> {
    query
        .get(key)
        .map(|v| v.parse::<i64>())
        .transpose()
        .map_err(|_| error_response(StatusCode::BAD_REQUEST, &format!("{key} must be a whole number")))
}

/// Reads a small JSON body; an empty body is `{}`.
pub async fn read_json(req: Request<Incoming>) -> Result<serde_json::Value, JsonResponse> {
    let body: Bytes = match Limited::new(req.into_body(), MAX_METADATA_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return Err(error_response(StatusCode::BAD_REQUEST, "metadata body too large or cut short"));
        }
    };
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(serde_json::json!({}));
    }
    serde_json::from_slice(&body)
        .map_err(|e| error_response(StatusCode::BAD_REQUEST, &format!("the request body is not valid JSON: {e}")))
}
