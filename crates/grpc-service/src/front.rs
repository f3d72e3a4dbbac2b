//! Any gRPC service as the front ends see it (`target_api::FormTarget`): its form's
//! fields, how its flags split into its options and the schedule, its
//! welcome and its plan.

use crate::form::GrpcOptions;
use crate::options::GrpcRunArgs;
use crate::report::GrpcReport;
use engine::plan::flags::ConfigError;
use engine::planned::PlannedRun;
use schedule_flags::ScheduleArgs;
use target_api::form::Slot;
use target_api::form::Slot::{Own, Section, Shared};
use target_api::schedule::{LOAD_AND_SWEEP, RUN_LENGTH};
use target_api::{Checks, Environment, FormTarget, Welcome, choice, text, toggle};

pub struct Grpc;

pub static FIELDS: [Slot<GrpcOptions>; 30] = [
    Shared("target"),
    Own(text!("method", "Method", method)),
    Own(text!("proto", "Proto files", protos)),
    Own(text!("import_path", "Import paths", import_paths)),
    Own(text!("grpc_endpoint", "gRPC endpoint", grpc_endpoint)),
    Own(text!("http_endpoint", "HTTP endpoint", http_endpoint)),
    Own(choice!("http_mapping", "HTTP mapping", &["rule", "connect"], http_mapping)),
    Own(text!("data", "Request (JSON)", data)),
    Shared("transports"),
    Own(text!("clients", "Clients", clients)),
    Own(text!("requests", "Calls/client", requests)),
    Section(&RUN_LENGTH),
    Own(text!("http_path", "HTTP path", http_path)),
    Own(text!("ignore_field", "Ignore fields", ignore_fields)),
    Own(toggle!("check", "Check answers", check)),
    Own(toggle!("reflect", "Reflection", reflect)),
    Own(text!("descriptor_set", "Descriptor set", descriptor_set)),
    Own(text!("header", "Headers", headers)),
    Own(choice!("auth", "Sign-in", &["none", "google"], auth)),
    Own(text!("credentials", "Credentials", credentials)),
    Own(text!("scopes", "OAuth scopes", scopes)),
    Own(text!("cacert", "CA certificate", cacert)),
    Own(text!("cert", "Client cert", cert)),
    Own(text!("key", "Client key", key)),
    Own(text!("cleanup_method", "Cleanup method", cleanup_method)),
    Own(text!("cleanup_data", "Cleanup request", cleanup_data)),
    Own(text!("conns", "gRPC channels", conns)),
    Shared("warmup"),
    Section(&LOAD_AND_SWEEP),
    Shared("timeout"),
];

impl FormTarget for Grpc {
    type Options = GrpcOptions;
    type Args = GrpcRunArgs;
    type Report = GrpcReport;
    const NAME: &'static str = "grpc";
    const SAID: &'static str = "grpc (any service's .proto)";
    const COMMAND: &'static [(&'static str, &'static str)] = &[
        (
            "grpc",
            "The same question for any gRPC service, from its .proto: its gRPC path against its HTTP/JSON mapping (google.api.http or Connect).",
        ),
        ("run", "One method called over gRPC and over its HTTP/JSON mapping; prints a report."),
    ];
    const ESSENTIALS: usize = 12;

    fn slots() -> &'static [Slot<GrpcOptions>] {
        &FIELDS
    }

    fn split(args: GrpcRunArgs) -> (GrpcOptions, ScheduleArgs) {
        (GrpcOptions::from_service(&args.service), args.schedule)
    }

    fn welcome(_: &Self::Options, _: &ScheduleArgs) -> Welcome {
        Welcome {
        verb: " to run ",
        article: false,
        what: "Both transports send the same calls in turn (gRPC and the method's HTTP/JSON mapping, which goes first alternating by round), call 0 compared first; this pane shows their calls/s live, and the table below compares them when the run ends.".into(),
        hint: "Set Method, Proto files (and Import paths) or Reflection, the endpoints and the Request; ? lists the keys.",
    }
    }

    fn doctor(&self) -> Option<(&'static str, &'static str)> {
        Some((
            "doctor",
            "Check, before any call is timed, that a grpc run would work: the method and its request, the \
             sign-in (credentials, a token), and call 0 over each transport; a line per step, with what to do \
             when one fails.",
        ))
    }

    fn check(&self, options: GrpcOptions, schedule: ScheduleArgs, _: &Environment) -> Result<Checks, ConfigError> {
        let config = GrpcRunArgs { service: options.service_args(), schedule }.validate()?;
        Ok(Box::pin(crate::doctor::check(config)))
    }

    fn plan(
        &self,
        options: &GrpcOptions,
        schedule: &ScheduleArgs,
        env: &Environment,
    ) -> Result<Box<dyn PlannedRun>, ConfigError> {
        let _ = env;
        let args = GrpcRunArgs { service: options.service_args(), schedule: schedule.clone() };
        Ok(Box::new(args.validate()?))
    }
}
