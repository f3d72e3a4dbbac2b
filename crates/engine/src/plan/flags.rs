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
    pub round_time: &'a str,
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
            round_time: &$options.round_time,
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
    let round_time = match flags.round_time.trim() {
        "" => None,
        text => match units::parse_duration(text).map_err(flag_error("round_time"))? {
            t if t.is_zero() => return fail("round_time", "--round-time must be above zero, like 1s"),
            t => Some(t),
        },
    };
    let open_loop = crate::open_loop::parse_open_loop(flags.rate, flags.arrivals, flags.max_in_flight, round_time)?;
    if (duration.is_some() || until_stable.is_some()) && order == Order::Sequential {
        return fail(
            "order",
            "--duration and --until-stable need --order interleaved, so both transports get the same paired rounds",
        );
    }
    let mut schedule = Schedule { transports, iterations, timeout, order, duration, until_stable, open_loop };
    match open_loop {
        Some(open) => paced_rounds(&mut schedule, open, round_time, notes)?,
        None => closed_rounds(&schedule, notes),
    }
    Ok(schedule)
}

/// What `--duration` and `--until-stable` imply for closed-loop rounds.
fn closed_rounds(schedule: &Schedule, notes: &mut Vec<String>) {
    if let Some(duration) = schedule.duration {
        notes.push(format!(
            "paired rounds run for {}, however many rounds that takes",
            units::format_duration(duration)
        ));
    } else if schedule.until_stable.is_some() {
        notes.push(format!(
            "--until-stable stops early, within --iterations {}: raise it (or set --duration) to give the interval room to narrow",
            schedule.iterations
        ));
    }
}

/// Open loop: each round is a slice of the arrival schedule, `--round-time`
/// long (1 s, or a third of a `--duration` under 3 s so that there are
/// pairs for an interval), and `--duration` becomes that many rounds per
/// transport: `--rate R --duration D` offers R x D arrivals to each.
fn paced_rounds(
    schedule: &mut Schedule,
    mut open: crate::open_loop::OpenLoop,
    round_time: Option<std::time::Duration>,
    notes: &mut Vec<String>,
) -> Result<(), ConfigError> {
    use std::time::Duration;
    if schedule.until_stable.is_some() {
        return fail(
            "until_stable",
            "--until-stable watches the throughput's interval, which the offered rate sets in open loop: leave it out with --rate (--duration or --iterations set the rounds)",
        );
    }
    let round = round_time.unwrap_or(match schedule.duration {
        Some(total) if total < Duration::from_secs(3) => total / 3,
        _ => Duration::from_secs(1),
    });
    let offered = open.rate * round.as_secs_f64();
    if offered < 1.0 {
        let least = units::format_duration(Duration::from_secs_f64((1.0 / open.rate).ceil()));
        return fail(
            "rate",
            format!(
                "--rate {}/s offers under one arrival in a round of {}: raise --rate, or give --round-time {least} or more",
                open.rate,
                units::format_duration(round)
            ),
        );
    }
    // A round is a whole number of arrivals 1/rate apart: its slice is that
    // many over the rate (2 at 7/s span 286ms, not the 300ms asked).
    open.round_s = Some((offered.round() / open.rate).max(f64::MIN_POSITIVE));
    let round = Duration::from_secs_f64(open.round_s.unwrap_or_default());
    if open.per_round() > crate::open_loop::MOST_PER_ROUND {
        return fail(
            "round_time",
            format!(
                "--rate x --round-time gives {} arrivals a round, more than {}: give a shorter --round-time",
                open.per_round(),
                crate::open_loop::MOST_PER_ROUND
            ),
        );
    }
    let round_said = units::format_duration(round);
    if let Some(total) = schedule.duration.take() {
        let rounds = (total.as_secs_f64() / round.as_secs_f64()).round().max(1.0) as u32;
        schedule.iterations = rounds;
        notes.push(format!(
            "open loop for {} per transport: {} of {round_said}, {} each ({} per transport in all)",
            units::format_duration(total),
            crate::report::plural(rounds as usize, "paced round"),
            crate::report::plural(open.per_round() as usize, "arrival"),
            open.per_round() * u64::from(rounds)
        ));
    } else {
        notes.push(format!(
            "open loop: {} of {round_said} per transport, {} each",
            crate::report::plural(schedule.iterations as usize, "paced round"),
            crate::report::plural(open.per_round() as usize, "arrival")
        ));
    }
    schedule.open_loop = Some(open);
    Ok(())
}

/// A round's calls per client: `requests` in closed loop; in open loop
/// enough for the round's arrivals spread over `clients` (a round offers
/// `--rate x --round-time`, whatever a closed round's size would be), with a
/// note when the user's `--requests` is set aside for it.
pub fn requests_per_client(
    schedule: &Schedule,
    clients: u32,
    requests: u32,
    given: bool,
    notes: &mut Vec<String>,
) -> u32 {
    let Some(open) = &schedule.open_loop else { return requests };
    if given {
        notes.push(format!(
            "--requests is not used under --rate: each round sends its {} over the {} clients",
            crate::report::plural(open.per_round() as usize, "arrival"),
            clients
        ));
    }
    open.per_round().div_ceil(u64::from(clients)).clamp(1, u64::from(u32::MAX)) as u32
}
