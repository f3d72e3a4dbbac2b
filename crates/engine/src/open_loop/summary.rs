//! An open-loop run's figures and verdict: each transport's latency from
//! intended start and its service time, what its pacing could not keep
//! (dropped and late arrivals), and HTTP/JSON's latency over gRPC's at the
//! same offered load (above 1: gRPC ahead, as a throughput ratio reads),
//! the geometric mean of the paired rounds' ratios with its 95% interval.

use super::{OpenLoop, PacingTally, latency_histogram};
use crate::compare::t_interval;
use crate::plan::TransportKind;
use hdrhistogram::Histogram;

/// One round's pacing, as a report keeps it beside the round.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct PacedRound {
    pub offered: u64,
    pub started: u64,
    pub dropped: u64,
    pub late: u64,
    pub achieved_rate: Option<f64>,
    /// Actual minus intended start, µs.
    #[serde(with = "crate::histogram::as_text", default = "latency_histogram")]
    #[schemars(with = "String")]
    pub lateness: Histogram<u64>,
    /// From actual start to answer, µs (latency from the intended start is
    /// the round's own latency histogram).
    #[serde(with = "crate::histogram::as_text", default = "latency_histogram")]
    #[schemars(with = "String")]
    pub service: Histogram<u64>,
}

impl PacedRound {
    /// Another pass of the same round into this one (a w1r3 round reads three times).
    pub fn absorb(&mut self, other: PacedRound) {
        let starts = self.started + other.started;
        self.achieved_rate = match (self.achieved_rate, other.achieved_rate) {
            (Some(a), Some(b)) if starts > 0 => {
                Some((a * self.started as f64 + b * other.started as f64) / starts as f64)
            }
            (a, b) => a.or(b),
        };
        self.offered += other.offered;
        self.started = starts;
        self.dropped += other.dropped;
        self.late += other.late;
        let _ = self.lateness.add(&other.lateness);
        let _ = self.service.add(&other.service);
    }

    pub fn of(tally: PacingTally, service: Histogram<u64>) -> Self {
        let PacingTally { offered, started, dropped, late, lateness, achieved_rate, .. } = tally;
        PacedRound { offered, started, dropped, late, achieved_rate, lateness, service }
    }
}

/// A round as the open-loop verdict reads it.
pub struct RoundLatency<'a> {
    /// The host that ran it: a fleet's rounds pair within each host.
    pub host: &'a str,
    pub transport: TransportKind,
    pub round: u32,
    /// Every arrival of the round was answered.
    pub ok: bool,
    /// From intended start, µs.
    pub latency: &'a Histogram<u64>,
    pub paced: &'a PacedRound,
}

/// One transport's open-loop figures over its rounds.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct TransportLatency {
    pub transport: TransportKind,
    pub offered: u64,
    pub started: u64,
    pub dropped: u64,
    pub late: u64,
    /// Arrivals started per second, over its rounds (`None`: too few starts).
    pub achieved_rate: Option<f64>,
    pub p50_ms: Option<f64>,
    pub p99_ms: Option<f64>,
    pub service_p50_ms: Option<f64>,
    pub service_p99_ms: Option<f64>,
    pub lateness_p99_ms: Option<f64>,
    /// Why it did not keep the offered rate (arrivals dropped, or fewer
    /// started a second than offered), if it did not.
    pub not_sustained: Option<String>,
    /// Over 1% of its arrivals started over 1 ms late: the client's lag,
    /// said apart, as it does not change the rate kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_late: Option<String>,
}

/// HTTP/JSON's latency at one percentile over gRPC's, from the paired
/// rounds: above 1, gRPC answered sooner (as above 1 of a throughput ratio
/// is gRPC ahead).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(from = "super::saved::SavedLatencyRatio")]
pub struct LatencyRatio {
    pub percentile: String,
    /// The geometric mean of the paired rounds' ratios: the interval's own
    /// point estimate (`None` without a complete pair).
    pub json_over_grpc: Option<f64>,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    pub pairs: usize,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct OpenLoopSummary {
    /// What each arrival was: `put`, `upload`, `download`.
    pub work: String,
    pub offered: OpenLoop,
    pub transports: Vec<TransportLatency>,
    pub ratios: Vec<LatencyRatio>,
}

/// The arrivals a transport may miss (dropped, or achieved rate short of
/// the offer) and still be said to have sustained the rate.
pub(super) const SUSTAINED_WITHIN: f64 = 0.01;

fn ms(histogram: &Histogram<u64>, quantile: f64) -> Option<f64> {
    (!histogram.is_empty()).then(|| histogram.value_at_quantile(quantile) as f64 / 1000.0)
}

/// The figures of `transports` over `rounds`.
pub fn summarize(
    work: &str,
    offered: &OpenLoop,
    transports: &[TransportKind],
    rounds: &[RoundLatency],
) -> OpenLoopSummary {
    let transports: Vec<TransportLatency> =
        transports.iter().map(|kind| transport_latency(offered, *kind, rounds)).collect();
    let ratios = ["p50", "p99"]
        .iter()
        .map(|name| {
            let quantile = if *name == "p50" { 0.5 } else { 0.99 };
            latency_ratio(name, quantile, rounds)
        })
        .collect();
    OpenLoopSummary { work: work.into(), offered: *offered, transports, ratios }
}

fn transport_latency(offered: &OpenLoop, kind: TransportKind, rounds: &[RoundLatency]) -> TransportLatency {
    let mine: Vec<&RoundLatency> = rounds.iter().filter(|r| r.transport == kind).collect();
    let (mut latency, mut service, mut lateness) = (latency_histogram(), latency_histogram(), latency_histogram());
    // Latency over the complete rounds only, as the paired ratios take it:
    // a round cut short or with failures measured other work. What pacing
    // kept (offered, dropped, late) counts every round.
    for round in mine.iter().filter(|r| r.ok) {
        let _ = latency.add(round.latency);
        let _ = service.add(&round.paced.service);
        let _ = lateness.add(&round.paced.lateness);
    }
    let sum = |of: fn(&PacedRound) -> u64| mine.iter().map(|r| of(r.paced)).sum::<u64>();
    let (offered_n, started, dropped, late) =
        (sum(|p| p.offered), sum(|p| p.started), sum(|p| p.dropped), sum(|p| p.late));
    // Each round's rate weighted by its starts: the rate the rounds kept.
    let rated: Vec<(f64, u64)> = mine.iter().filter_map(|r| Some((r.paced.achieved_rate?, r.paced.started))).collect();
    let weight: u64 = rated.iter().map(|(_, n)| n).sum();
    let achieved_rate =
        (weight > 0).then(|| rated.iter().map(|(rate, n)| rate * *n as f64).sum::<f64>() / weight as f64);
    let mut short = Vec::new();
    // Any drop: an arrival dropped is one the offer had and the server never saw.
    if dropped > 0 {
        short.push(format!(
            "{dropped} of {offered_n} arrivals dropped: the server's answers fell behind, {} in flight at once (--max-in-flight)",
            offered.max_in_flight
        ));
    }
    if let Some(rate) = achieved_rate.filter(|rate| *rate < offered.rate * (1.0 - SUSTAINED_WITHIN)) {
        short.push(format!(
            "started {}/s of {}/s offered",
            units::significant(rate, 3),
            units::significant(offered.rate, 3)
        ));
    }
    // Late starts are the client's: its pacer or runtime was busy when they
    // were due, whatever the server did.
    let client_late = (late as f64 > SUSTAINED_WITHIN * started as f64).then(|| {
        format!(
            "the client started {late} of {started} over 1 ms late (its own schedule slipped: a busy client, not a slow server)"
        )
    });
    TransportLatency {
        transport: kind,
        offered: offered_n,
        started,
        dropped,
        late,
        achieved_rate,
        p50_ms: ms(&latency, 0.5),
        p99_ms: ms(&latency, 0.99),
        service_p50_ms: ms(&service, 0.5),
        service_p99_ms: ms(&service, 0.99),
        lateness_p99_ms: ms(&lateness, 0.99),
        not_sustained: (!short.is_empty()).then(|| short.join(", ")),
        client_late,
    }
}

fn latency_ratio(name: &str, quantile: f64, rounds: &[RoundLatency]) -> LatencyRatio {
    let at = |round: &RoundLatency| {
        (round.ok && !round.latency.is_empty()).then(|| round.latency.value_at_quantile(quantile).max(1) as f64)
    };
    let logs: Vec<f64> = rounds
        .iter()
        .filter(|r| r.transport == TransportKind::Grpc)
        .filter_map(|grpc| {
            let json = rounds
                .iter()
                .find(|r| r.transport == TransportKind::Json && r.round == grpc.round && r.host == grpc.host)?;
            Some((at(json)? / at(grpc)?).ln())
        })
        .collect();
    let mean = (!logs.is_empty()).then(|| logs.iter().sum::<f64>() / logs.len() as f64);
    let interval = t_interval(&logs);
    LatencyRatio {
        percentile: name.into(),
        // Only with its interval, as a throughput verdict: fewer than 3 pairs give neither.
        json_over_grpc: mean.filter(|_| interval.is_some()).map(f64::exp),
        ci_low: interval.map(|(low, _)| low.exp()),
        ci_high: interval.map(|(_, high)| high.exp()),
        pairs: logs.len(),
    }
}

impl OpenLoopSummary {
    /// What a reader is told: the offer, each transport's latency and
    /// service time, what it could not keep, and the ratio at each percentile.
    pub fn sentences(&self) -> Vec<String> {
        // As the table says a latency: `913 µs`, `1.55 ms`.
        let number = |v: Option<f64>| v.map_or("-".to_string(), |ms| units::format_latency(ms / 1e3));
        let mut said = vec![format!(
            "open loop: {}s offered to each transport at {}{}; latency counts from each one's intended start",
            self.work,
            self.offered.said(),
            self.offered.rounds_said()
        )];
        for t in &self.transports {
            let kept = match (&t.not_sustained, &t.client_late) {
                (Some(why), Some(late)) => format!("did not sustain the rate: {why}; and {late}"),
                (Some(why), None) => format!("did not sustain the rate: {why}"),
                (None, Some(late)) => format!("kept the rate, but {late}"),
                (None, None) => "sustained the rate".to_string(),
            };
            said.push(format!(
                "{} {}s: p50 {}, p99 {} from intended start (service p50 {}, p99 {}); {kept}",
                t.transport.name(),
                self.work,
                number(t.p50_ms),
                number(t.p99_ms),
                number(t.service_p50_ms),
                number(t.service_p99_ms),
            ));
        }
        said.extend(self.ratios.iter().filter_map(|r| r.sentence(&self.work)));
        // A fresh-eyes pass read 46 µs a call closed loop as 212 µs at
        // 200/s: an idle client's runtime wakes (and searches for work
        // before sleeping again) for each arrival, a cost spread over fewer
        // calls the lower the rate.
        said.push(format!(
            "client CPU per {} includes waking the idle client for each arrival and waiting out the pacer's lead, the more the lower the rate: read it against a closed-loop run",
            self.work
        ));
        said
    }
}

impl LatencyRatio {
    /// `http-json/grpc p99 put latency 1.22x, above 1 is grpc ahead (95% CI
    /// 1.11x to 1.33x, 5 pairs)`.
    fn sentence(&self, work: &str) -> Option<String> {
        if self.json_over_grpc.is_none() && self.pairs > 0 {
            let pairs = crate::report::plural(self.pairs, "pair");
            return Some(format!(
                "http-json/grpc {} {work} latency: no ratio from {pairs}, 3 are needed",
                self.percentile
            ));
        }
        let ratio = self.json_over_grpc?;
        let pairs = crate::report::plural(self.pairs, "pair");
        let interval = match (self.ci_low, self.ci_high) {
            (Some(_), Some(_)) if !self.readable() => {
                format!("the 95% interval is too wide to read: run more rounds, {pairs}")
            }
            (Some(low), Some(high)) => format!("95% CI {low:.2}x to {high:.2}x, {pairs}"),
            _ => format!("no interval: {pairs}, 3 are needed"),
        };
        Some(format!(
            "http-json/grpc {} {work} latency {ratio:.2}x, above 1 is grpc ahead: the paired rounds' geometric mean ({interval})",
            self.percentile
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::Spacing;
    use super::*;

    fn histogram(values_us: &[u64]) -> Histogram<u64> {
        let mut h = latency_histogram();
        values_us.iter().for_each(|v| h.record(*v).unwrap());
        h
    }

    fn paced(offered: u64, dropped: u64, late: u64, rate: f64) -> PacedRound {
        let started = offered - dropped;
        PacedRound {
            offered,
            started,
            dropped,
            late,
            achieved_rate: Some(rate),
            lateness: histogram(&[10]),
            service: histogram(&[1000]),
        }
    }

    #[test]
    fn the_ratio_pairs_rounds_and_a_short_transport_is_named() {
        let offer = OpenLoop { rate: 100.0, spacing: Spacing::Constant, max_in_flight: 10, round_s: Some(1.0) };
        // gRPC's p50 is half of JSON's in every round: 0.5 ms against 1,
        // 0.7 against 1.4, 0.6 against 1.2 (under 2048 µs a histogram of 3
        // digits keeps every microsecond): each paired ratio is 0.5 exactly.
        let json: Vec<Histogram<u64>> = [1000, 1400, 1200].iter().map(|v| histogram(&[*v; 10])).collect();
        let grpc: Vec<Histogram<u64>> = [500, 700, 600].iter().map(|v| histogram(&[*v; 10])).collect();
        let kept = paced(100, 0, 0, 100.0);
        // JSON dropped 5 of 100 in each round (over the 1% allowed) and kept 95/s.
        let short = paced(100, 5, 0, 95.0);
        // A failed JSON round whose answered requests took 100 ms: not in the figures.
        let failed = histogram(&[100_000; 10]);
        let mut rounds = vec![RoundLatency {
            host: "a",
            transport: TransportKind::Json,
            round: 3,
            ok: false,
            latency: &failed,
            paced: &short,
        }];
        for round in 0..3 {
            let (j, g) = (&json[round as usize], &grpc[round as usize]);
            rounds.push(RoundLatency {
                host: "a",
                transport: TransportKind::Json,
                round,
                ok: true,
                latency: j,
                paced: &short,
            });
            rounds.push(RoundLatency {
                host: "a",
                transport: TransportKind::Grpc,
                round,
                ok: true,
                latency: g,
                paced: &kept,
            });
        }
        let both = [TransportKind::Json, TransportKind::Grpc];
        let summary = summarize("put", &offer, &both, &rounds);
        let p50 = &summary.ratios[0];
        assert_eq!(p50.pairs, 3);
        // HTTP/JSON's over gRPC's is 2 in every pair: no spread, so the
        // interval and the estimate are 2 itself.
        assert!((p50.json_over_grpc.unwrap() - 2.0).abs() < 1e-9);
        assert!((p50.ci_low.unwrap() - 2.0).abs() < 1e-9 && (p50.ci_high.unwrap() - 2.0).abs() < 1e-9);
        let json_row = &summary.transports[0];
        // Pacing counts the failed round too: four rounds of 100 offered, 5 dropped each.
        assert_eq!((json_row.offered, json_row.started, json_row.dropped), (400, 380, 20));
        let why = json_row.not_sustained.as_deref().unwrap();
        assert!(why.contains("20 of 400 arrivals dropped") && why.contains("started 95.0/s of 100/s"), "{why}");
        assert_eq!(summary.transports[1].not_sustained, None);
        // The whole run's p50: the middle of 30 values of 1, 1.4 and 1.2 ms is 1.2 ms.
        assert_eq!(json_row.p50_ms, Some(1.2));
        assert_eq!(json_row.p99_ms, Some(1.4), "the failed round's 100 ms is not in it");
        let said = summary.sentences().join("\n");
        assert!(said.contains("http-json puts: p50 1.20 ms") && said.contains("did not sustain the rate"), "{said}");
        assert!(said.contains("http-json/grpc p50 put latency 2.00x, above 1 is grpc ahead: the paired rounds' geometric mean (95% CI 2.00x to 2.00x, 3 pairs)"), "{said}");
    }
}
