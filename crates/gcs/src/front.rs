//! GCS as the front ends see it (`target_api::FormTarget`): its form's
//! fields, how its flags split into its options and the schedule, its
//! welcome and its plan.

use crate::config::Options;
use crate::flags::BenchArgs;
use crate::planned::GcsPlan;
use crate::report::RunReport;
use engine::built_in::BuiltInServer;
use engine::plan::flags::ConfigError;
use engine::planned::PlannedRun;
use schedule_flags::ScheduleArgs;
use target_api::form::Slot;
use target_api::form::Slot::{Own, Section, Shared, SharedChoice};
use target_api::schedule::{LOAD_AND_SWEEP, RUN_LENGTH};
use target_api::{Checks, Environment, FormTarget, ReportNames, Welcome, choice, text, toggle};

/// GCS, with the emulator built into the binary for the runs that go to it.
pub struct Gcs {
    pub built_in: &'static dyn BuiltInServer,
}

pub static FIELDS: [Slot<Options>; 39] = [
    Shared("target"),
    Own(text!("bucket", "Bucket", bucket)),
    SharedChoice("transports", &["both", "http-json", "grpc", "grpc-read-object,grpc"]),
    Own(choice!("workload", "Workload", &["upload", "download", "w1r3", "ranges", "append"], workload)),
    Own(text!("size", "Object size", size)),
    Section(&RUN_LENGTH),
    Own(text!("concurrency", "Concurrency", concurrency)),
    Own(text!("chunk_size", "Chunk size", chunk_size)),
    Own(choice!("checksum", "Checksum", &["crc32c", "none"], checksum)),
    Shared("warmup"),
    Own(text!("warmup_size", "Warmup size", warmup_size)),
    Section(&LOAD_AND_SWEEP),
    Own(text!("grpc_conn_pool", "gRPC channels", grpc_conn_pool)),
    Own(text!("grpc_window", "gRPC window", grpc_window)),
    Own(toggle!("disable_grpc_autochecksum", "gRPC no checksum", disable_grpc_autochecksum)),
    Own(text!("range_size", "Read range size", range_size)),
    Own(text!("ranges_per_object", "Ranges per object", ranges_per_object)),
    Own(choice!("range_order", "Range order", &["random", "sequential"], range_order)),
    Own(choice!("grpc_ranges", "gRPC ranges", &["bidi", "read-object"], grpc_ranges)),
    Own(text!("append_size", "Append size", append_size)),
    Own(text!("flush_every", "Flush every", flush_every)),
    Own(choice!("read_back", "Read back", &["on", "off"], read_back)),
    Own(text!("read_prefix", "Read prefix", read_prefix)),
    Own(choice!("json_http", "JSON HTTP", &["auto", "1.1", "2"], json_http)),
    Shared("timeout"),
    Own(text!("request_timeout", "Request timeout", request_timeout)),
    Own(text!("max_retries", "Max retries", max_retries)),
    Own(text!("retry_deadline", "Retry deadline", retry_deadline)),
    Own(text!("retry_initial", "Retry backoff", retry_initial)),
    Own(toggle!("fail_fast", "Fail fast", fail_fast)),
    Own(text!("credentials", "Credentials", credentials)),
    Own(text!("endpoint", "JSON endpoint", endpoint)),
    Own(text!("grpc_endpoint", "gRPC endpoint", grpc_endpoint)),
    Own(choice!("auth", "Endpoint auth", &["auto", "gcs", "none"], auth)),
    Own(text!("ca_cert", "CA certificate", ca_cert)),
    Own(text!("prefix", "Prefix", prefix)),
    Own(toggle!("emulator", "Built-in emulator", emulator)),
    Own(text!("emulator_fault", "Emulator fault", emulator_fault)),
    Own(choice!("rate_unit", "Throughput unit", &units::RateUnit::NAMES, rate_unit)),
];

impl FormTarget for Gcs {
    type Options = Options;
    type Args = BenchArgs;
    type Report = RunReport;
    const NAME: &'static str = "gcs";
    const SAID: &'static str = "gcs (uploads)";
    const COMMAND: &'static [(&'static str, &'static str)] =
        &[("run", "Run the benchmark without the interactive app and print a report.")];
    const ESSENTIALS: usize = 11;
    // Remembered beside the schedule, as forms were first remembered.
    const REMEMBERED_UNDER: Option<&'static str> = None;
    const REPORT_NAMES: ReportNames = ReportNames::Place;

    fn slots() -> &'static [Slot<Options>] {
        &FIELDS
    }

    /// A report from before tallies: its rounds tallied from its samples.
    fn read_report(value: serde_json::Value) -> Result<RunReport, String> {
        let mut report: RunReport = serde_json::from_value(value).map_err(|e| e.to_string())?;
        crate::stats::tally_from_samples(&mut report.rounds, &report.samples);
        Ok(report)
    }

    fn split(args: BenchArgs) -> (Options, ScheduleArgs) {
        let options = args.to_options();
        let schedule = options.schedule_args();
        (options, schedule)
    }

    fn welcome(options: &Options, schedule: &ScheduleArgs) -> Welcome {
        crate::welcome::welcome(options, schedule)
    }

    fn plan(
        &self,
        options: &Options,
        schedule: &ScheduleArgs,
        env: &Environment,
    ) -> Result<Box<dyn PlannedRun>, ConfigError> {
        Ok(Box::new(GcsPlan::check(&options.with_schedule(schedule), env, self.built_in)?))
    }

    fn doctor(&self) -> Option<(&'static str, &'static str)> {
        Some((
            "doctor",
            "Check, before any upload, that a run would work: credentials, a token, the bucket, permission to \
             create and delete objects, and the gRPC channel; a line per step, with what to do when one fails.",
        ))
    }

    fn check(&self, options: Options, _: ScheduleArgs, env: &Environment) -> Result<Checks, ConfigError> {
        let plan = GcsPlan::check(&options, env, self.built_in)?;
        Ok(Box::pin(async move {
            // The emulator lives as long as `_server`: through every check.
            let (_server, built_in) = match plan.built_in().await {
                Ok((server, urls)) => (server, Ok(urls)),
                Err(error) => (None, Err(error.to_string())),
            };
            crate::doctor::check(&plan.config, built_in).await
        }))
    }
}
