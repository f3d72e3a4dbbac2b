//! The verdict between two transports, and how sure it is.
//!
//! Round i of one transport ran next to round i of the other, so each
//! pair's log throughput ratio is one observation of the difference, with
//! drift between pairs cancelled out. The headline percent is the geometric
//! mean of those ratios, and a Student t interval on the mean of their logs
//! is its 95% confidence interval: the figure quoted beside an interval is
//! always that interval's own estimate. Each transport's rate over all its
//! complete rounds is kept beside it, and said as pooled: it can differ
//! from the paired estimate when rounds differ in length.

use crate::plan::TransportKind;
use units::RateUnit;

pub const METHOD: &str = "geometric mean of per-pair throughput ratios, with the 95% t interval of their logs";
/// Fewer pairs than this give no interval.
pub const MIN_PAIRS: usize = 3;

/// The verdict between two transports: one type for every target, whose
/// rates are in the unit `U` names. A report's JSON spells them as that
/// report always has (`faster_mib_s` for GCS's MiB/s, `faster_ops_s` for
/// etcd's operations or events per second), so earlier reports still load.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Comparison<U = MibRates> {
    /// The verdict's fields are null when there is no verdict (see `no_verdict`).
    pub faster: Option<TransportKind>,
    pub slower: Option<TransportKind>,
    /// (faster / slower - 1) x 100, of the paired rounds' geometric mean
    /// ratio: the interval's own point estimate.
    pub percent: Option<f64>,
    /// The faster and slower transports' pooled rates (work over time of
    /// all their complete rounds), in `U`'s unit.
    #[serde(flatten)]
    pub rates: U,
    /// The 95% interval of the same percent, from the paired rounds.
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// Round indices both transports completed, and those either began.
    pub pairs: usize,
    pub pairs_attempted: usize,
    pub method: String,
    /// The interval lies wholly above zero: the faster one is faster.
    pub significant: bool,
    /// Why no transport is named faster: fewer than `MIN_PAIRS` complete pairs.
    pub no_verdict: Option<String>,
    /// Both transports' rates, in the configured order (absent from etcd
    /// reports written before the verdict was one type: nothing measured).
    #[serde(default = "nothing_measured")]
    pub measured: [(TransportKind, Option<f64>); 2],
}

fn nothing_measured() -> [(TransportKind, Option<f64>); 2] {
    [(TransportKind::Json, None), (TransportKind::Grpc, None)]
}

/// The unit a verdict's two rates are in, and how its JSON spells them.
pub trait Rates: Clone + std::fmt::Debug + PartialEq {
    fn new(faster: Option<f64>, slower: Option<f64>) -> Self;
    fn faster(&self) -> Option<f64>;
    fn slower(&self) -> Option<f64>;
}

/// Rates of bytes, in MiB/s (GCS).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct MibRates {
    pub faster_mib_s: Option<f64>,
    pub slower_mib_s: Option<f64>,
}

/// Rates of operations (or events), per second (etcd).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct OpsRates {
    pub faster_ops_s: Option<f64>,
    pub slower_ops_s: Option<f64>,
}

macro_rules! rates {
    ($name:ident, $faster:ident, $slower:ident) => {
        impl Rates for $name {
            fn new(faster: Option<f64>, slower: Option<f64>) -> Self {
                $name { $faster: faster, $slower: slower }
            }
            fn faster(&self) -> Option<f64> {
                self.$faster
            }
            fn slower(&self) -> Option<f64> {
                self.$slower
            }
        }
    };
}
rates!(MibRates, faster_mib_s, slower_mib_s);
rates!(OpsRates, faster_ops_s, slower_ops_s);

/// A round that can be paired with the other transport's round of the same
/// index: GCS upload rounds (MiB/s), etcd rounds (operations/s).
pub trait PairedRound {
    fn transport(&self) -> TransportKind;
    fn index(&self) -> u32;
    /// Rounds of several parts (a write, then reads) pair part with part.
    fn part(&self) -> u8 {
        0
    }
    /// Work per second, when the round completed every request.
    fn rate(&self) -> Option<f64>;
}

impl<R: PairedRound> PairedRound for &R {
    fn transport(&self) -> TransportKind {
        (*self).transport()
    }
    fn index(&self) -> u32 {
        (*self).index()
    }
    fn part(&self) -> u8 {
        (*self).part()
    }
    fn rate(&self) -> Option<f64> {
        (*self).rate()
    }
}

/// The verdict from each transport's overall rate (work / time over its
/// complete rounds) and the paired rounds, whatever the unit of work.
pub fn compare_rates<R: PairedRound, U: Rates>(
    measured: [(TransportKind, Option<f64>); 2],
    rounds: &[R],
) -> Option<Comparison<U>> {
    compare_rates_in(measured, rounds, " completed no round")
}

/// Why a fleet's transport has no rate: its rounds count only inside the
/// hosts' common window, and every host must have one there.
pub const NO_ROUND_IN_FLEET_WINDOW: &str = ": a host completed no round inside the fleet's common window";

/// `compare_rates`, saying `why_no_rate` after the names of the transports
/// without a rate (" completed no round" for a run's own rounds).
pub fn compare_rates_in<R: PairedRound, U: Rates>(
    measured: [(TransportKind, Option<f64>); 2],
    rounds: &[R],
    why_no_rate: &str,
) -> Option<Comparison<U>> {
    let [(a, a_rate), (b, b_rate)] = measured;
    let attempted: std::collections::BTreeSet<u32> = rounds.iter().map(|r| r.index()).collect();
    let pairs_attempted = attempted
        .iter()
        .filter(|&&i| [a, b].iter().all(|&t| rounds.iter().any(|r| r.index() == i && r.transport() == t)))
        .count();
    let pairs = paired_log_ratios(rounds, a, b).len();
    let no_verdict = |reason: String| Comparison {
        faster: None,
        slower: None,
        percent: None,
        rates: U::new(None, None),
        ci_low: None,
        ci_high: None,
        pairs,
        pairs_attempted,
        method: METHOD.into(),
        significant: false,
        no_verdict: Some(reason),
        measured,
    };
    let (Some(a_rate), Some(b_rate)) = (a_rate, b_rate) else {
        let missing: Vec<&str> = measured.iter().filter(|(_, rate)| rate.is_none()).map(|(t, _)| t.name()).collect();
        return Some(no_verdict(format!("{}{why_no_rate}", missing.join(" and "))));
    };
    if pairs < MIN_PAIRS {
        let (plural, are) = if pairs == 1 { ("", "is") } else { ("s", "are") };
        let reason = if pairs == pairs_attempted {
            format!(
                "{pairs} paired round{plural} {are} too few for a confidence interval: use 3 or more iterations (or a longer --duration)"
            )
        } else {
            format!(
                "only {pairs} of {pairs_attempted} paired rounds completed on both transports (the others failed or were cut off), and {MIN_PAIRS} are needed"
            )
        };
        return Some(no_verdict(reason));
    }
    // Which one is faster, and by how much, is the paired rounds' geometric
    // mean: the estimate the interval is of.
    let ab = paired_log_ratios(rounds, a, b);
    let mean_ab = ab.iter().sum::<f64>() / ab.len() as f64;
    let (fast, slow, fast_rate, slow_rate) =
        if mean_ab >= 0.0 { (a, b, a_rate, b_rate) } else { (b, a, b_rate, a_rate) };
    let ratios = paired_log_ratios(rounds, fast, slow);
    let interval = t_interval(&ratios).map(|(low, high)| (percent_of(low), percent_of(high)));
    Some(Comparison {
        faster: Some(fast),
        slower: Some(slow),
        percent: Some(percent_of(mean_ab.abs())),
        rates: U::new(Some(fast_rate), Some(slow_rate)),
        ci_low: interval.map(|i| i.0),
        ci_high: interval.map(|i| i.1),
        pairs,
        pairs_attempted,
        method: METHOD.into(),
        significant: interval.is_some_and(|(low, _)| low > 0.0),
        no_verdict: None,
        measured,
    })
}

fn percent_of(log_ratio: f64) -> f64 {
    (log_ratio.exp() - 1.0) * 100.0
}

/// ln(rate of `top` / rate of `bottom`) for each round index (and part) in
/// which both completed every request.
pub fn paired_log_ratios<R: PairedRound>(rounds: &[R], top: TransportKind, bottom: TransportKind) -> Vec<f64> {
    rounds
        .iter()
        .filter(|r| r.transport() == top)
        .filter_map(|t| {
            let b =
                rounds.iter().find(|r| r.transport() == bottom && r.index() == t.index() && r.part() == t.part())?;
            Some((t.rate()? / b.rate()?).ln())
        })
        .collect()
}

/// The paired log ratios of each part the rounds have, in part order.
pub fn paired_log_ratios_by_part<R: PairedRound>(
    rounds: &[R],
    top: TransportKind,
    bottom: TransportKind,
) -> Vec<Vec<f64>> {
    let parts: std::collections::BTreeSet<u8> = rounds.iter().map(|r| r.part()).collect();
    parts
        .into_iter()
        .map(|part| {
            let of_part: Vec<&R> = rounds.iter().filter(|r| r.part() == part).collect();
            paired_log_ratios(&of_part, top, bottom)
        })
        .collect()
}

/// The 95% t interval of the mean, or `None` with fewer than `MIN_PAIRS` values.
pub fn t_interval(values: &[f64]) -> Option<(f64, f64)> {
    let n = values.len();
    if n < MIN_PAIRS {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = t_975(n - 1) * (variance / n as f64).sqrt();
    Some((mean - half, mean + half))
}

/// Width in percentage points of the interval the verdict quotes (for
/// `--until-stable`): of the faster over the slower, whichever order the
/// log ratios were taken in. Taken the other way, +88% to +117% would be
/// -54% to -47%: 7 points, where the verdict prints 29.
pub fn interval_width(values: &[f64]) -> Option<f64> {
    let mean = values.iter().sum::<f64>() / values.len().max(1) as f64;
    let faster_over_slower: Vec<f64> = values.iter().map(|v| if mean < 0.0 { -v } else { *v }).collect();
    t_interval(&faster_over_slower).map(|(low, high)| percent_of(high) - percent_of(low))
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom: exact
/// table values to 30, then the Cornish-Fisher expansion (error < 0.001).
pub fn t_975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    if (1..=30).contains(&df) {
        return TABLE[df - 1];
    }
    let z: f64 = 1.959_964;
    let d = df.max(1) as f64;
    z + (z.powi(3) + z) / (4.0 * d)
        + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * d * d)
        + (3.0 * z.powi(7) + 19.0 * z.powi(5) + 17.0 * z.powi(3) - 15.0 * z) / (384.0 * d.powi(3))
}

/// An interval whose ends, as ratios of the two rates, lie more than this
/// factor apart is not quoted: "-99.4% to +36631.1%" is noise, not a
/// finding. A factor and not percentage points, because the interval is
/// taken on the log of the ratio: "+60% to +175%" (ends 1.7x apart, a 2x
/// difference) is as sharp a finding as "-20% to +25%", yet 115 points
/// wide. Around no difference 2.5x is about the old 100 points (-37% to +58%).
pub const READABLE_INTERVAL_FACTOR: f64 = 2.5;

/// An interval from `low`% to `high`% is narrow enough to quote.
pub fn readable_interval(low: f64, high: f64) -> bool {
    let (low, high) = (1.0 + low / 100.0, 1.0 + high / 100.0);
    low > 0.0 && high <= low * READABLE_INTERVAL_FACTOR
}

impl<U: Rates> Comparison<U> {
    /// The interval is narrow enough to quote (see `READABLE_INTERVAL_FACTOR`).
    pub fn readable(&self) -> bool {
        matches!((self.ci_low, self.ci_high), (Some(low), Some(high)) if readable_interval(low, high))
    }

    /// gRPC's rate over HTTP/JSON's, the paired rounds' geometric mean, and
    /// the 95% interval of that ratio (both only with a verdict: a ratio
    /// quoted beside an interval is the interval's own estimate).
    pub fn grpc_over_json(&self) -> (Option<f64>, Option<(f64, f64)>) {
        let times = |percent: f64| 1.0 + percent / 100.0;
        let ratio = match (self.faster, self.percent) {
            (Some(TransportKind::Json), Some(percent)) => Some(1.0 / times(percent)),
            (Some(_), Some(percent)) => Some(times(percent)),
            _ => None,
        };
        let interval = match (self.faster, self.ci_low, self.ci_high) {
            (Some(TransportKind::Json), Some(low), Some(high)) => Some((1.0 / times(high), 1.0 / times(low))),
            (Some(_), Some(low), Some(high)) => Some((times(low), times(high))),
            _ => None,
        };
        (ratio, interval)
    }

    /// gRPC's pooled rate over HTTP/JSON's (each over all its complete
    /// rounds), with or without a verdict: a figure apart from the paired one.
    pub fn pooled_grpc_over_json(&self) -> Option<f64> {
        let rate = |kind| self.measured.iter().find(|(k, _)| *k == kind).and_then(|(_, rate)| *rate);
        match (rate(TransportKind::Grpc), rate(TransportKind::Json)) {
            (Some(grpc), Some(json)) if json > 0.0 => Some(grpc / json),
            _ => None,
        }
    }

    /// `grpc was 7.5% faster than http-json (95% CI +2.1% to +12.9%, 5 pairs; pooled rates 8.13 vs 7.56 MiB/s)`,
    /// or "no significant difference", or no verdict, the two throughputs and why.
    pub fn sentence(&self, unit: RateUnit) -> String {
        self.sentence_in(&|rate| unit.number(rate), unit.name())
    }

    /// The sentence with its rates shown by `number` in `unit` (small
    /// objects: objects/s; the ratio is the same whatever the unit).
    pub fn sentence_in(&self, number: &dyn Fn(f64) -> String, unit: &str) -> String {
        let (Some(faster), Some(slower), Some(percent), Some(low), Some(high)) =
            (self.faster, self.slower, self.percent, self.ci_low, self.ci_high)
        else {
            let rates: Vec<String> = self
                .measured
                .iter()
                .map(|(kind, rate)| match rate {
                    Some(rate) => format!("{} {} {unit}", kind.name(), number(*rate)),
                    None => format!("{} no rate", kind.name()),
                })
                .collect();
            let reason = self.no_verdict.as_deref().unwrap_or("no interval");
            return format!("no verdict ({}): {reason}", rates.join(", "));
        };
        let figures = format!(
            "pooled rates {} vs {} {unit}",
            number(self.rates.faster().unwrap_or(0.0)),
            number(self.rates.slower().unwrap_or(0.0)),
        );
        let (faster, slower) = (faster.name(), slower.name());
        let pairs = crate::report::plural(self.pairs, "pair");
        // An interval that spans more than the whole of a doubling says
        // nothing a reader can use: neither its ends nor a percentage are
        // printed as if they did ("no significant difference: +1176%").
        if !self.readable() {
            let why = format!(
                "the 95% interval is too wide to read (its ends over {READABLE_INTERVAL_FACTOR}x apart): run more rounds, {pairs}"
            );
            return match self.significant {
                true => format!("{faster} was faster than {slower}, by how much is unclear ({figures}; {why})"),
                false => {
                    let faster_rate = number(self.rates.faster().unwrap_or(0.0));
                    let slower_rate = number(self.rates.slower().unwrap_or(0.0));
                    format!(
                        "no verdict yet (pooled rates {faster} {faster_rate} vs {slower} {slower_rate} {unit}; {why})"
                    )
                }
            };
        }
        let interval = format!("95% CI {low:+.1}% to {high:+.1}%, {pairs}");
        if self.significant {
            format!("{faster} was {percent:.1}% faster than {slower} ({interval}; {figures})")
        } else {
            format!("no significant difference: {faster} {percent:+.1}% vs {slower} ({interval}; {figures})")
        }
    }
}
