//! The app's form as text: the GCS options (whose schedule fields every
//! target shares), which target the form runs, and etcd's own fields.

use crate::config::Options;
use etcd::form::EtcdOptions;
use etcd::options::EtcdRunArgs;
use grpc_service::form::GrpcOptions;
use grpc_service::options::GrpcRunArgs;

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

impl FormOptions {
    /// The app's form as `etcd run` flags: the schedule's fields are the
    /// form's (kept with the GCS options), the rest are etcd's own.
    pub fn etcd_run_args(&self) -> EtcdRunArgs {
        self.etcd.run_args(self.gcs.schedule_args())
    }

    /// `etcd run`'s flags as the form holds them: the inverse of `etcd_run_args`.
    pub fn from_etcd(args: &EtcdRunArgs) -> FormOptions {
        let gcs = Options::from_schedule(&args.schedule);
        FormOptions { gcs, target: "etcd".into(), etcd: EtcdOptions::from_args(args), ..FormOptions::default() }
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
