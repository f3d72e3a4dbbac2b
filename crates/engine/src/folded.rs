//! A long run's rounds in a bounded list: once a lane (a transport and a
//! part) holds `MOST_ROUNDS`, every lane's rounds are folded in twos, each
//! pair of consecutive rounds becoming one of twice the length, and later
//! rounds land in records as long. The pairs between transports stay
//! pairs (both fold alike), so the verdict reads fewer, longer rounds; a run
//! of an hour keeps as much as one of minutes.

use crate::compare::PairedRound;

/// Records a lane keeps before every lane is folded in twos.
pub const MOST_ROUNDS: usize = 128;

/// A round record's `rounds_held` unless folded (serde's default).
pub fn one() -> u32 {
    1
}

pub fn is_one(n: &u32) -> bool {
    *n == 1
}

/// Two records' optional parts as one: both added, or whichever there is.
pub fn joined<T>(mine: Option<T>, later: Option<T>, add: impl FnOnce(&mut T, T)) -> Option<T> {
    match (mine, later) {
        (Some(mut mine), Some(later)) => {
            add(&mut mine, later);
            Some(mine)
        }
        (mine, later) => mine.or(later),
    }
}

/// Said under a report's table when its rounds were folded: how many rounds,
/// kept as how many records; `None` when none was.
pub fn said(held: impl Iterator<Item = u32>) -> Option<String> {
    let (records, rounds, most) = held.fold((0, 0, 0), |(n, all, most), h| (n + 1, all + h, most.max(h)));
    (most > 1).then(|| {
        format!(
            "rounds folded: {rounds} rounds kept as {records} records of up to {most} consecutive rounds each (past {MOST_ROUNDS} a transport, rounds fold in twos); Runs and the verdict's pairs count records"
        )
    })
}

/// Rounds each transport ran (its first part's; in a fleet, on its
/// busiest host), whatever ended the run (`--iterations`, `--duration`,
/// `--until-stable`, a cancel): what a run's label says as `x3`.
pub fn rounds_run<'a, R: Folds + crate::fleet::FleetRound + 'a>(records: impl IntoIterator<Item = &'a R>) -> u32 {
    let records: Vec<&R> = records.into_iter().collect();
    // A read-only run's rounds are all of its second part, reads.
    let first = records.iter().map(|r| r.part()).min();
    let mut lanes = std::collections::BTreeMap::new();
    for record in records.into_iter().filter(|r| Some(r.part()) == first) {
        *lanes.entry((record.span().host.as_str(), record.transport())).or_default() += record.rounds_held();
    }
    lanes.into_values().max().unwrap_or(0)
}

/// A round that a later round of its lane can be added to.
pub trait Folds: PairedRound {
    /// A later round of the same lane, added to this one.
    fn absorb(&mut self, later: Self);
    /// Its place among the records (a raw round's, shifted by the folding).
    fn set_index(&mut self, index: u32);
    /// Consecutive rounds it holds (1 until folded).
    fn rounds_held(&self) -> u32;
    /// Made smaller as it becomes part of a folded record (coarser
    /// histograms), so that records stop growing with the rounds they hold.
    fn coarsen(&mut self) {}
}

#[derive(Clone, Debug)]
pub struct Folded<R> {
    pub rounds: Vec<R>,
    /// Each record holds up to 2^level consecutive rounds.
    pub level: u32,
}

impl<R> Default for Folded<R> {
    fn default() -> Self {
        Folded { rounds: Vec::new(), level: 0 }
    }
}

impl<R: Folds> Folded<R> {
    /// Keeps a round, in a record of its own or added to its lane's last.
    pub fn push(&mut self, round: R) {
        let index = round.index() >> self.level;
        self.place(round, index);
        let lane = |r: &R| (r.transport(), r.part());
        let last = self.rounds.last().map(lane);
        if self.rounds.iter().filter(|r| Some(lane(r)) == last).count() > MOST_ROUNDS {
            self.fold();
        }
    }

    fn place(&mut self, mut round: R, index: u32) {
        round.set_index(index);
        if self.level > 0 {
            round.coarsen();
        }
        let (transport, part) = (round.transport(), round.part());
        let last = self.rounds.iter_mut().rev().find(|r| r.transport() == transport && r.part() == part);
        match last {
            Some(last) if last.index() == index => last.absorb(round),
            _ => self.rounds.push(round),
        }
    }

    /// Every lane's records in twos: records 2k and 2k+1 become record k.
    fn fold(&mut self) {
        self.level += 1;
        for round in std::mem::take(&mut self.rounds) {
            let index = round.index() >> 1;
            self.place(round, index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::TransportKind::{self, Grpc, Json};
    use crate::timeline::Span;

    #[derive(Debug, PartialEq)]
    struct Round {
        transport: TransportKind,
        index: u32,
        seconds: f64,
        bytes: f64,
        held: u32,
        /// A merged report's rounds: the host's, and the part (a write, then reads).
        span: Span,
        part: u8,
    }

    impl PairedRound for Round {
        fn transport(&self) -> TransportKind {
            self.transport
        }
        fn index(&self) -> u32 {
            self.index
        }
        fn part(&self) -> u8 {
            self.part
        }
        fn rate(&self) -> Option<f64> {
            Some(self.bytes / self.seconds)
        }
    }

    impl crate::fleet::FleetRound for Round {
        fn span(&self) -> &Span {
            &self.span
        }
        fn amount(&self) -> f64 {
            self.bytes
        }
    }

    impl Folds for Round {
        fn absorb(&mut self, later: Self) {
            (self.seconds, self.bytes, self.held) =
                (self.seconds + later.seconds, self.bytes + later.bytes, self.held + later.held);
        }
        fn set_index(&mut self, index: u32) {
            self.index = index;
        }
        fn rounds_held(&self) -> u32 {
            self.held
        }
    }

    #[test]
    fn a_long_run_keeps_at_most_most_rounds_a_lane_and_loses_no_round() {
        let mut folded = Folded::default();
        let rounds = 10 * MOST_ROUNDS as u32 + 3;
        for index in 0..rounds {
            for transport in [Json, Grpc] {
                // JSON rounds of 1 s, gRPC of 0.5 s (and every third of either
                // twice as long), each moving 100 bytes.
                let base = if transport == Json { 1.0 } else { 0.5 };
                let seconds = if index % 3 == 0 { 2.0 * base } else { base };
                folded.push(Round { transport, index, seconds, bytes: 100.0, held: 1, span: Span::default(), part: 0 });
            }
        }
        // Ten times MOST_ROUNDS and 3: the lanes fold four times (level 4: 16 rounds a record).
        assert_eq!(folded.level, 4);
        let json: Vec<&Round> = folded.rounds.iter().filter(|r| r.transport == Json).collect();
        assert_eq!(json.len(), (rounds as usize).div_ceil(16), "every 16 rounds one record, the last partly full");
        assert!(json.len() <= MOST_ROUNDS);
        assert_eq!(json.iter().map(|r| r.held).sum::<u32>(), rounds, "every round in one record");
        // Rounds 0-15: 0, 3, 6, 9, 12 and 15 twice as long (6 of them).
        let first = Round {
            transport: Json,
            index: 0,
            seconds: 16.0 + 6.0,
            bytes: 1600.0,
            held: 16,
            span: Span::default(),
            part: 0,
        };
        assert_eq!(json[0], &first);
        assert_eq!(json.last().unwrap().held, rounds % 16);
        let grpc: Vec<&Round> = folded.rounds.iter().filter(|r| r.transport == Grpc).collect();
        let indices = |rs: &[&Round]| rs.iter().map(|r| r.index).collect::<Vec<_>>();
        assert_eq!(indices(&json), (0..json.len() as u32).collect::<Vec<_>>(), "records numbered in order");
        assert_eq!(indices(&json), indices(&grpc), "the transports' records pair index by index");
        assert_eq!(grpc[0].rate(), Some(1600.0 / 11.0), "a folded record's rate is its rounds': 1,600 bytes in 11 s");
        let seconds: f64 = grpc.iter().map(|r| r.seconds).sum();
        let planned: f64 = (0..rounds).map(|i| if i % 3 == 0 { 1.0 } else { 0.5 }).sum();
        assert_eq!(seconds, planned, "no round's time lost or counted twice");
    }

    #[test]
    fn a_label_counts_the_busiest_hosts_rounds_of_the_first_part() {
        let record = |host: &str, transport, part, held| Round {
            transport,
            index: 0,
            seconds: 1.0,
            bytes: 0.0,
            held,
            span: Span { host: host.into(), ..Span::default() },
            part,
        };
        // Host a, the busiest, ran 3 rounds of JSON (folded into records of
        // 2 and 1) and 5 of gRPC (4 + 1); host b ran 4 of JSON and 3 of
        // gRPC, then 40 reads.
        let fleet = [
            record("a", Json, 0, 2),
            record("a", Json, 0, 1),
            record("a", Grpc, 0, 4),
            record("a", Grpc, 0, 1),
            record("b", Json, 0, 4),
            record("b", Grpc, 0, 3),
            record("b", Json, 1, 40),
        ];
        assert_eq!(rounds_run(&fleet), 4 + 1, "host a's gRPC rounds: its writes, not b's reads");
        assert_eq!(rounds_run(&fleet[4..6]), 4, "one host: its busier transport's rounds");
        assert_eq!(rounds_run(&fleet[..2]), 2 + 1, "its rounds, not its records");
        // A read-only run has only its second part: its rounds are the reads.
        assert_eq!(rounds_run(&[record("a", Grpc, 1, 7)]), 7);
        assert_eq!(rounds_run::<Round>(&[]), 0);
    }
}
