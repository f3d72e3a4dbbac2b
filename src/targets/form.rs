//! The app's form as text: the GCS options (whose schedule fields every
//! target shares), which target the form runs, and etcd's own fields.

use super::grpc_form::GrpcOptions;
use crate::config::Options;
use etcd::options::{EtcdRunArgs, Mode};
use grpc_service::options::GrpcRunArgs;
use std::path::PathBuf;

/// Every field of the app's form, as typed. Saved as one flat JSON object
/// (the GCS options' keys, `target`, `etcd`), as before the GCS options
/// became a crate of their own, so remembered forms still load.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct FormOptions {
    #[serde(flatten)]
    pub gcs: Options,
    /// What the app benchmarks: a name in the registry (a remembered form
    /// naming another is not read, rather than run as some other target).
    #[serde(deserialize_with = "registered_name")]
    pub target: String,
    /// The etcd target's own options (the schedule's are the GCS options').
    pub etcd: EtcdOptions,
    /// `grpc run`'s own options (the schedule's are the GCS options').
    pub grpc: GrpcOptions,
    /// The app's sweep: `run --sweep`'s values, an option a `;` apart
    /// (`size=1KiB,1MiB; concurrency=1,8`); empty runs one comparison.
    /// Not remembered: a sweep is many runs, never to begin unseen from a
    /// field a later session keeps folded away.
    #[serde(skip)]
    pub sweep: String,
    /// `run --sweep-budget`: the time shared out over the sweep's points.
    #[serde(skip)]
    pub sweep_budget: String,
}

fn registered_name<'de, D: serde::Deserializer<'de>>(reading: D) -> Result<String, D::Error> {
    let name = <String as serde::Deserialize>::deserialize(reading)?;
    super::registered(&name).map_err(serde::de::Error::custom)?;
    Ok(name)
}

impl Default for FormOptions {
    fn default() -> Self {
        FormOptions {
            gcs: Options::default(),
            target: "gcs".into(),
            etcd: EtcdOptions::default(),
            grpc: GrpcOptions::default(),
            sweep: String::new(),
            sweep_budget: String::new(),
        }
    }
}

impl From<Options> for FormOptions {
    fn from(gcs: Options) -> Self {
        FormOptions { gcs, ..FormOptions::default() }
    }
}

/// `etcd run`'s own options as typed in the app's form.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct EtcdOptions {
    pub endpoints: String,
    pub mode: String,
    pub clients: String,
    pub requests: String,
    pub conns: String,
    pub key_size: String,
    pub value_size: String,
    pub key_space: String,
    pub sequential_keys: bool,
    pub user: String,
    /// Never remembered.
    #[serde(skip)]
    pub password: String,
    pub cacert: String,
    pub cert: String,
    pub key: String,
    pub prefix: String,
    /// `--client-threads`: the command line's alone, never a form field.
    #[serde(skip)]
    pub client_threads: Option<u16>,
}

impl Default for EtcdOptions {
    fn default() -> Self {
        Self {
            endpoints: "http://127.0.0.1:2379".into(),
            mode: "put".into(),
            clients: "10".into(),
            requests: "8000".into(),
            conns: "1".into(),
            key_size: "8".into(),
            value_size: "256".into(),
            key_space: "10000".into(),
            sequential_keys: false,
            user: String::new(),
            password: String::new(),
            cacert: String::new(),
            cert: String::new(),
            key: String::new(),
            prefix: "gcs-speed-tui".into(),
            client_threads: None,
        }
    }
}

impl FormOptions {
    /// The app's form as `etcd run` flags: the schedule's fields are shared
    /// with the GCS target's, the rest are etcd's own.
    pub fn etcd_run_args(&self) -> EtcdRunArgs {
        let (o, e) = (&self.gcs, &self.etcd);
        let given = |text: &str| Some(text.trim().to_string()).filter(|t| !t.is_empty());
        EtcdRunArgs {
            endpoints: e.endpoints.clone(),
            mode: <Mode as clap::ValueEnum>::from_str(&e.mode, true).unwrap_or(Mode::Put),
            clients: e.clients.clone(),
            requests: e.requests.clone(),
            conns: e.conns.clone(),
            key_size: e.key_size.clone(),
            value_size: e.value_size.clone(),
            key_space: e.key_space.clone(),
            sequential_keys: e.sequential_keys,
            user: given(&e.user),
            password: given(&e.password),
            cacert: given(&e.cacert).map(PathBuf::from),
            cert: given(&e.cert).map(PathBuf::from),
            key: given(&e.key).map(PathBuf::from),
            prefix: e.prefix.clone(),
            schedule: o.schedule_args(),
            client_threads: e.client_threads,
        }
    }

    /// `etcd run`'s flags as the form holds them: the inverse of
    /// `etcd_run_args`, so that a headless run and a sweep's points are
    /// planned from the same text as the app's.
    pub fn from_etcd(args: &EtcdRunArgs) -> FormOptions {
        let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
        let mode = <Mode as clap::ValueEnum>::to_possible_value(&args.mode).map(|v| v.get_name().to_string());
        let etcd = EtcdOptions {
            endpoints: args.endpoints.clone(),
            mode: mode.unwrap_or_default(),
            clients: args.clients.clone(),
            requests: args.requests.clone(),
            conns: args.conns.clone(),
            key_size: args.key_size.clone(),
            value_size: args.value_size.clone(),
            key_space: args.key_space.clone(),
            sequential_keys: args.sequential_keys,
            user: args.user.clone().unwrap_or_default(),
            password: args.password.clone().unwrap_or_default(),
            cacert: path(&args.cacert),
            cert: path(&args.cert),
            key: path(&args.key),
            prefix: args.prefix.clone(),
            client_threads: args.client_threads,
        };
        let gcs = Options::from_schedule(&args.schedule);
        FormOptions { gcs, target: "etcd".into(), etcd, ..FormOptions::default() }
    }

    /// The app's form as `grpc run` flags: the schedule's fields are shared
    /// with the GCS target's, the rest are the service's own.
    pub fn grpc_run_args(&self) -> GrpcRunArgs {
        GrpcRunArgs { service: self.grpc.service_args(), schedule: self.gcs.schedule_args() }
    }

    /// `grpc run`'s flags as the form holds them: the inverse of `grpc_run_args`.
    pub fn from_grpc(args: &GrpcRunArgs) -> FormOptions {
        let gcs = Options::from_schedule(&args.schedule);
        let grpc = GrpcOptions::from_service(&args.service);
        FormOptions { gcs, target: "grpc".into(), grpc, ..FormOptions::default() }
    }
}
