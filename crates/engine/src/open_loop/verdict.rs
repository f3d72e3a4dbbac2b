//! An open-loop run's verdict in one sentence. The offered rate sets the
//! throughput (each transport is sent the same arrivals), so what tells
//! the transports apart is latency at that load: the verdict is on p99
//! from intended start, with the interval of its paired rounds' ratio.

use super::{LatencyRatio, OpenLoopSummary};

/// What an open-loop run's throughput verdict begins with: the offer set it.
pub const THROUGHPUT_SET: &str = "throughput, which the offered rate sets: ";
use crate::plan::TransportKind;

impl OpenLoopSummary {
    /// `open loop, uploads at 100/s constant, ...: grpc p99 3.34 ms vs
    /// http-json 3.39 ms from intended start, no significant difference
    /// (0.99x, 95% CI 0.90x to 1.08x, 6 pairs)`, and any transport that
    /// did not sustain the rate.
    pub fn verdict(&self) -> String {
        let p99 = |kind: TransportKind| self.transports.iter().find(|t| t.transport == kind).and_then(|t| t.p99_ms);
        let ratio = self.ratios.iter().find(|r| r.percentile == "p99");
        let body = match (ratio, p99(TransportKind::Grpc), p99(TransportKind::Json)) {
            (Some(ratio), Some(grpc), Some(json)) => {
                format!("grpc p99 {} vs http-json {} from intended start, {}", said(grpc), said(json), compared(ratio))
            }
            _ => match self.transports.iter().find(|t| t.p99_ms.is_some()) {
                Some(one) if self.transports.len() == 1 => {
                    format!("{} p99 {} from intended start", one.transport.name(), said(one.p99_ms.unwrap_or_default()))
                }
                _ => "no latency comparison: no complete round of both transports".into(),
            },
        };
        let short: Vec<&str> =
            self.transports.iter().filter(|t| t.not_sustained.is_some()).map(|t| t.transport.name()).collect();
        let short = match short.as_slice() {
            [] => String::new(),
            names => format!("; {} did not sustain the rate", names.join(" and ")),
        };
        format!("open loop, {}s at {}: {body}{short}", self.work, self.offered.said())
    }
}

/// `3.39 ms`, `913 µs`: as the table says a latency.
fn said(ms: f64) -> String {
    units::format_latency(ms / 1e3)
}

impl LatencyRatio {
    /// Its interval is narrow enough to quote: at most 1.0x wide, as a
    /// throughput verdict withholds one over 100 points wide.
    pub fn readable(&self) -> bool {
        matches!((self.ci_low, self.ci_high), (Some(low), Some(high)) if high - low <= 1.0)
    }
}

/// Which way the paired rounds point, with the ratio and its interval.
fn compared(ratio: &LatencyRatio) -> String {
    let Some(value) = ratio.grpc_over_json else { return "no ratio".into() };
    let pairs = crate::report::plural(ratio.pairs, "pair");
    match (ratio.ci_low, ratio.ci_high) {
        (Some(low), Some(high)) => {
            let way = if low > 1.0 {
                "grpc slower"
            } else if high < 1.0 {
                "grpc faster"
            } else {
                "no significant difference"
            };
            match ratio.readable() {
                true => format!("{way} ({value:.2}x, 95% CI {low:.2}x to {high:.2}x, {pairs})"),
                false => format!("{way} ({value:.2}x; the 95% interval is too wide to read: run more rounds, {pairs})"),
            }
        }
        _ => format!("{value:.2}x, no interval ({pairs}, 3 are needed)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::open_loop::TransportLatency;
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
        }
    }

    fn summary(transports: Vec<TransportLatency>, ratio: Option<(f64, f64, f64)>) -> OpenLoopSummary {
        let ratios = ratio.map(|(value, low, high)| LatencyRatio {
            percentile: "p99".into(),
            grpc_over_json: Some(value),
            ci_low: Some(low),
            ci_high: Some(high),
            pairs: 5,
        });
        OpenLoopSummary {
            work: "upload".into(),
            offered: OpenLoop { rate: 100.0, spacing: Spacing::Constant, max_in_flight: 10 },
            transports,
            ratios: ratios.into_iter().collect(),
        }
    }

    #[test]
    fn the_verdict_is_on_p99_with_its_interval_and_names_who_fell_short() {
        let both = vec![kept(TransportKind::Json, 4.0), kept(TransportKind::Grpc, 2.0)];
        let faster = summary(both.clone(), Some((0.5, 0.4, 0.6)));
        assert_eq!(
            faster.verdict(),
            "open loop, uploads at 100/s constant, at most 10 in flight: grpc p99 2.00 ms vs http-json 4.00 ms from intended start, grpc faster (0.50x, 95% CI 0.40x to 0.60x, 5 pairs)"
        );
        let unclear = summary(both.clone(), Some((0.5, 0.2, 1.1))).verdict();
        assert!(unclear.ends_with("no significant difference (0.50x, 95% CI 0.20x to 1.10x, 5 pairs)"), "{unclear}");
        // 0.01x to 40x says nothing: withheld, as a throughput verdict's too wide to read.
        let wide = summary(both.clone(), Some((0.5, 0.01, 40.0))).verdict();
        assert!(
            wide.ends_with(
                "no significant difference (0.50x; the 95% interval is too wide to read: run more rounds, 5 pairs)"
            ),
            "{wide}"
        );
        let mut short = both;
        short[0].not_sustained = Some("dropped 5 of 100".into());
        let slower = summary(short, Some((2.0, 1.5, 2.5))).verdict();
        assert!(
            slower.contains("grpc slower (2.00x") && slower.ends_with("; http-json did not sustain the rate"),
            "{slower}"
        );
        let alone = summary(vec![kept(TransportKind::Grpc, 2.0)], None).verdict();
        assert!(alone.ends_with(": grpc p99 2.00 ms from intended start"), "{alone}");
    }
}
