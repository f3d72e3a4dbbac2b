//! An open-loop run's verdict in one sentence. The offered rate sets the
//! throughput (each transport is sent the same arrivals), so what tells
//! the transports apart is latency at that load: the verdict is on p99
//! from intended start, with the interval of its paired rounds' ratio.

use super::summary::SUSTAINED_WITHIN;
use super::{LatencyRatio, OpenLoopSummary, TransportLatency};

/// What an open-loop run's throughput verdict begins with when every
/// transport kept the offer: the offer set it.
pub const THROUGHPUT_SET: &str = "throughput, which the offered rate sets: ";
use crate::compare::READABLE_INTERVAL_FACTOR;
use crate::plan::TransportKind;

impl OpenLoopSummary {
    /// What the throughput verdict that follows this one begins with: the
    /// offer set the throughput, or, where a transport dropped arrivals or
    /// started fewer a second than offered, the arrivals it started did.
    pub fn throughput_said(&self) -> String {
        let short: Vec<String> = self
            .transports
            .iter()
            .filter(|t| self.fell_short(t))
            .map(|t| match (t.dropped, t.achieved_rate) {
                (0, Some(rate)) => format!(
                    "{} started {}/s of {}/s",
                    t.transport.name(),
                    units::significant(rate, 3),
                    units::significant(self.offered.rate, 3)
                ),
                _ => format!("{} started {} of {} arrivals", t.transport.name(), t.started, t.offered),
            })
            .collect();
        match short.is_empty() {
            true => THROUGHPUT_SET.into(),
            false => format!("throughput, which the arrivals started set, not the offer ({}): ", short.join("; ")),
        }
    }

    /// It dropped arrivals or started fewer a second than offered (late
    /// starts alone are the client's lag, not a rate it could not keep).
    pub fn fell_short(&self, t: &TransportLatency) -> bool {
        t.dropped > 0 || t.achieved_rate.is_some_and(|rate| rate < self.offered.rate * (1.0 - SUSTAINED_WITHIN))
    }

    /// `open loop, uploads at 100/s constant, ...: grpc p99 3.34 ms vs
    /// http-json 3.39 ms from intended start (pooled), no significant
    /// difference (http-json/grpc p99 1.01x, 95% CI 0.92x to 1.11x, 6
    /// pairs)`, and any transport that did not sustain the rate.
    pub fn verdict(&self) -> String {
        let p99 = |kind: TransportKind| self.transports.iter().find(|t| t.transport == kind).and_then(|t| t.p99_ms);
        let ratio = self.ratios.iter().find(|r| r.percentile == "p99");
        let body = match (ratio, p99(TransportKind::Grpc), p99(TransportKind::Json)) {
            (Some(ratio), Some(grpc), Some(json)) => {
                format!(
                    "grpc p99 {} vs http-json {} from intended start (pooled), {}",
                    said(grpc),
                    said(json),
                    compared(ratio)
                )
            }
            _ => match self.transports.iter().find(|t| t.p99_ms.is_some()) {
                Some(one) if self.transports.len() == 1 => {
                    format!("{} p99 {} from intended start", one.transport.name(), said(one.p99_ms.unwrap_or_default()))
                }
                _ => "no latency comparison: no complete round of both transports".into(),
            },
        };
        let names = |of: fn(&TransportLatency) -> bool| -> Vec<&str> {
            self.transports.iter().filter(|t| of(t)).map(|t| t.transport.name()).collect()
        };
        let mut tail = String::new();
        if let names @ [_, ..] = names(|t| t.not_sustained.is_some()).as_slice() {
            tail += &format!("; {} did not sustain the rate", names.join(" and "));
        }
        if let names @ [_, ..] = names(|t| t.dropped > 0).as_slice() {
            tail +=
                &format!(" (the latencies are of the arrivals {} started, not of those dropped)", names.join(" and "));
        }
        if let names @ [_, ..] = names(|t| t.client_late.is_some() && t.not_sustained.is_none()).as_slice() {
            let whose: Vec<String> = names.iter().map(|name| format!("{name}'s")).collect();
            tail += &format!("; the client started some of {} arrivals late", whose.join(" and "));
        }
        format!("open loop, {}s at {}: {body}{tail}", self.work, self.offered.said())
    }
}

/// `3.39 ms`, `913 µs`: as the table says a latency.
fn said(ms: f64) -> String {
    units::format_latency(ms / 1e3)
}

impl LatencyRatio {
    /// Its interval is narrow enough to quote: by the rule a throughput
    /// verdict's is (its ends at most `READABLE_INTERVAL_FACTOR` apart).
    pub fn readable(&self) -> bool {
        matches!((self.ci_low, self.ci_high), (Some(low), Some(high)) if low > 0.0 && high <= low * READABLE_INTERVAL_FACTOR)
    }
}

/// Which way the paired rounds point, with the ratio and its interval.
fn compared(ratio: &LatencyRatio) -> String {
    let Some(value) = ratio.json_over_grpc else {
        let pairs = crate::report::plural(ratio.pairs, "complete pair");
        return format!("no verdict: {pairs}, and 3 are needed for an interval");
    };
    let pairs = crate::report::plural(ratio.pairs, "pair");
    let named = format!("http-json/grpc {} {value:.2}x", ratio.percentile);
    match (ratio.ci_low, ratio.ci_high) {
        (Some(low), Some(high)) => {
            let way = if low > 1.0 {
                "grpc faster"
            } else if high < 1.0 {
                "grpc slower"
            } else {
                "no significant difference"
            };
            let wide = format!("the 95% interval is too wide to read: run more rounds, {pairs}");
            // As a throughput verdict says one too wide to read.
            match (ratio.readable(), way) {
                (true, _) => format!("{way} ({named}, 95% CI {low:.2}x to {high:.2}x, {pairs})"),
                (false, "no significant difference") => format!("no verdict yet ({named}; {wide})"),
                (false, _) => format!("{way}, by how much is unclear ({named}; {wide})"),
            }
        }
        _ => format!("{named}, no interval ({pairs}, 3 are needed)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::open_loop::{OpenLoop, Spacing};

    /// A transport that kept the rate, for tests.
    fn kept(transport: TransportKind, p99_ms: f64) -> TransportLatency {
        TransportLatency {
            transport,
            offered: 100,
            started: 100,
            dropped: 0,
            late: 0,
            achieved_rate: Some(100.0),
            p50_ms: Some(p99_ms / 2.0),
            p99_ms: Some(p99_ms),
            service_p50_ms: None,
            service_p99_ms: None,
            lateness_p99_ms: None,
            not_sustained: None,
            client_late: None,
        }
    }

    fn both_again() -> Vec<TransportLatency> {
        vec![kept(TransportKind::Json, 4.0), kept(TransportKind::Grpc, 2.0)]
    }

    fn summary(transports: Vec<TransportLatency>, ratio: Option<(f64, f64, f64)>) -> OpenLoopSummary {
        let ratios = ratio.map(|(value, low, high)| LatencyRatio {
            percentile: "p99".into(),
            json_over_grpc: Some(value),
            ci_low: Some(low),
            ci_high: Some(high),
            pairs: 5,
        });
        OpenLoopSummary {
            work: "upload".into(),
            offered: OpenLoop { rate: 100.0, spacing: Spacing::Constant, max_in_flight: 10, round_s: Some(1.0) },
            transports,
            ratios: ratios.into_iter().collect(),
        }
    }

    #[test]
    fn the_verdict_is_on_p99_with_its_interval_and_names_who_fell_short() {
        let both = vec![kept(TransportKind::Json, 4.0), kept(TransportKind::Grpc, 2.0)];
        // HTTP/JSON's p99 over gRPC's: 2x, gRPC ahead.
        let faster = summary(both.clone(), Some((2.0, 1.6, 2.5)));
        assert_eq!(
            faster.verdict(),
            "open loop, uploads at 100/s constant, at most 10 in flight: grpc p99 2.00 ms vs http-json 4.00 ms from intended start (pooled), grpc faster (http-json/grpc p99 2.00x, 95% CI 1.60x to 2.50x, 5 pairs)"
        );
        let unclear = summary(both.clone(), Some((1.2, 0.9, 1.6))).verdict();
        assert!(
            unclear.ends_with("no significant difference (http-json/grpc p99 1.20x, 95% CI 0.90x to 1.60x, 5 pairs)"),
            "{unclear}"
        );
        // 0.025x to 100x says nothing: withheld, as a throughput verdict's too wide to read.
        let wide = summary(both.clone(), Some((2.0, 0.025, 100.0))).verdict();
        assert!(
            wide.ends_with("no verdict yet (http-json/grpc p99 2.00x; the 95% interval is too wide to read: run more rounds, 5 pairs)"),
            "{wide}"
        );
        let mut short = both.clone();
        (short[0].started, short[0].dropped) = (95, 5);
        short[0].not_sustained = Some("5 of 100 arrivals dropped".into());
        let slower = summary(short, Some((0.5, 0.4, 0.6)));
        let said = slower.verdict();
        assert!(
            said.contains("grpc slower (http-json/grpc p99 0.50x")
                && said.ends_with(
                    "; http-json did not sustain the rate (the latencies are of the arrivals http-json started, not of those dropped)"
                ),
            "{said}"
        );
        // Its drops, not the offer, set its throughput.
        assert_eq!(
            slower.throughput_said(),
            "throughput, which the arrivals started set, not the offer (http-json started 95 of 100 arrivals): "
        );
        // Fewer starts a second than offered, none dropped: said as rates.
        let mut slow = both.clone();
        slow[1].achieved_rate = Some(90.0);
        slow[1].not_sustained = Some("started 90.0/s of 100/s offered".into());
        let slowed = summary(slow, Some((2.0, 1.6, 2.5)));
        assert!(slowed.verdict().ends_with("; grpc did not sustain the rate"), "{}", slowed.verdict());
        assert_eq!(
            slowed.throughput_said(),
            "throughput, which the arrivals started set, not the offer (grpc started 90.0/s of 100/s): "
        );
        // Late starts alone: the client's lag, and the offer still set the throughput.
        let mut late = both;
        late[1].late = 9;
        late[1].client_late = Some("the client started 9 of 100 over 1 ms late".into());
        let lagged = summary(late, Some((2.0, 1.6, 2.5)));
        assert!(
            lagged.verdict().ends_with("; the client started some of grpc's arrivals late"),
            "{}",
            lagged.verdict()
        );
        assert_eq!(lagged.throughput_said(), THROUGHPUT_SET);
        // Clearly ahead, but by how much the interval does not say.
        let ahead =
            summary(vec![kept(TransportKind::Json, 4.0), kept(TransportKind::Grpc, 2.0)], Some((4.0, 1.2, 12.0)));
        assert!(ahead.verdict().ends_with("grpc faster, by how much is unclear (http-json/grpc p99 4.00x; the 95% interval is too wide to read: run more rounds, 5 pairs)"), "{}", ahead.verdict());
        // Two pairs: no interval, and so no ratio to quote beside one.
        let mut two = summary(both_again(), None);
        two.ratios = vec![LatencyRatio {
            percentile: "p99".into(),
            json_over_grpc: None,
            ci_low: None,
            ci_high: None,
            pairs: 2,
        }];
        assert!(
            two.verdict().ends_with("(pooled), no verdict: 2 complete pairs, and 3 are needed for an interval"),
            "{}",
            two.verdict()
        );
        let alone = summary(vec![kept(TransportKind::Grpc, 2.0)], None).verdict();
        assert!(alone.ends_with(": grpc p99 2.00 ms from intended start"), "{alone}");
    }

    #[test]
    fn an_interval_is_readable_up_to_ends_two_and_a_half_times_apart_as_a_throughput_one_is() {
        let ratio = |low: f64, high: f64| LatencyRatio {
            percentile: "p99".into(),
            json_over_grpc: Some((low * high).sqrt()),
            ci_low: Some(low),
            ci_high: Some(high),
            pairs: 5,
        };
        // 0.8x to 2.0x: ends 2.5x apart, the most a readable interval spans.
        assert!(ratio(0.8, 2.0).readable());
        assert!(!ratio(0.8, 2.0 * 1.001).readable(), "2.002 / 0.8 is over 2.5x");
        // The old rule (at most 1.0 wide) would have read 4x to 4.9x as too wide, and 0.1x to 1.1x as readable.
        assert!(ratio(4.0, 4.9).readable());
        assert!(!ratio(0.1, 1.1).readable());
        assert!(!ratio(0.0, 1.0).readable(), "an end at zero is no interval to read");
    }

    #[test]
    fn a_report_of_the_old_orientation_reads_the_other_way_up() {
        let old = r#"{"percentile":"p99","grpc_over_json":0.5,"ci_low":0.4,"ci_high":0.8,"pairs":3}"#;
        let read: LatencyRatio = serde_json::from_str(old).unwrap();
        assert_eq!((read.json_over_grpc, read.ci_low, read.ci_high), (Some(2.0), Some(1.25), Some(2.5)));
        let new = serde_json::to_string(&read).unwrap();
        assert_eq!(serde_json::from_str::<LatencyRatio>(&new).unwrap(), read, "written and read back alike");
    }
}
