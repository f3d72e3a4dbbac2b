//! Turning a configuration's target into connected transports: find
//! credentials for GCS, connect, check the bucket. The built-in emulator is
//! started by the front ends (the binary's `launch`), never from here.

use crate::auth::{Auth, CredentialEnv};
use crate::config::{BenchConfig, Target, TransportKind};
use crate::transport::grpc::{GrpcSettings, GrpcTransport};
use crate::transport::json::{JsonSettings, JsonTransport};
use crate::transport::{RetryPolicy, TransportError, Uploader};
use std::sync::Arc;

pub const GCS_JSON_URL: &str = "https://storage.googleapis.com";
pub const GCS_GRPC_URL: &str = "https://storage.googleapis.com:443";

/// Where a run went, for reports.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct TargetInfo {
    /// `emulator`, `endpoint` or `gcs`.
    pub kind: String,
    pub json_endpoint: Option<String>,
    pub grpc_endpoint: Option<String>,
    pub bucket: String,
    /// Where the credentials came from, their type and account
    /// (`service_account sa@p.iam.gserviceaccount.com from --credentials k.json`),
    /// or none.
    pub credentials: String,
    /// The credential's type (`service_account`, `authorized_user`, ...), when there is one.
    #[serde(default)]
    pub credential_type: Option<String>,
    /// The account it acts as, when known.
    #[serde(default)]
    pub principal: Option<String>,
    /// A fault the built-in emulator injects: the figures are of a faulty server.
    pub emulator_fault: Option<String>,
}

impl TargetInfo {
    /// The one line said at the start of every run.
    pub fn describe(&self) -> String {
        let fault = match &self.emulator_fault {
            Some(spec) => format!("; injecting fault {spec}"),
            None => String::new(),
        };
        format!("{}{fault}", self.describe_where())
    }

    /// A few words for lists: `emulator`, `endpoint http://h:1`, `gs://b`,
    /// with an injected fault named.
    pub fn short(&self) -> String {
        let place = match self.kind.as_str() {
            "emulator" => "emulator".to_string(),
            "endpoint" => {
                format!("endpoint {}", self.json_endpoint.as_deref().or(self.grpc_endpoint.as_deref()).unwrap_or(""))
            }
            _ => format!("gs://{}", self.bucket),
        };
        match &self.emulator_fault {
            Some(fault) => format!("{place} + fault {fault}"),
            None => place,
        }
    }

    fn describe_where(&self) -> String {
        let endpoints = [self.json_endpoint.as_deref(), self.grpc_endpoint.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" and ");
        match self.kind.as_str() {
            "emulator" => {
                format!("target: built-in emulator on loopback ({endpoints}), bucket {}: not GCS numbers", self.bucket)
            }
            "endpoint" if self.credential_type.is_none() => {
                format!("target: endpoint {endpoints}, bucket {}, no credentials", self.bucket)
            }
            "endpoint" => {
                format!("target: endpoint {endpoints}, bucket {}, credentials {}", self.bucket, self.credentials)
            }
            _ => format!(
                "target: gs://{} on Google Cloud Storage, credentials {}; gRPC over CloudPath (TLS to storage.googleapis.com:443, DirectPath not used)",
                self.bucket, self.credentials
            ),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error("{0}")]
    Auth(#[from] crate::auth::AuthError),
    #[error("{0}")]
    Transport(#[from] TransportError),
    #[error("could not start the built-in emulator: {0}")]
    Emulator(std::io::Error),
    #[error("{0}")]
    Permission(String),
}

/// Transports ready to upload, and the server they talk to if it is ours.
pub struct Connected {
    pub info: TargetInfo,
    pub uploaders: Vec<Arc<dyn Uploader>>,
    /// The built-in emulator, kept alive for the run; dropped (shut down) with it.
    pub server: Option<Box<dyn std::any::Any + Send + Sync>>,
    /// The credentials both transports use (refreshed after a refused token).
    pub auth: Auth,
}

impl Connected {
    pub fn uploader(&self, kind: TransportKind) -> Option<&Arc<dyn Uploader>> {
        self.uploaders.iter().find(|u| u.kind() == kind)
    }
}

/// Where the transports go, with what credentials and extra trust.
pub struct Route {
    pub json_url: Option<String>,
    pub grpc_url: Option<String>,
    pub auth: Auth,
    pub ca_pem: Option<Vec<u8>>,
}

impl Route {
    /// The configured target's URLs (`built_in`: the built-in emulator's,
    /// when the front end started one) and the extra CA certificates;
    /// credentials are `auth`, found by the caller.
    pub fn new(config: &BenchConfig, built_in: Option<(String, String)>, auth: Auth) -> Result<Route, SetupError> {
        let (json_url, grpc_url) = match &config.target {
            Target::BuiltIn => {
                let (json, grpc) =
                    built_in.ok_or_else(|| SetupError::Emulator(std::io::Error::other("it was not started")))?;
                (Some(json), Some(grpc))
            }
            Target::Endpoint { json_url, grpc_url } => (json_url.clone(), grpc_url.clone()),
            Target::Gcs => (Some(GCS_JSON_URL.to_string()), Some(GCS_GRPC_URL.to_string())),
        };
        let ca_pem = match &config.ca_cert {
            Some(path) => Some(std::fs::read(path).map_err(|e| {
                TransportError::Connection(format!(
                    "cannot read the CA certificates in {} (--ca-cert or SSL_CERT_FILE): {e}",
                    path.display()
                ))
            })?),
            None => None,
        };
        Ok(Route { json_url, grpc_url, auth, ca_pem })
    }

    /// One transport, connected (gRPC) or ready to (JSON).
    pub async fn open(&self, config: &BenchConfig, kind: TransportKind) -> Result<Arc<dyn Uploader>, TransportError> {
        let retry = RetryPolicy { credentials: Some(self.auth.clone()), ..config.retry_policy() };
        Ok(match kind {
            TransportKind::Json => Arc::new(JsonTransport::new(JsonSettings {
                base_url: self.json_url.clone().unwrap_or_default(),
                bucket: config.bucket.clone(),
                checksum: config.json_checksum,
                chunk_size: config.upload_chunk_size(),
                http: config.json_http,
                auth: self.auth.clone(),
                retry,
                request_timeout: config.request_timeout,
                ca_pem: self.ca_pem.clone(),
            })?),
            TransportKind::Grpc | TransportKind::GrpcReadObject => Arc::new(
                GrpcTransport::connect(GrpcSettings {
                    kind,
                    url: self.grpc_url.clone().unwrap_or_default(),
                    bucket: config.bucket.clone(),
                    checksum: config.grpc_checksum,
                    chunk_size: config.upload_chunk_size(),
                    channels: config.grpc_conn_pool,
                    appendable: config.append.is_some(),
                    read_back: config.append.is_some_and(|plan| plan.read_back),
                    range_reads: config.range_reads(kind),
                    window: config.grpc_window,
                    retry,
                    request_timeout: config.request_timeout,
                    auth: self.auth.clone(),
                    ca_pem: self.ca_pem.clone(),
                })
                .await?,
            ),
        })
    }
}

/// The credentials a configuration calls for, with a first token fetched
/// (so that a bad key fails now, its source named, not on the first upload).
pub async fn credentials(config: &BenchConfig) -> Result<Auth, SetupError> {
    if !config.auth {
        return Ok(Auth::none());
    }
    let auth =
        Auth::discover(config.credentials.as_deref(), &CredentialEnv::from_process(), &[crate::auth::SCOPE]).await?;
    auth.bearer().await?;
    Ok(auth)
}

/// Connects to the configured target; `built_in` is the JSON and gRPC URLs
/// of the built-in emulator when the front end started one.
pub async fn connect(config: &BenchConfig, built_in: Option<(String, String)>) -> Result<Connected, SetupError> {
    let route = Route::new(config, built_in, credentials(config).await?)?;
    let mut uploaders: Vec<Arc<dyn Uploader>> = Vec::new();
    for &kind in &config.transports {
        uploaders.push(route.open(config, kind).await?);
    }
    let Route { json_url, grpc_url, auth, .. } = route;
    // On emulators a missing bucket is made; on GCS it is an error. Every
    // transport is asked, so an endpoint that answers but is not GCS is
    // refused now, not found out as failed rounds.
    let create = config.target != Target::Gcs;
    for uploader in &uploaders {
        uploader.prepare_bucket(create).await.map_err(|error| refused_credentials(error, &auth))?;
    }
    if config.auth {
        check_permissions(&uploaders, &auth, config).await?;
    }
    let info = TargetInfo {
        kind: config.target.kind().into(),
        json_endpoint: config.transports.contains(&TransportKind::Json).then(|| json_url.clone()).flatten(),
        grpc_endpoint: config
            .transports
            .iter()
            .any(|kind| kind.is_grpc())
            .then(|| grpc_url.map(|u| u.trim_start_matches("http://").to_string()))
            .flatten(),
        bucket: config.bucket.clone(),
        credentials: auth.describe(),
        credential_type: auth.kind().map(|k| k.name().to_string()),
        principal: auth.principal().map(String::from),
        emulator_fault: config.emulator_fault.clone(),
    };
    Ok(Connected { info, uploaders, server: None, auth })
}

/// A 401 at the start says what to do: send credentials, or other ones.
pub fn refused_credentials(error: TransportError, auth: &Auth) -> TransportError {
    if !crate::transport::retry::is_unauthenticated(&error) {
        return error;
    }
    TransportError::Auth(match auth.kind() {
        None => format!(
            "the endpoint asks for credentials ({error}): add --auth gcs, with --credentials KEY.json or GOOGLE_APPLICATION_CREDENTIALS"
        ),
        Some(_) => format!(
            "the endpoint refused the {} ({error}): check that the account exists and the key is current",
            auth.describe()
        ),
    })
}

/// What a run needs on the bucket: to create its objects and delete them
/// (unless it only reads what exists), to read them, to list a prefix.
pub fn needed_permissions(config: &BenchConfig) -> Vec<&'static str> {
    let mut needed = Vec::new();
    if config.read_prefix.is_none() {
        needed.extend(["storage.objects.create", "storage.objects.delete"]);
    }
    if config.workload.reads() {
        needed.push("storage.objects.get");
    }
    if config.read_prefix.is_some() {
        needed.push("storage.objects.list");
    }
    needed
}

/// The permissions of `needed` that `granted` lacks.
pub fn missing_permissions<'a>(needed: &[&'a str], granted: &[String]) -> Vec<&'a str> {
    needed.iter().copied().filter(|p| !granted.iter().any(|g| g == p)).collect()
}

/// Before any upload: the principal may create and delete objects in the
/// bucket (asked of the JSON API's testIamPermissions; a gRPC-only run
/// learns it from its first upload instead).
pub async fn check_permissions(
    uploaders: &[Arc<dyn Uploader>],
    auth: &Auth,
    config: &BenchConfig,
) -> Result<(), SetupError> {
    let needed = needed_permissions(config);
    for uploader in uploaders {
        if let Some(granted) = uploader.granted_permissions(&needed).await? {
            let missing = missing_permissions(&needed, &granted);
            if !missing.is_empty() {
                return Err(SetupError::Permission(format!(
                    "{} may not {} in bucket {} (missing {}): grant it roles/storage.objectUser on the bucket (or a role with those permissions)",
                    auth.principal().unwrap_or("the account of these credentials"),
                    missing
                        .iter()
                        .map(|p| p.trim_start_matches("storage.objects."))
                        .map(|verb| match verb {
                            "get" => "read objects",
                            "list" => "list objects",
                            "create" => "create objects",
                            _ => "delete objects",
                        })
                        .collect::<Vec<_>>()
                        .join(" or "),
                    config.bucket,
                    missing.join(" and ")
                )));
            }
            return Ok(());
        }
    }
    Ok(())
}
