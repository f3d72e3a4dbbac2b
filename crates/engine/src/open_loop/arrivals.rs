//! When the arrivals of an open-loop round are due: evenly spaced at the
//! offered rate, or as a Poisson process of that rate (exponential gaps,
//! seeded so that a run can say which schedule it sent).

use crate::plan::flags::{ConfigError, fail, parse_count};
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Spacing {
    Constant,
    Poisson,
}

impl Spacing {
    pub fn name(self) -> &'static str {
        match self {
            Spacing::Constant => "constant",
            Spacing::Poisson => "poisson",
        }
    }
}

/// `--rate`, `--arrivals`, `--max-in-flight` and `--round-time`: what an
/// open-loop run offers. Each paired round is a slice of the schedule,
/// `round_s` long, so a run offers `rate` arrivals per second of each
/// transport's rounds, whatever a closed round's size would be.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct OpenLoop {
    /// Arrivals per second, per transport.
    pub rate: f64,
    pub spacing: Spacing,
    /// Requests outstanding at most; an arrival that finds this many is dropped.
    pub max_in_flight: u32,
    /// How long each round's arrivals span, in seconds (`None` in reports
    /// written before rounds were slices of time).
    #[serde(default)]
    pub round_s: Option<f64>,
}

/// The most `--rate` takes: far past what one client host sends.
const MOST_RATE: f64 = 1_000_000.0;

/// The most arrivals one round may hold: each is a task waiting for its
/// instant, so a round past this is refused, not run out of memory.
pub const MOST_PER_ROUND: u64 = 1_000_000;

/// The open-loop flags as typed (`round_time` already parsed, if given);
/// `None` when `--rate` is empty (closed loop), and then the open-loop
/// flags given are refused: they would change nothing.
pub fn parse_open_loop(
    rate: &str,
    arrivals: &str,
    max_in_flight: &str,
    round_time: Option<Duration>,
) -> Result<Option<OpenLoop>, ConfigError> {
    // Checked with or without a rate: a wrong value is said when typed,
    // not when a rate is given later.
    let spacing = match arrivals.trim() {
        "constant" | "" => Spacing::Constant,
        "poisson" => Spacing::Poisson,
        other => return fail("arrivals", format!("--arrivals '{other}' is not one of constant, poisson")),
    };
    let max_in_flight = parse_count(max_in_flight, "max_in_flight", 1, 100_000)?;
    let text = rate.trim();
    if text.is_empty() {
        let without = |flag: &str, field| {
            fail(field, format!("{flag} is for open loop: add --rate PER_SECOND, or leave {flag} out"))
        };
        if spacing != Spacing::Constant {
            return without("--arrivals poisson", "arrivals");
        }
        if max_in_flight != DEFAULT_MAX_IN_FLIGHT {
            return without("--max-in-flight", "max_in_flight");
        }
        if round_time.is_some() {
            return without("--round-time", "round_time");
        }
        return Ok(None);
    }
    let number = text.strip_suffix("/s").unwrap_or(text).trim();
    let rate = match number.parse::<f64>() {
        Ok(rate) if rate > 0.0 && rate <= MOST_RATE => rate,
        _ => {
            return fail(
                "rate",
                format!(
                    "--rate '{text}' is not a rate: give arrivals per second above 0 and at most 1000000, like 100"
                ),
            );
        }
    };
    Ok(Some(OpenLoop { rate, spacing, max_in_flight, round_s: round_time.map(|t| t.as_secs_f64()) }))
}

/// `--max-in-flight` when not given: as the flag's default says.
pub const DEFAULT_MAX_IN_FLIGHT: u32 = 1000;

impl OpenLoop {
    /// When each of `count` arrivals is due, from the round's start (the
    /// first at zero). Poisson gaps come from a SplitMix64 stream of `seed`.
    pub fn offsets(&self, count: usize, seed: u64) -> Vec<Duration> {
        let mean_gap = 1.0 / self.rate;
        let mut at = 0.0;
        (0..count as u64)
            .map(|index| {
                let due = Duration::from_secs_f64(at);
                at += match self.spacing {
                    Spacing::Constant => mean_gap,
                    Spacing::Poisson => -mean_gap * (1.0 - unit_interval(seed, index)).ln(),
                };
                due
            })
            .collect()
    }

    /// The shortest a paced round lasts: its slice of the schedule (a round
    /// whose last answer comes sooner still offered its arrivals over this
    /// long, and its rate is of this long). 0 for reports before slices.
    pub fn round_floor(&self) -> Duration {
        Duration::from_secs_f64(self.round_s.unwrap_or(0.0))
    }

    /// The arrivals each round offers: the rate over the round's time.
    pub fn per_round(&self) -> u64 {
        self.round_s.map_or(1, |round| (self.rate * round).round().max(1.0) as u64)
    }

    /// How a verdict says it: `100/s constant, at most 1000 in flight`.
    pub fn said(&self) -> String {
        format!(
            "{}/s {}, at most {} in flight",
            units::significant(self.rate, 3),
            self.spacing.name(),
            self.max_in_flight
        )
    }

    /// How its rounds cut the schedule: `in rounds of 1s (100 arrivals
    /// each)`; empty for reports written before rounds were slices of time.
    pub fn rounds_said(&self) -> String {
        match self.round_s {
            Some(round) => format!(
                ", in rounds of {} ({} each)",
                units::format_duration(Duration::from_secs_f64(round)),
                crate::report::plural(self.per_round() as usize, "arrival")
            ),
            None => String::new(),
        }
    }
}

/// The `index`th number of the seed's SplitMix64 stream, in [0, 1). The
/// seed is mixed first: rounds are seeded 1, 2, 3, ..., and `seed + index`
/// alone would make round k+1's gaps round k's shifted by one arrival.
fn unit_interval(seed: u64, index: u64) -> f64 {
    (units::splitmix64(units::splitmix64(seed).wrapping_add(index)) >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(rate: f64, spacing: Spacing) -> OpenLoop {
        OpenLoop { rate, spacing, max_in_flight: 10, round_s: Some(1.0) }
    }

    #[test]
    fn constant_arrivals_are_one_gap_apart() {
        let offsets = open(100.0, Spacing::Constant).offsets(5, 1);
        let millis: Vec<u128> = offsets.iter().map(|d| d.as_micros()).collect();
        assert_eq!(millis, [0, 10_000, 20_000, 30_000, 40_000]);
    }

    #[test]
    fn poisson_arrivals_keep_the_rate_on_average_and_vary() {
        let rate = 1000.0;
        let count = 20_000;
        let offsets = open(rate, Spacing::Poisson).offsets(count, 7);
        // The mean gap of n exponential gaps of mean 1/rate has a standard
        // deviation of 1/(rate * sqrt(n)): 0.7% here, so 3% is over 4 sigma.
        let span = offsets.last().unwrap().as_secs_f64();
        let mean_gap = span / (count - 1) as f64;
        assert!((mean_gap * rate - 1.0).abs() < 0.03, "mean gap {mean_gap}");
        // Exponential gaps: about 1/e of them exceed the mean.
        let gaps: Vec<f64> = offsets.windows(2).map(|w| (w[1] - w[0]).as_secs_f64()).collect();
        let long = gaps.iter().filter(|g| **g > 1.0 / rate).count() as f64 / gaps.len() as f64;
        assert!((long - (-1.0f64).exp()).abs() < 0.02, "share over the mean {long}");
        assert_eq!(offsets, open(rate, Spacing::Poisson).offsets(count, 7), "the seed fixes the schedule");
        // The next round's seed draws other gaps, not these shifted by one.
        let next: Vec<f64> =
            open(rate, Spacing::Poisson).offsets(101, 8).windows(2).map(|w| (w[1] - w[0]).as_secs_f64()).collect();
        assert_ne!(next[..99], gaps[1..100], "seed 8 is not seed 7 shifted by one");
        assert!(next.iter().zip(&gaps).filter(|(a, b)| a == b).count() < 5, "seeds 7 and 8 share gaps");
    }

    #[test]
    fn the_flags_parse_or_say_what_to_do() {
        assert_eq!(parse_open_loop("", "constant", "1000", None).unwrap(), None);
        let parsed = parse_open_loop("250/s", "poisson", "64", Some(Duration::from_millis(400))).unwrap().unwrap();
        assert_eq!(parsed, OpenLoop { rate: 250.0, spacing: Spacing::Poisson, max_in_flight: 64, round_s: Some(0.4) });
        // 250/s over 0.4 s: 100 arrivals a round.
        assert_eq!(parsed.per_round(), 100);
        assert_eq!(parsed.said(), "250/s poisson, at most 64 in flight");
        assert_eq!(parsed.rounds_said(), ", in rounds of 400ms (100 arrivals each)");
        for bad in ["0", "-3", "fast", "2000000"] {
            let error = parse_open_loop(bad, "constant", "10", None).unwrap_err();
            assert_eq!(error.field, "rate");
            assert!(error.message.contains("like 100"), "{bad}: {}", error.message);
        }
        assert_eq!(parse_open_loop("10", "bursty", "10", None).unwrap_err().field, "arrivals");
        assert_eq!(parse_open_loop("10", "constant", "0", None).unwrap_err().field, "max_in_flight");
    }

    #[test]
    fn open_loop_flags_without_a_rate_are_refused() {
        let refused = [
            (parse_open_loop("", "poisson", "1000", None), "arrivals"),
            (parse_open_loop("", "constant", "50", None), "max_in_flight"),
            (parse_open_loop("", "constant", "1000", Some(Duration::from_secs(2))), "round_time"),
        ];
        for (result, field) in refused {
            let error = result.unwrap_err();
            assert_eq!(error.field, field);
            assert!(error.message.contains("add --rate PER_SECOND"), "{}", error.message);
        }
    }
}
