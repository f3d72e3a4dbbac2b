//! The verdict of each operation, and the caution said beside it when the
//! two transports did not meet the same trouble (one retried or resumed far
//! more): then the rates compare recoveries as much as transports. (The
//! report adds its other cautions: `report::appends`, `report::client_cost`.)

use super::{Operation, RoundSample, TransportSummary};

/// The verdict of one operation of a workload (w1r3 has two).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Verdict {
    pub operation: Operation,
    #[serde(flatten)]
    pub comparison: engine::compare::Comparison,
    /// Said beside the verdict, cautions joined by "; ": when the transports'
    /// retries and resumes differ markedly (`recovery_caveat`), when only
    /// gRPC's appends were read back, when one client's CPU cost may have
    /// decided it (`engine::cost_caution`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub caveat: Option<String>,
}

impl Verdict {
    pub fn new(operation: Operation, comparison: engine::compare::Comparison, summaries: &[&TransportSummary]) -> Self {
        Verdict { operation, comparison, caveat: recovery_caveat(summaries) }
    }

    /// Adds a caution after any said before it.
    pub fn add_caveat(&mut self, caution: &str) {
        self.caveat = Some(match self.caveat.take() {
            Some(other) => format!("{other}; {caution}"),
            None => caution.to_string(),
        });
    }
}

/// Compares the two transports of each operation, in the summaries' order;
/// empty unless two transports were run. A winner is named only from
/// `MIN_PAIRS` or more complete pairs of rounds of that operation.
pub fn compare(summaries: &[TransportSummary], rounds: &[RoundSample]) -> Vec<Verdict> {
    let mut operations: Vec<Operation> = summaries.iter().map(|s| s.operation).collect();
    operations.dedup();
    operations
        .into_iter()
        .filter_map(|operation| {
            let pair: Vec<&TransportSummary> = summaries.iter().filter(|s| s.operation == operation).collect();
            let [a, b] = pair[..] else {
                return None;
            };
            let rounds: Vec<&RoundSample> = rounds.iter().filter(|r| r.operation == operation).collect();
            let comparison = engine::compare::compare_rates(
                [(a.transport, a.throughput_mib_s), (b.transport, b.throughput_mib_s)],
                &rounds,
            )?;
            Some(Verdict::new(operation, comparison, &pair))
        })
        .collect()
}

/// When one transport needed at least 2 recoveries (retries and resumes)
/// and more than twice the other's plus one, the caution that says so, with
/// both counts: a faulty server or path met one transport more than the other.
pub fn recovery_caveat(summaries: &[&TransportSummary]) -> Option<String> {
    let [a, b] = summaries else { return None };
    let recoveries = |t: &TransportSummary| t.retries + t.resumes;
    let (high, low) = (recoveries(a).max(recoveries(b)), recoveries(a).min(recoveries(b)));
    if high < 2 || high <= 2 * low + 1 {
        return None;
    }
    let said = |t: &TransportSummary| {
        let plural = engine::report::plural;
        format!(
            "{} {} and {}",
            t.transport.name(),
            plural(t.retries as usize, "retry"),
            plural(t.resumes as usize, "resume")
        )
    };
    Some(format!(
        "caution: the transports did not meet the same trouble ({}; {}): the verdict weighs their recoveries as much as the transports",
        said(a),
        said(b)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TransportKind;

    fn with(transport: TransportKind, retries: u64, resumes: u64) -> TransportSummary {
        let rounds = [];
        let mut summary =
            super::super::summarize(transport, Operation::Upload, 1, &rounds, &[], super::super::Accounting::default());
        summary.retries = retries;
        summary.resumes = resumes;
        summary
    }

    #[test]
    fn a_caution_only_where_one_transport_recovered_far_more_often() {
        use TransportKind::{Grpc, Json};
        let caveat = |a: (u64, u64), b: (u64, u64)| recovery_caveat(&[&with(Json, a.0, a.1), &with(Grpc, b.0, b.1)]);
        assert_eq!(caveat((0, 0), (1, 0)), None, "one retry is not a pattern");
        assert_eq!(caveat((3, 0), (2, 0)), None, "alike");
        assert_eq!(caveat((2, 1), (1, 0)), None, "3 against 1 is not more than twice plus one");
        assert_eq!(
            caveat((12, 0), (2, 0)).as_deref(),
            Some(
                "caution: the transports did not meet the same trouble (http-json 12 retries and 0 resumes; grpc 2 retries and 0 resumes): the verdict weighs their recoveries as much as the transports"
            )
        );
        assert!(caveat((0, 0), (1, 1)).is_some(), "2 against none");
    }
}
