//! Calls sampled during the rounds and compared across the transports: the
//! same call number of the same round, answered over both, field by field.
//! A call that is not idempotent (a create-if-absent, an increment) sent
//! with the same key on both transports and in every round takes another
//! branch the second time, so the transports did different work; the
//! tally says how often, and the verdict carries it as a caution.

use std::collections::BTreeMap;

/// What a round's sampled calls came to against the other transport's
/// same round (kept on the round that completed the pair).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct SampledAnswers {
    /// Sampled calls answered over both transports and compared.
    pub compared: u64,
    /// Of those, the calls whose answers differed.
    pub differed: u64,
    /// Calls that differed, by the first field that did (as `--ignore-field` names it).
    pub fields: BTreeMap<String, u64>,
    /// The first difference, with both values.
    pub first: Option<String>,
}

impl SampledAnswers {
    pub fn absorb(&mut self, other: &SampledAnswers) {
        self.compared += other.compared;
        self.differed += other.differed;
        for (field, count) in &other.fields {
            *self.fields.entry(field.clone()).or_default() += count;
        }
        if self.first.is_none() {
            self.first.clone_from(&other.first);
        }
    }

    /// The rounds' tallies added up; `None` when no round compared any.
    pub fn total<'a>(tallies: impl Iterator<Item = &'a SampledAnswers>) -> Option<SampledAnswers> {
        let mut total = SampledAnswers::default();
        tallies.for_each(|t| total.absorb(t));
        (total.compared > 0).then_some(total)
    }

    /// `caution: the transports did different work: succeeded differed in
    /// 97, header.revision in 3 of 100 sampled calls ...`, when any sampled
    /// call differed: every field that did, the most first.
    pub fn caution(&self) -> Option<String> {
        if self.differed == 0 {
            return None;
        }
        let mut fields: Vec<(&String, &u64)> = self.fields.iter().collect();
        fields.sort_by(|a, b| b.1.cmp(a.1));
        let said: Vec<String> = fields
            .iter()
            .enumerate()
            .map(
                |(i, (field, count))| {
                    if i == 0 { format!("{field} differed in {count}") } else { format!("{field} in {count}") }
                },
            )
            .collect();
        Some(format!(
            "caution: the transports did different work: {} of {} sampled calls; give each transport and round keys of its own with {{{{transport}}}} and {{{{round}}}}, or leave out with --ignore-field a field that differs by nature",
            said.join(", "),
            self.compared
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(compared: u64, fields: &[(&str, u64)]) -> SampledAnswers {
        SampledAnswers {
            compared,
            differed: fields.iter().map(|(_, n)| n).sum(),
            fields: fields.iter().map(|(f, n)| (f.to_string(), *n)).collect(),
            first: fields.first().map(|(f, _)| format!("the answers differ at {f}")),
        }
    }

    #[test]
    fn the_caution_names_the_field_most_calls_differed_at_and_how_many_of_all() {
        // Two rounds: 34 + 33 compared; 30 and 3 differed at succeeded, 1 at header.revision.
        let rounds = [tally(34, &[("succeeded", 30)]), tally(33, &[("header.revision", 1), ("succeeded", 3)])];
        let total = SampledAnswers::total(rounds.iter()).unwrap();
        assert_eq!((total.compared, total.differed), (34 + 33, 30 + 3 + 1));
        let caution = total.caution().unwrap();
        assert!(
            caution.contains("did different work: succeeded differed in 33, header.revision in 1 of 67 sampled calls;"),
            "{caution}"
        );
        assert_eq!(
            total.first.as_deref(),
            Some("the answers differ at succeeded"),
            "the first round's first stays first"
        );
        assert_eq!(tally(10, &[]).caution(), None, "all alike: no caution");
        assert_eq!(SampledAnswers::total([tally(0, &[])].iter()), None, "nothing compared: no tally");
    }
}
