//! The schedule's flags, flattened into every target's command (GCS's
//! `run`, `etcd run`, `grpc run`): written once, so that `--rate` or
//! `--until-stable` reads the same in each. The engine
//! checks them as text (`engine::schedule_text!`), knowing nothing of clap.

use clap::{ArgAction, Args};

#[derive(Args, Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[command(next_help_heading = "Schedule")]
#[serde(default)]
pub struct ScheduleArgs {
    /// both | http-json | grpc, or two joined by a comma (the second is
    /// compared with the first); a GCS ranges run also has grpc-read-object (one
    /// ReadObject per range): grpc-read-object,grpc pairs it with BidiReadObject.
    #[arg(long, value_name = "WHICH", default_value = "both")]
    pub transports: String,
    /// Timed rounds per transport.
    #[arg(long, value_name = "N", default_value = "3")]
    pub iterations: String,
    /// Keep running paired rounds until this much time has passed (instead of --iterations).
    #[arg(long, value_name = "DURATION", default_value = "", hide_default_value = true)]
    pub duration: String,
    /// Stop once the 95% interval of the difference is this narrow: 5%.
    #[arg(long, value_name = "WIDTH", default_value = "", hide_default_value = true)]
    pub until_stable: String,
    /// Open loop: this many arrivals per second per transport, each round a slice of
    /// the schedule (--round-time), latency counted from each arrival's intended start;
    /// with --duration D each transport is offered rate x D arrivals. Empty: closed loop.
    #[arg(long, value_name = "PER_SECOND", default_value = "", hide_default_value = true)]
    pub rate: String,
    /// Open loop: how long each paired round's arrivals span (default 1s, or a third of a
    /// --duration under 3s); a round offers --rate x --round-time arrivals.
    #[arg(long, value_name = "DURATION", default_value = "", hide_default_value = true)]
    pub round_time: String,
    /// constant | poisson: how open-loop arrivals are spaced (with --rate).
    #[arg(long, value_name = "SPACING", default_value = "constant")]
    pub arrivals: String,
    /// Open loop: requests outstanding at most; an arrival that finds this many is dropped and counted.
    #[arg(long, value_name = "N", default_value = "1000")]
    pub max_in_flight: String,
    /// interleaved (alternate transports round by round) | sequential.
    #[arg(long, value_name = "ORDER", default_value = "interleaved")]
    pub order: String,
    /// An untimed warmup per transport first (GCS: one object of --warmup-size;
    /// etcd, grpc: up to 100 requests per client).
    #[arg(long, value_name = "BOOL", default_value = "true", num_args = 0..=1, require_equals = true,
          default_missing_value = "true", action = ArgAction::Set, value_parser = units::parse_bool)]
    pub warmup: bool,
    /// Overall time limit for the run: 10m, 30s, 500ms.
    #[arg(long, value_name = "DURATION", default_value = "10m")]
    pub timeout: String,
    /// Delete what the run made when it ends (GCS: its objects; etcd: its keys;
    /// grpc: by calling --cleanup-method).
    #[arg(long, value_name = "BOOL", default_value = "true", num_args = 0..=1, require_equals = true,
          default_missing_value = "true", action = ArgAction::Set, value_parser = units::parse_bool)]
    pub cleanup: bool,
}

impl Default for ScheduleArgs {
    /// As clap fills in the flags not given.
    fn default() -> Self {
        ScheduleArgs {
            transports: "both".into(),
            iterations: "3".into(),
            duration: String::new(),
            until_stable: String::new(),
            rate: String::new(),
            arrivals: "constant".into(),
            max_in_flight: "1000".into(),
            round_time: String::new(),
            order: "interleaved".into(),
            warmup: true,
            timeout: "10m".into(),
            cleanup: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Command {
        #[command(flatten)]
        schedule: ScheduleArgs,
    }

    #[test]
    fn the_default_is_what_clap_fills_in() {
        assert_eq!(Command::parse_from(["x"]).schedule, ScheduleArgs::default());
    }
}
