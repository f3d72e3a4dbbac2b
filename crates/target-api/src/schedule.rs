//! The schedule's fields, which every target's form shares (a target's
//! list names them by key where it shows them).

use crate::{choice, form::FieldSpec, text, toggle};
pub use schedule_flags::ScheduleArgs;

/// How long a run goes, as every form shows it: the essentials' part.
pub const RUN_LENGTH: [&str; 3] = ["iterations", "duration", "until_stable"];

/// What is left behind, in what order, at what pace, and the sweep, as
/// every form shows them together (under advanced).
pub const LOAD_AND_SWEEP: [&str; 8] =
    ["cleanup", "order", "rate", "arrivals", "max_in_flight", "round_time", "sweep", "sweep_budget"];

/// The schedule's fields, with the labels every form gives them.
pub static SCHEDULE_FIELDS: [FieldSpec<ScheduleArgs>; 12] = [
    choice!("transports", "Transports", &["both", "http-json", "grpc"], transports),
    text!("iterations", "Iterations", iterations),
    text!("duration", "Duration", duration),
    text!("until_stable", "Until stable (CI)", until_stable),
    toggle!("warmup", "Warmup", warmup),
    toggle!("cleanup", "Cleanup", cleanup),
    choice!("order", "Order", &["interleaved", "sequential"], order),
    text!("rate", "Rate (open loop)", rate),
    choice!("arrivals", "Arrivals", &["constant", "poisson"], arrivals),
    text!("max_in_flight", "Max in flight", max_in_flight),
    text!("round_time", "Round time", round_time),
    text!("timeout", "Timeout", timeout),
];
