//! The timed rounds of any target: a fixed schedule, or paired rounds until
//! `--duration` has passed, stopping early once `--until-stable` is met.

use super::schedule::{pair_order, schedule};
use crate::compare::{PairedRound, interval_width, paired_log_ratios_by_part};
use crate::plan::Schedule;
use crate::plan::{Order, TransportKind};
use std::time::Duration;

/// Why the rounds stopped before their schedule ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Cancelled,
    TimedOut,
    FailFast,
}

/// A target's rounds, measured one at a time.
pub trait Rounds {
    type Round: PairedRound;

    /// Measures one timed round of one transport (and records it).
    fn measure_round(&mut self, kind: TransportKind, round: u32) -> impl Future<Output = Option<Stop>>;

    /// The rounds recorded so far.
    fn rounds(&self) -> &[Self::Round];

    /// Time since the timed rounds began (for `--duration`).
    fn measuring_for(&self) -> Duration;
}

/// Runs the schedule; returns why it stopped early, if it did, and what to
/// say about how it ended (`--duration`, `--until-stable`).
pub async fn measure<R: Rounds>(target: &mut R, plan: &Schedule) -> (Option<Stop>, Option<String>) {
    if plan.order == Order::Sequential {
        for (round, kind) in schedule(&plan.transports, plan.iterations, plan.order) {
            if let Some(why) = target.measure_round(kind, round).await {
                return (Some(why), None);
            }
        }
        return (None, None);
    }
    for round in 0.. {
        let more = match plan.duration {
            Some(duration) => target.measuring_for() < duration,
            None => round < plan.iterations,
        };
        if !more {
            break;
        }
        for kind in pair_order(&plan.transports, round) {
            if let Some(why) = target.measure_round(kind, round).await {
                let because = match (why, plan.until_stable) {
                    (Stop::TimedOut, Some(width)) => {
                        Some(format!("not stable: hit --timeout before the interval narrowed to {width} points"))
                    }
                    _ => None,
                };
                return (Some(why), because);
            }
        }
        if let (Some(width), [a, b]) = (plan.until_stable, plan.transports.as_slice()) {
            // Counted from the complete pairs the interval rests on, not rounds
            // run: a failed round is in neither. Rounds of several parts
            // (w1r3) are stable when every part is.
            let (pairs, now) = widest_interval(target.rounds(), *a, *b);
            if let Some(now) = now
                && now <= width
            {
                let said = format!("stable after {pairs} paired rounds: the 95% interval is {now:.1} points wide");
                return (None, Some(said));
            }
        }
    }
    (None, why_the_schedule_ended(plan, target.rounds()))
}

/// Said when the schedule ran out: what limit ended it, and whether
/// `--until-stable` was met (it was not, or the loop would have said so).
fn why_the_schedule_ended<R: PairedRound>(plan: &Schedule, rounds: &[R]) -> Option<String> {
    let limit = match plan.duration {
        Some(duration) => format!("--duration {}", units::format_duration(duration)),
        None => format!("--iterations {}", plan.iterations),
    };
    let (Some(width), [a, b]) = (plan.until_stable, plan.transports.as_slice()) else {
        return plan.duration.is_some().then(|| format!("ran for {limit}"));
    };
    let (pairs, now) = widest_interval(rounds, *a, *b);
    let now = match now {
        Some(now) => format!("the 95% interval is {now:.1} points wide"),
        None => format!(
            "{} give{} no interval yet",
            crate::report::plural(pairs, "complete pair"),
            if pairs == 1 { "s" } else { "" }
        ),
    };
    Some(format!(
        "not stable: hit {limit} before the interval narrowed to {width} points ({now}); allow more rounds to get there"
    ))
}

/// The fewest complete pairs of any part, and the widest interval of any
/// part (`None` while a part has too few pairs for one).
fn widest_interval<R: PairedRound>(rounds: &[R], a: TransportKind, b: TransportKind) -> (usize, Option<f64>) {
    let parts = paired_log_ratios_by_part(rounds, a, b);
    let pairs = parts.iter().map(Vec::len).min().unwrap_or(0);
    let widths: Option<Vec<f64>> = parts.iter().map(|ratios| interval_width(ratios)).collect();
    (pairs, widths.and_then(|w| w.into_iter().reduce(f64::max)))
}
