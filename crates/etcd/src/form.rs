//! `etcd run`'s own options as the app's form holds them (text as typed),
//! turned into the flags and back; the schedule's fields are the form's.

use crate::options::{EtcdRunArgs, Mode};
use schedule_flags::ScheduleArgs;
use std::path::PathBuf;
use target_api::flags::TlsFlags;

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

impl EtcdOptions {
    /// The form's text as `etcd run`'s flags, with the form's schedule.
    pub fn run_args(&self, schedule: ScheduleArgs) -> EtcdRunArgs {
        let e = self;
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
            tls: TlsFlags {
                cacert: given(&e.cacert).map(PathBuf::from),
                cert: given(&e.cert).map(PathBuf::from),
                key: given(&e.key).map(PathBuf::from),
            },
            prefix: e.prefix.clone(),
            schedule,
            client_threads: e.client_threads,
        }
    }

    /// `etcd run`'s flags as the form's text: the inverse of `run_args`
    /// (the schedule's flags aside), so that a headless run and a sweep's
    /// points are planned from the same text as the app's.
    pub fn from_args(args: &EtcdRunArgs) -> EtcdOptions {
        let path = |p: &Option<PathBuf>| p.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
        let mode = <Mode as clap::ValueEnum>::to_possible_value(&args.mode).map(|v| v.get_name().to_string());
        EtcdOptions {
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
            cacert: path(&args.tls.cacert),
            cert: path(&args.tls.cert),
            key: path(&args.tls.key),
            prefix: args.prefix.clone(),
            client_threads: args.client_threads,
        }
    }
}
