//! What every target shares: the schedule of paired rounds (warmup aside:
//! each target warms its own way), the order of rounds, and why a schedule
//! ended. A target supplies its transports' rounds through `Rounds`; the
//! verdict over them is `compare::compare_rates`, the same for all.

pub mod built_in;
pub mod calls;
pub mod compare;
pub mod cost_caution;
pub mod cpu;
pub mod descriptors;
pub mod error_kinds;
pub mod events;
pub mod finished;
pub mod fleet;
pub mod folded;
pub mod histogram;
pub mod host_cpu;
pub mod live;
pub mod netstat;
pub mod open_loop;
pub mod outlet;
pub mod plan;
pub mod planned;
pub mod report;
pub mod rounds;
pub mod samples;
pub mod schedule;
pub mod start;
pub mod threshold;
pub mod timeline;

pub use rounds::{Rounds, Stop, measure};

/// `eprintln!` that never panics: a stderr whose reader went away (`2>&1 |
/// head`) must neither stop a run before its cleanup nor turn its ending
/// into a panic. What cannot be said is dropped.
#[macro_export]
macro_rules! say_on_stderr {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
