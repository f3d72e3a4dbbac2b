//! `--fail-if`: conditions on a finished report that set the exit code for
//! CI, as k6's thresholds do. `grpc.p99 > 50ms`, `ratio < 0.9`,
//! `errors > 0`: a metric (of one transport, or of each), an operator, a
//! limit. A metric the run did not measure crosses the threshold: a gate
//! must not pass on missing data.

use crate::plan::TransportKind;

/// What a threshold can ask of each row of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Per-item latency percentiles, in seconds.
    P50,
    P90,
    P99,
    /// The row's rate: MiB/s (GCS; the table's unit is not applied) or ops/s (etcd).
    Throughput,
    /// Items (uploads, reads, requests) that failed.
    Errors,
    /// Retries (GCS).
    Retries,
    /// gRPC's rate over HTTP/JSON's, of the same operation.
    Ratio,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Threshold {
    /// As the user wrote it, for the report.
    pub text: String,
    /// `None`: every transport's rows.
    pub transport: Option<TransportKind>,
    pub metric: Metric,
    op: Op,
    limit: f64,
}

/// One row's figure for a metric: the row's name (`grpc`, `grpc download`)
/// and the value, `None` when the run did not measure it.
pub type Figure = (String, Option<f64>);

const OPERATORS: [(&str, Op); 4] =
    [("<=", Op::LessOrEqual), (">=", Op::GreaterOrEqual), ("<", Op::Less), (">", Op::Greater)];

impl Threshold {
    /// `[TRANSPORT.]METRIC OP LIMIT`, e.g. `grpc.p99 > 50ms`; the sentence
    /// says what is wrong and what to write.
    pub fn parse(text: &str) -> Result<Threshold, String> {
        let wrong = |why: &str| {
            format!(
                "--fail-if '{text}': {why}; write [http-json.|grpc.]METRIC OP LIMIT with METRIC one of p50 p90 p99 throughput errors retries ratio and OP one of < <= > >=, like 'grpc.p99 > 50ms' or 'ratio < 0.9'"
            )
        };
        let (at, operator, op) = OPERATORS
            .iter()
            .filter_map(|(sign, op)| text.find(sign).map(|at| (at, *sign, *op)))
            .min_by_key(|(at, sign, _)| (*at, std::cmp::Reverse(sign.len())))
            .ok_or_else(|| wrong("no comparison"))?;
        let (left, right) = (text[..at].trim(), text[at + operator.len()..].trim());
        let (transport, name) = match left.split_once('.') {
            Some((transport, name)) => {
                let Some(kind) = TransportKind::named(transport) else {
                    return Err(wrong(&format!("'{transport}' is not a transport")));
                };
                (Some(kind), name)
            }
            None => (None, left),
        };
        let metric = match name {
            "p50" => Metric::P50,
            "p90" => Metric::P90,
            "p99" => Metric::P99,
            "throughput" => Metric::Throughput,
            "errors" => Metric::Errors,
            "retries" => Metric::Retries,
            "ratio" if transport.is_none() => Metric::Ratio,
            "ratio" => return Err(wrong("ratio is of the two transports, without one named")),
            _ => return Err(wrong(&format!("'{name}' is not a metric"))),
        };
        let limit = match metric {
            Metric::P50 | Metric::P90 | Metric::P99 => latency_s(right)
                .ok_or_else(|| wrong(&format!("'{right}' is not a duration (a latency needs its unit, like 50ms)")))?,
            _ => right.parse::<f64>().map_err(|_| wrong(&format!("'{right}' is not a number")))?,
        };
        Ok(Threshold { text: text.trim().to_string(), transport, metric, op, limit })
    }

    /// The rows that cross it, said one each (`grpc p99 61.2 ms`, `grpc
    /// download p99 not measured`); empty when every row is within it.
    /// No row at all (the transport did not run) crosses it too.
    pub fn crossed(&self, figures: &[Figure]) -> Vec<String> {
        if figures.is_empty() {
            return vec![format!("{}: nothing measured to check", self.text)];
        }
        figures
            .iter()
            .filter_map(|(row, value)| match value {
                None => Some(format!("{}: {row} not measured", self.text)),
                Some(value) if self.is_true(*value) => Some(format!("{}: {row} was {}", self.text, self.show(*value))),
                Some(_) => None,
            })
            .collect()
    }

    /// Crossing means the condition is true: `--fail-if 'errors > 0'`.
    fn is_true(&self, value: f64) -> bool {
        match self.op {
            Op::Less => value < self.limit,
            Op::LessOrEqual => value <= self.limit,
            Op::Greater => value > self.limit,
            Op::GreaterOrEqual => value >= self.limit,
        }
    }

    fn show(&self, value: f64) -> String {
        match self.metric {
            Metric::P50 | Metric::P90 | Metric::P99 => units::format_latency(value),
            Metric::Errors | Metric::Retries => format!("{value}"),
            _ => units::significant(value, 4),
        }
    }
}

/// `50ms`, `1.5s`, `800us` (or `µs`), in seconds.
fn latency_s(text: &str) -> Option<f64> {
    let micros = text.strip_suffix("us").or_else(|| text.strip_suffix("µs"));
    match micros {
        Some(number) => number.trim().parse::<f64>().ok().filter(|n| *n >= 0.0).map(|n| n / 1e6),
        None => units::parse_duration(text).ok().map(|d| d.as_secs_f64()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, value: Option<f64>) -> Figure {
        (name.to_string(), value)
    }

    #[test]
    fn thresholds_parse_with_a_transport_a_metric_and_a_unit() {
        let p99 = Threshold::parse("grpc.p99 > 50ms").unwrap();
        assert_eq!((p99.transport, p99.metric, p99.limit), (Some(TransportKind::Grpc), Metric::P99, 0.05));
        assert_eq!(Threshold::parse("p50 >= 800us").unwrap().limit, 0.0008);
        let ratio = Threshold::parse(" ratio < 0.9 ").unwrap();
        assert_eq!(
            (ratio.transport, ratio.metric, ratio.limit, ratio.text.as_str()),
            (None, Metric::Ratio, 0.9, "ratio < 0.9")
        );
        assert_eq!(Threshold::parse("errors>=1").unwrap().op, Op::GreaterOrEqual);
        for (bad, said) in [
            ("grpc.p99 50ms", "no comparison"),
            ("tcp.p99 > 1s", "'tcp' is not a transport"),
            ("grpc.p42 > 1s", "'p42' is not a metric"),
            ("p99 > 50", "'50' is not a duration (a latency needs its unit, like 50ms)"),
            ("grpc.ratio < 1", "ratio is of the two transports"),
            ("errors > none", "'none' is not a number"),
        ] {
            let error = Threshold::parse(bad).unwrap_err();
            assert!(error.starts_with(&format!("--fail-if '{bad}': {said}")), "{error}");
        }
    }

    #[test]
    fn a_row_crosses_when_the_condition_is_true_or_nothing_was_measured() {
        let p99 = Threshold::parse("p99 > 50ms").unwrap();
        assert!(
            p99.crossed(&[row("http-json", Some(0.049)), row("grpc", Some(0.050))]).is_empty(),
            "50 ms is not > 50 ms"
        );
        assert_eq!(p99.crossed(&[row("grpc", Some(0.0612))]), ["p99 > 50ms: grpc was 61.2 ms"]);
        assert_eq!(p99.crossed(&[row("grpc", None)]), ["p99 > 50ms: grpc not measured"]);
        assert_eq!(p99.crossed(&[]), ["p99 > 50ms: nothing measured to check"]);
        let errors = Threshold::parse("errors > 0").unwrap();
        assert_eq!(errors.crossed(&[row("http-json", Some(2.0))]), ["errors > 0: http-json was 2"]);
    }
}
