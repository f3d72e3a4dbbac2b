//! etcd over its HTTP/JSON gateway with reqwest, as the study's `http.go`
//! did: HTTP/1.1 keep-alive, `POST /v3/kv/put`, `/v3/kv/range`,
//! `/v3/kv/deleterange`, `/v3/watch` (a stream of JSON lines), keys and
//! values in base64, int64s as strings, and the token from
//! `/v3/auth/authenticate` in the `Authorization` header.

use super::client::{Delivered, EtcdError, Kv, Reach, WatchEnd, explain_server_error, prefix_end, unreachable};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use engine::plan::TransportKind;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use wire::connections::{CountConnections, root_cause};

pub struct GatewayKv {
    client: reqwest::Client,
    endpoints: Vec<String>,
    next: AtomicUsize,
    token: Option<String>,
    connections: CountConnections,
}

impl GatewayKv {
    /// Builds the client (nothing is opened yet), checks the first endpoint
    /// is etcd, and signs in when a user is given.
    pub async fn connect(reach: &Reach) -> Result<Self, EtcdError> {
        let connections = CountConnections::default();
        let client = http_client(reach)?.connector_layer(connections.clone()).build().map_err(|e| build_error(&e))?;
        let mut kv =
            Self { client, endpoints: reach.endpoints.clone(), next: AtomicUsize::new(0), token: None, connections };
        for endpoint in &reach.endpoints {
            kv.check_is_etcd(endpoint).await?;
        }
        if let Some((name, password)) = &reach.user {
            let answer = kv.call("/v3/auth/authenticate", json!({ "name": name, "password": password })).await?;
            let token = answer["token"].as_str().ok_or_else(|| EtcdError::Protocol("etcd gave no token".into()))?;
            kv.token = Some(token.to_string());
        }
        Ok(kv)
    }

    /// `GET /version` answers `{"etcdserver": "3.4.23", ...}` on etcd only.
    async fn check_is_etcd(&self, endpoint: &str) -> Result<(), EtcdError> {
        let url = format!("{endpoint}/version");
        let response = self.client.get(&url).send().await.map_err(|e| {
            let cause = root_cause(&e);
            // An HTTP/2-only server (a gRPC port) answers HTTP/1.1 with its own
            // preface: read as a bad version, or as a message before any request.
            match cause.contains("invalid HTTP version") || cause.contains("unexpected message from connection") {
                true => EtcdError::Own { kind: crate::client::NOT_ETCD, message: format!(
                    "{endpoint} answered, but not in HTTP/1.1 (an HTTP/2-only or gRPC-only server): it is not etcd's client URL, which serves both; check --endpoints"
                ) },
                false => unreachable(endpoint, &cause),
            }
        })?;
        let text = response.text().await.unwrap_or_default();
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        if body["etcdserver"].is_string() {
            Ok(())
        } else if text.contains("HTTPS server") {
            Err(EtcdError::Connection(format!("{endpoint} speaks TLS: use https:// in --endpoints")))
        } else {
            Err(EtcdError::Connection(format!(
                "{endpoint} answered, but it is not etcd (no etcd version at /version): check --endpoints"
            )))
        }
    }

    fn endpoint(&self) -> &str {
        &self.endpoints[self.next.fetch_add(1, Ordering::Relaxed) % self.endpoints.len()]
    }

    fn post(&self, path: &str, body: &Value) -> reqwest::RequestBuilder {
        let mut request = self.client.post(format!("{}{path}", self.endpoint())).json(body);
        if let Some(token) = &self.token {
            request = request.header("authorization", token);
        }
        request
    }

    async fn call(&self, path: &str, body: Value) -> Result<Value, EtcdError> {
        let response = self.post(path, &body).send().await.map_err(|e| connection_error(&e))?;
        let status = response.status();
        let url = response.url().origin().ascii_serialization();
        let text = response.text().await.map_err(|e| connection_error(&e))?;
        let answer: Value = serde_json::from_str(&text).map_err(|_| {
            let said: String = text.trim().chars().take(160).collect();
            EtcdError::Protocol(format!(
                "{url}{path} answered HTTP {} with something that is not the gateway's JSON (\"{said}\"): check that --endpoints is etcd's client URL (usually port 2379; 2380 is the peer port)",
                status.as_u16()
            ))
        })?;
        if status.is_success() && answer.get("error").is_none() {
            Ok(answer)
        } else {
            Err(gateway_error(&answer, status))
        }
    }
}

/// The reqwest client both the gateway and `/metrics` use: HTTP/1.1 (the
/// gateway speaks it; keep-alive on), and the cluster's CA and client
/// certificate when given.
pub fn http_client(reach: &Reach) -> Result<reqwest::ClientBuilder, EtcdError> {
    wire::tls::install_crypto_provider();
    let mut builder = reqwest::Client::builder()
        .http1_only()
        .user_agent(engine::report::USER_AGENT)
        .connect_timeout(Duration::from_secs(10))
        .tcp_nodelay(true);
    if let Some(path) = &reach.cacert {
        let ca = reqwest::Certificate::from_pem(&super::tls::read(path, "--cacert")?)
            .map_err(|e| EtcdError::Connection(format!("--cacert {}: not a PEM certificate ({e})", path.display())))?;
        builder = builder.tls_certs_only([ca]);
    }
    if let Some((cert, key)) = &reach.identity {
        let pem = [super::tls::read(cert, "--cert")?, super::tls::read(key, "--key")?].concat();
        let identity = reqwest::Identity::from_pem(&pem).map_err(|e| {
            EtcdError::Connection(format!("--cert/--key: not a PEM certificate and private key ({})", root_cause(&e)))
        })?;
        builder = builder.identity(identity);
    }
    Ok(builder)
}

/// The client could not be built: with a client certificate, that is a
/// key that does not belong to it (or is not a key at all).
pub fn build_error(e: &reqwest::Error) -> EtcdError {
    EtcdError::Connection(format!(
        "cannot set up the HTTP client ({}): check that --key is the private key of --cert",
        root_cause(e)
    ))
}

fn connection_error(e: &reqwest::Error) -> EtcdError {
    let endpoint = e.url().map(|u| u.origin().ascii_serialization()).unwrap_or_default();
    unreachable(&endpoint, &root_cause(e))
}

/// The gateway's errors are `{"error": ..., "code": N, "message": ...}`,
/// counted by their HTTP status (an error inside a watch's stream, answered
/// 200, by the gRPC code it carries).
fn gateway_error(answer: &Value, status: reqwest::StatusCode) -> EtcdError {
    let message = answer["message"].as_str().or(answer["error"].as_str()).map(str::to_string);
    let kind = match status.is_success() {
        false => format!("HTTP {}", status.as_u16()),
        true => {
            let code = answer["code"].as_i64().or(answer["error"]["grpc_code"].as_i64()).unwrap_or(2);
            wire::connections::grpc_code_name(tonic::Code::from_i32(code as i32))
        }
    };
    EtcdError::Server { kind, message: explain_server_error(&message.unwrap_or_else(|| format!("HTTP {status}"))) }
}

/// The gateway writes int64s as JSON strings (and leaves zeros out).
fn int(value: &Value) -> i64 {
    value.as_str().and_then(|s| s.parse().ok()).or(value.as_i64()).unwrap_or(0)
}

impl Kv for GatewayKv {
    fn kind(&self) -> TransportKind {
        TransportKind::Json
    }

    fn put(&self, key: Vec<u8>, value: Vec<u8>) -> BoxFuture<'_, Result<i64, EtcdError>> {
        Box::pin(async move {
            let body = json!({ "key": BASE64.encode(key), "value": BASE64.encode(value) });
            Ok(int(&self.call("/v3/kv/put", body).await?["header"]["revision"]))
        })
    }

    fn range(&self, key: Vec<u8>) -> BoxFuture<'_, Result<usize, EtcdError>> {
        Box::pin(async move {
            let answer = self.call("/v3/kv/range", json!({ "key": BASE64.encode(key) })).await?;
            Ok(answer["kvs"].as_array().map_or(0, Vec::len))
        })
    }

    fn delete_prefix(&self, prefix: Vec<u8>) -> BoxFuture<'_, Result<i64, EtcdError>> {
        Box::pin(async move {
            let body = json!({ "key": BASE64.encode(&prefix), "range_end": BASE64.encode(prefix_end(&prefix)) });
            Ok(int(&self.call("/v3/kv/deleterange", body).await?["deleted"]))
        })
    }

    fn watch(
        &self,
        prefix: Vec<u8>,
        start_revision: i64,
        events: mpsc::UnboundedSender<Delivered>,
    ) -> BoxFuture<'_, Result<tokio::task::JoinHandle<WatchEnd>, EtcdError>> {
        Box::pin(async move {
            let create = json!({ "create_request": {
                "key": BASE64.encode(&prefix),
                "range_end": BASE64.encode(prefix_end(&prefix)),
                "start_revision": start_revision.to_string(),
            }});
            let response = self.post("/v3/watch", &create).send().await.map_err(|e| connection_error(&e))?;
            if !response.status().is_success() {
                let status = response.status();
                return Err(gateway_error(&response.json().await.unwrap_or(Value::Null), status));
            }
            let mut lines = JsonLines { body: response, buffer: Vec::new() };
            let created = lines.next().await?;
            if created["result"]["created"] != Value::Bool(true) {
                return Err(EtcdError::Protocol(format!("etcd did not confirm the watch: {created}")));
            }
            Ok(tokio::spawn(async move {
                loop {
                    let answer = tokio::select! {
                        answer = lines.next() => answer?,
                        () = events.closed() => return Ok(()),
                    };
                    let at = Instant::now();
                    let result = &answer["result"];
                    if result["canceled"] == Value::Bool(true) {
                        // Said after its kind: "watch cancelled: ...".
                        let message = format!("by etcd ({})", result["cancel_reason"]);
                        return Err(EtcdError::Server { kind: "watch cancelled".into(), message });
                    }
                    if answer.get("error").is_some() {
                        return Err(gateway_error(&answer, reqwest::StatusCode::OK));
                    }
                    for event in result["events"].as_array().into_iter().flatten() {
                        let revision = int(&event["kv"]["mod_revision"]);
                        if events.send(Delivered { revision, at }).is_err() {
                            return Ok(());
                        }
                    }
                }
            }))
        })
    }

    fn protocol(&self) -> String {
        if self.endpoints[0].starts_with("https://") { "HTTP/1.1 + TLS".into() } else { "HTTP/1.1".into() }
    }

    fn connections(&self) -> u64 {
        self.connections.opened.load(Ordering::Relaxed)
    }
}

/// A response body read as one JSON value per line.
struct JsonLines {
    body: reqwest::Response,
    buffer: Vec<u8>,
}

impl JsonLines {
    async fn next(&mut self) -> Result<Value, EtcdError> {
        loop {
            if let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buffer.drain(..=end).collect();
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                return serde_json::from_slice(&line)
                    .map_err(|e| EtcdError::Protocol(format!("the watch stream sent a line that is not JSON: {e}")));
            }
            match self.body.chunk().await {
                Ok(Some(chunk)) => self.buffer.extend_from_slice(&chunk),
                Ok(None) => return Err(EtcdError::Connection("etcd ended the watch stream".into())),
                Err(e) => return Err(connection_error(&e)),
            }
        }
    }
}
