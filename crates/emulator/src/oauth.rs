//! The OAuth 2.0 side of the emulator, on the JSON API's server as the
//! credential files' URLs point it: Google's token endpoint (`/token`:
//! the JWT-bearer grant of service-account keys, the refresh-token grant of
//! `authorized_user` files), STS (`/v1/token`: an external account's subject
//! token exchanged), IAM credentials (`:generateAccessToken`: impersonation),
//! `/revoke`, and the metadata server's token and e-mail (served on a port
//! of their own, plain HTTP, as a VM's is). Answers are Google's shapes.

use super::Shared;
use super::authority::Authority;
use super::json_wire::{JsonResponse, error_response, json_response, query_map};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};

/// Answers the request if it is for an OAuth endpoint.
pub async fn route(shared: &Shared, req: Request<Incoming>) -> Result<JsonResponse, Request<Incoming>> {
    let path = req.uri().path().to_string();
    let authority = &shared.authority;
    let answer = match (req.method(), path.as_str()) {
        (&Method::POST, "/token") => token_grant(authority, &form(req).await),
        (&Method::POST, "/v1/token") => sts_exchange(authority, &form(req).await),
        (&Method::POST, "/revoke") | (&Method::POST, "/o/oauth2/revoke") => {
            let mut fields = query_map(req.uri().query());
            fields.extend(form(req).await);
            match fields.get("token") {
                Some(token) if authority.revoke(token) => json_response(StatusCode::OK, &serde_json::json!({})),
                _ => oauth_error(StatusCode::BAD_REQUEST, "invalid_token", "Token expired or revoked"),
            }
        }
        (&Method::POST, p)
            if p.starts_with("/v1/projects/-/serviceAccounts/") && p.ends_with(":generateAccessToken") =>
        {
            let email =
                p.trim_start_matches("/v1/projects/-/serviceAccounts/").trim_end_matches(":generateAccessToken");
            impersonate(authority, email, req.headers().get("authorization").and_then(|v| v.to_str().ok()))
        }
        _ => return Err(req),
    };
    Ok(answer)
}

/// The metadata server's answers (its own port): the default account's
/// token and e-mail, for callers that send `Metadata-Flavor: Google`.
pub async fn metadata(authority: &Authority, req: Request<Incoming>) -> JsonResponse {
    if req.headers().get("metadata-flavor").and_then(|v| v.to_str().ok()) != Some("Google") {
        return text(StatusCode::FORBIDDEN, "Missing Metadata-Flavor:Google header.");
    }
    let path = req.uri().path().trim_end_matches('/');
    const ACCOUNT: &str = "/computeMetadata/v1/instance/service-accounts/default";
    match path {
        p if p == format!("{ACCOUNT}/token") => {
            let (token, ttl) = authority.issue(&authority.metadata_email);
            json_response(
                StatusCode::OK,
                &serde_json::json!({"access_token": token, "expires_in": ttl.as_secs().max(1), "token_type": "Bearer"}),
            )
        }
        p if p == format!("{ACCOUNT}/email") => text(StatusCode::OK, &authority.metadata_email),
        p if p == ACCOUNT => json_response(
            StatusCode::OK,
            &serde_json::json!({"email": authority.metadata_email, "aliases": ["default"],
                "scopes": ["https://www.googleapis.com/auth/cloud-platform"]}),
        ),
        "/computeMetadata/v1/universe/universe-domain" => text(StatusCode::OK, "googleapis.com"),
        "/computeMetadata/v1/project/project-id" => text(StatusCode::OK, "emulator-project"),
        "" | "/computeMetadata/v1" => text(StatusCode::OK, "instance/\nproject/\n"),
        _ => text(StatusCode::NOT_FOUND, "Not found"),
    }
}

fn token_grant(authority: &Authority, form: &std::collections::HashMap<String, String>) -> JsonResponse {
    let field = |name: &str| form.get(name).map(String::as_str).unwrap_or_default();
    let principal = match field("grant_type") {
        "urn:ietf:params:oauth:grant-type:jwt-bearer" => authority.assertion(field("assertion")),
        "refresh_token" => authority
            .refresh_grant(field("client_id"), field("client_secret"), field("refresh_token"))
            .ok_or_else(|| "Token has been expired or revoked.".to_string()),
        other => {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                &format!("Invalid grant_type: {other}"),
            );
        }
    };
    match principal {
        Ok(principal) => {
            let (token, ttl) = authority.issue(&principal);
            json_response(
                StatusCode::OK,
                &serde_json::json!({"access_token": token, "expires_in": ttl.as_secs().max(1), "token_type": "Bearer"}),
            )
        }
        Err(why) => oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", &why),
    }
}

fn sts_exchange(authority: &Authority, form: &std::collections::HashMap<String, String>) -> JsonResponse {
    if form.get("grant_type").map(String::as_str) != Some("urn:ietf:params:oauth:grant-type:token-exchange") {
        return oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type", "Unsupported grant_type.");
    }
    match authority.subject_token(form.get("subject_token").map(String::as_str).unwrap_or_default()) {
        Some(principal) => {
            let (token, ttl) = authority.issue(&principal);
            json_response(
                StatusCode::OK,
                &serde_json::json!({"access_token": token, "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
                    "token_type": "Bearer", "expires_in": ttl.as_secs().max(1)}),
            )
        }
        None => {
            oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", "The subject token is not trusted by this emulator.")
        }
    }
}

fn impersonate(authority: &Authority, email: &str, authorization: Option<&str>) -> JsonResponse {
    if let Err(why) = authority.principal(authorization) {
        return refusal(&why);
    }
    if !authority.may_impersonate(email) {
        return error_response(
            StatusCode::FORBIDDEN,
            &format!(
                "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist): {email}"
            ),
        );
    }
    let (token, ttl) = authority.issue(email);
    let expires = std::time::SystemTime::now() + ttl;
    json_response(StatusCode::OK, &serde_json::json!({"accessToken": token, "expireTime": units::rfc3339(expires)}))
}

/// GCS's 401: an error body, and the header that says a token is wanted.
pub fn refusal(why: &str) -> JsonResponse {
    let body = serde_json::json!({"error": {"code": 401, "message": format!("Invalid Credentials: {why}"),
        "errors": [{"message": "Invalid Credentials", "domain": "global", "reason": "authError",
            "locationType": "header", "location": "Authorization"}]}});
    let mut response = json_response(StatusCode::UNAUTHORIZED, &body);
    response.headers_mut().insert(
        "www-authenticate",
        http::HeaderValue::from_static("Bearer realm=\"https://accounts.google.com/\", error=\"invalid_token\""),
    );
    response
}

/// GCS's 403 for a permission the caller lacks.
pub fn forbidden(principal: &str, permission: &str) -> JsonResponse {
    error_response(
        StatusCode::FORBIDDEN,
        &format!(
            "{principal} does not have {permission} access to the Google Cloud Storage object. Permission '{permission}' denied on resource (or it may not exist)."
        ),
    )
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> JsonResponse {
    json_response(status, &serde_json::json!({"error": error, "error_description": description}))
}

fn text(status: StatusCode, body: &str) -> JsonResponse {
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    *response.status_mut() = status;
    response.headers_mut().insert("content-type", http::HeaderValue::from_static("text/plain"));
    response.headers_mut().insert("metadata-flavor", http::HeaderValue::from_static("Google"));
    response
}

/// A request's fields: a form body (application/x-www-form-urlencoded), or
/// a JSON object (Google's token endpoint takes both, and clients send both).
async fn form(req: Request<Incoming>) -> std::collections::HashMap<String, String> {
    let json = req.headers().get("content-type").and_then(|v| v.to_str().ok()).is_some_and(|t| t.contains("json"));
    let Ok(body) = Limited::new(req.into_body(), 64 << 10).collect().await else {
        return Default::default();
    };
    let body = body.to_bytes();
    if !json {
        return query_map(Some(&String::from_utf8_lossy(&body)));
    }
    let fields: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(&body).unwrap_or_default();
    fields
        .into_iter()
        .map(|(key, value)| (key, value.as_str().map(String::from).unwrap_or_else(|| value.to_string())))
        .collect()
}
