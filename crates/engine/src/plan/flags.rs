//! The flags every target shares for its schedule of paired rounds:
//! transports, iterations or duration, until-stable, order and timeout,
//! and the open-loop rate, arrivals and requests in flight.

use super::{Order, Schedule, TransportKind};

/// One sentence: what is wrong, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The option at fault (`size`, `bucket`, ...), for the form to mark.
    pub field: &'static str,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

/// `Err` of the sentence `message` about the option `field`.
pub fn fail<T>(field: &'static str, message: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError { field, message: message.into() })
}

/// A parser's message about `field` as a sentence naming its flag.
pub fn flag_error(field: &'static str) -> impl Fn(String) -> ConfigError {
    move |message| ConfigError { field, message: format!("--{}: {message}", field.replace('_', "-")) }
}

/// A whole number in `min..=max` for the option `field`.
pub fn parse_count(text: &str, field: &'static str, min: u32, max: u32) -> Result<u32, ConfigError> {
    let flag = field.replace('_', "-");
    match text.trim().parse::<u64>() {
        Ok(n) if (min as u64..=max as u64).contains(&n) => Ok(n as u32),
        Ok(_) => fail(field, format!("--{flag} must be between {min} and {max}")),
        Err(_) => fail(field, format!("--{flag} '{text}' is not a whole number")),
    }
}

/// The schedule flags as typed.
pub struct ScheduleText<'a> {
    pub transports: &'a str,
    pub iterations: &'a str,
    pub timeout: &'a str,
    pub order: &'a str,
    pub duration: &'a str,
    pub until_stable: &'a str,
    pub rate: &'a str,
    pub arrivals: &'a str,
    pub max_in_flight: &'a str,
}

/// The schedule flags of options that keep them under these names (the
/// GCS form's and etcd's), as `ScheduleText`: written once for both.
#[macro_export]
macro_rules! schedule_text {
    ($options:expr) => {
        $crate::plan::flags::ScheduleText {
            transports: &$options.transports,
            iterations: &$options.iterations,
            timeout: &$options.timeout,
            order: &$options.order,
            duration: &$options.duration,
            until_stable: &$options.until_stable,
            rate: &$options.rate,
            arrivals: &$options.arrivals,
            max_in_flight: &$options.max_in_flight,
        }
    };
}

/// `both`, one transport, or two of them joined by a comma (the first is
/// the one the second is compared with).
fn parse_transports(text: &str) -> Result<Vec<TransportKind>, ConfigError> {
    let wrong = || {
        fail(
            "transports",
            format!("--transports '{text}' is not one of both, http-json, grpc, or two transports joined by a comma"),
        )
    };
    if text.trim() == "both" {
        return Ok(vec![TransportKind::Json, TransportKind::Grpc]);
    }
    let kinds: Option<Vec<TransportKind>> = text.split(',').map(TransportKind::named).collect();
    match kinds.as_deref() {
        Some([one]) => Ok(vec![*one]),
        Some([a, b]) if a == b => fail(
            "transports",
            format!("--transports '{text}' names {} twice: name two different ones, like http-json,grpc", a.name()),
        ),
        Some([a, b]) => Ok(vec![*a, *b]),
        _ => wrong(),
    }
}

/// The schedule of a target of calls (etcd, any gRPC service), which has
/// no `grpc-read-object` path: that is a GCS ranges transport.
pub fn parse_calls_schedule(flags: &ScheduleText, notes: &mut Vec<String>) -> Result<Schedule, ConfigError> {
    let schedule = parse_schedule(flags, notes)?;
    if schedule.transports.contains(&TransportKind::GrpcReadObject) {
        return fail("transports", "--transports grpc-read-object is for GCS ranges runs: use both, http-json or grpc");
    }
    Ok(schedule)
}

/// Checks the schedule flags together; what they imply is added to `notes`.
pub fn parse_schedule(flags: &ScheduleText, notes: &mut Vec<String>) -> Result<Schedule, ConfigError> {
    let iterations = parse_count(flags.iterations, "iterations", 1, 100_000)?;
    let timeout = units::parse_duration(flags.timeout).map_err(flag_error("timeout"))?;
    if timeout.is_zero() {
        return fail("timeout", "--timeout must be above zero, like 10m");
    }
    let transports = parse_transports(flags.transports)?;
    let order = match flags.order.trim() {
        "interleaved" => Order::Interleaved,
        "sequential" => Order::Sequential,
        other => {
            return fail("order", format!("--order '{other}' is not one of interleaved, sequential"));
        }
    };
    let duration = match flags.duration.trim() {
        "" => None,
        text => match units::parse_duration(text).map_err(flag_error("duration"))? {
            d if d.is_zero() => return fail("duration", "--duration must be above zero, like 30s"),
            d => Some(d),
        },
    };
    let until_stable = match flags.until_stable.trim().trim_end_matches('%') {
        "" => None,
        text => match text.parse::<f64>() {
            Ok(width) if width > 0.0 && width.is_finite() => Some(width),
            _ => {
                return fail(
                    "until_stable",
                    format!("--until-stable '{}' is not a width: use percentage points, like 5%", flags.until_stable),
                );
            }
        },
    };
    if let Some(duration) = duration {
        notes.push(format!(
            "--duration {}: paired rounds run until that much time has passed; --iterations is not used",
            units::format_duration(duration)
        ));
    } else if until_stable.is_some() {
        notes.push(format!(
                "--until-stable stops early, within --iterations {iterations}: raise it (or set --duration) to give the interval room to narrow"
            ));
    }
    if (duration.is_some() || until_stable.is_some()) && order == Order::Sequential {
        return fail(
            "order",
            "--duration and --until-stable need --order interleaved, so both transports get the same paired rounds",
        );
    }
    let open_loop = crate::open_loop::parse_open_loop(flags.rate, flags.arrivals, flags.max_in_flight)?;
    Ok(Schedule { transports, iterations, timeout, order, duration, until_stable, open_loop })
}
