//! etcd as the front ends see it (`target_api::FormTarget`): its form's
//! fields, how its flags split into its options and the schedule, its
//! welcome and its plan.

use crate::form::EtcdOptions;
use crate::options::EtcdRunArgs;
use crate::report::EtcdReport;
use engine::plan::flags::ConfigError;
use engine::planned::PlannedRun;
use schedule_flags::ScheduleArgs;
use target_api::form::Slot;
use target_api::form::Slot::{Own, Section, Shared};
use target_api::schedule::{LOAD_AND_SWEEP, RUN_LENGTH};
use target_api::{Environment, FormTarget, Welcome, choice, text, toggle};

pub struct Etcd;

pub static FIELDS: [Slot<EtcdOptions>; 21] = [
    Shared("target"),
    Own(text!("endpoints", "Endpoints", endpoints)),
    Own(choice!("mode", "Mode", &["put", "range", "watch"], mode)),
    Shared("transports"),
    Own(text!("clients", "Clients", clients)),
    Own(text!("requests", "Requests/client", requests)),
    Section(&RUN_LENGTH),
    Own(text!("value_size", "Value size (B)", value_size)),
    Own(text!("key_size", "Key size (B)", key_size)),
    Own(text!("key_space", "Key space", key_space)),
    Own(toggle!("sequential_keys", "Sequential keys", sequential_keys)),
    Own(text!("conns", "gRPC channels", conns)),
    Shared("warmup"),
    Section(&LOAD_AND_SWEEP),
    Shared("timeout"),
    Own(text!("user", "User", user)),
    Own(text!("password", "Password", password)),
    Own(text!("cacert", "CA certificate", cacert)),
    Own(text!("cert", "Client cert", cert)),
    Own(text!("key", "Client key", key)),
    Own(text!("prefix", "Key prefix", prefix)),
];

impl FormTarget for Etcd {
    type Options = EtcdOptions;
    type Args = EtcdRunArgs;
    type Report = EtcdReport;
    const NAME: &'static str = "etcd";
    const SAID: &'static str = "etcd (puts, ranges, watches)";
    const COMMAND: &'static [(&'static str, &'static str)] = &[
        ("etcd", "The same question for etcd: its HTTP gateway against gRPC."),
        ("run", "Puts, ranges or watches over the HTTP gateway and gRPC; prints a report."),
    ];
    const ESSENTIALS: usize = 9;

    fn slots() -> &'static [Slot<EtcdOptions>] {
        &FIELDS
    }

    fn split(args: EtcdRunArgs) -> (EtcdOptions, ScheduleArgs) {
        (EtcdOptions::from_args(&args), args.schedule)
    }

    fn welcome(_: &Self::Options, _: &ScheduleArgs) -> Welcome {
        Welcome {
        verb: " to run against ",
        article: false,
        what: "Both transports send the same puts, ranges or watches in turn (HTTP gateway and gRPC, which goes first alternating by round); this pane shows their ops/s live, and the table below compares them when the run ends.".into(),
        hint: "Set Endpoints to the cluster's client URL, and User and Password if it has auth on; ? lists the keys.",
    }
    }

    fn plan(
        &self,
        options: &EtcdOptions,
        schedule: &ScheduleArgs,
        env: &Environment,
    ) -> Result<Box<dyn PlannedRun>, ConfigError> {
        let _ = env;
        Ok(Box::new(options.run_args(schedule.clone()).validate()?))
    }
}
