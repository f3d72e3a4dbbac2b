//! Progress of a headless run of any target on stderr, from its run
//! events: a bar per transport on a terminal, plain lines otherwise (so logs
//! of CI jobs stay readable). The target says how its rounds are worded
//! (`RoundWords`).

use engine::events::{Amount, Phase, RoundDone, RoundWords, RunEvent};
use engine::plan::TransportKind;
use std::collections::BTreeMap;
use std::io::Write;
use tokio::sync::mpsc;
use units::{RateUnit, format_seconds, format_size, mib_per_second};

const BAR_WIDTH: usize = 30;

#[derive(Default)]
struct Lane {
    rounds_done: u32,
    round_fraction: f64,
    last_rate: Option<f64>,
}

/// Prints `events` until the run drops their sender.
pub async fn print(mut events: mpsc::Receiver<RunEvent>, terminal: bool, words: RoundWords) {
    let unit = words.unit;
    let mut printer =
        Printer { terminal, lanes: BTreeMap::new(), rounds: None, drawn: 0, finished: BTreeMap::new(), words, unit };
    while let Some(event) = events.recv().await {
        printer.show(event);
    }
    // The run is over (its runner dropped the sender): the bars go before
    // the report is printed.
    if terminal {
        clear(&mut std::io::stderr().lock(), printer.drawn);
    }
}

struct Printer {
    terminal: bool,
    lanes: BTreeMap<TransportKind, Lane>,
    rounds: Option<u32>,
    /// Bar lines on screen below the last message.
    drawn: usize,
    /// Items finished in each transport's current round.
    finished: BTreeMap<TransportKind, u32>,
    words: RoundWords,
    unit: RateUnit,
}

impl Printer {
    fn show(&mut self, event: RunEvent) {
        match event {
            RunEvent::Started { target, rounds_per_transport, .. } => {
                self.rounds = rounds_per_transport;
                self.say(&target);
            }
            RunEvent::Phase(Phase::Warmup) => self.say("warming up (not timed)"),
            RunEvent::Phase(Phase::CleaningUp) => self.say("cleaning up"),
            RunEvent::RoundStarted { transport, round: Some(_), .. } => {
                self.lanes.entry(transport).or_default().round_fraction = 0.0;
            }
            RunEvent::Progress { transport, round: Some(_), done, total, .. } if self.terminal => {
                self.lanes.entry(transport).or_default().round_fraction = done as f64 / total.max(1) as f64;
                self.redraw(None);
            }
            RunEvent::RoundDone(ref round) | RunEvent::PartDone(ref round) => {
                let first_part = matches!(event, RunEvent::PartDone(_));
                let line = self.round_line(round, first_part);
                self.say(&line);
            }
            RunEvent::ItemDone(sample) if sample.ok => {
                *self.finished.entry(sample.transport).or_default() += 1;
            }
            RunEvent::Note(note) => self.say(&note),
            RunEvent::CleanupDone { deleted, left } => {
                self.say(&format!("cleanup: deleted {deleted}, left {}", left.len()))
            }
            _ => {}
        }
    }

    /// `grpc round 2/3: 64 MiB in 1.20 s (53.3 MiB/s)`, or what failed.
    fn round_line(&mut self, round: &RoundDone, first_part: bool) -> String {
        let lane = self.lanes.entry(round.transport).or_default();
        lane.rounds_done += u32::from(!first_part || !round.ok);
        lane.round_fraction = 0.0;
        // A round of two parts says which part a line is.
        let w = &self.words;
        let (part, items, noun) = match w.parts {
            Some([first, second]) => {
                let part = if first_part { first } else { second };
                (part.name, part.items, part.noun)
            }
            None => ("", w.items, w.noun),
        };
        let name = format!(
            "{} round {}{}{part}",
            round.transport.name(),
            round.round + 1,
            self.rounds.map(|n| format!("/{n}")).unwrap_or_default()
        );
        let counted = u64::from(self.finished.remove(&round.transport).unwrap_or(0));
        // Targets of calls send no event per call: the round's own count of
        // answered calls says how many finished.
        let finished = match w.amount {
            Amount::Count(_) => round.done,
            Amount::Bytes => counted,
        };
        if !round.ok {
            // A failed round is not timed: no rate that could be read as one.
            return format!("{name} failed: {finished} of {} finished", engine::report::plural(items as usize, noun));
        }
        let (amount, rate) = match w.amount {
            Amount::Bytes => (format_size(round.done), mib_per_second(round.done, round.elapsed_s)),
            Amount::Count(what) => (format!("{} {what}", round.done), round.done as f64 / round.elapsed_s),
        };
        lane.last_rate = Some(rate);
        format!("{name}: {amount} in {} ({})", format_seconds(round.elapsed_s), self.unit.format(rate))
    }

    fn say(&mut self, line: &str) {
        self.redraw(Some(line));
    }

    /// Prints a message line (if any) above the bars, then the bars again.
    fn redraw(&mut self, line: Option<&str>) {
        let mut out = std::io::stderr().lock();
        if !self.terminal {
            if let Some(line) = line {
                let _ = writeln!(out, "{line}");
            }
            return;
        }
        clear(&mut out, self.drawn);
        if let Some(line) = line {
            let _ = writeln!(out, "{line}");
        }
        self.drawn = draw(&mut out, &self.lanes, self.rounds, self.unit);
        let _ = out.flush();
    }
}

fn clear(out: &mut impl Write, lines: usize) {
    for _ in 0..lines {
        let _ = write!(out, "\x1b[1A\x1b[2K");
    }
}

/// With a round count, a bar of the whole run; with `--duration`, of the current round.
fn draw(out: &mut impl Write, lanes: &BTreeMap<TransportKind, Lane>, rounds: Option<u32>, unit: RateUnit) -> usize {
    for (kind, lane) in lanes {
        let done = match rounds {
            Some(rounds) => (lane.rounds_done as f64 + lane.round_fraction) / rounds.max(1) as f64,
            None => lane.round_fraction,
        };
        let filled = ((done * BAR_WIDTH as f64) as usize).min(BAR_WIDTH);
        let rate = lane.last_rate.map(|r| unit.format(r)).unwrap_or_default();
        let _ = writeln!(
            out,
            "{:<9} [{}{}] {}{} {}",
            kind.name(),
            "#".repeat(filled),
            "-".repeat(BAR_WIDTH - filled),
            lane.rounds_done,
            rounds.map(|n| format!("/{n}")).unwrap_or_else(|| " rounds".into()),
            rate
        );
    }
    lanes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_round_of_calls_says_the_calls_answered() {
        let words =
            RoundWords { unit: RateUnit::Calls, amount: Amount::Count("calls"), items: 100, noun: "call", parts: None };
        let mut printer = Printer {
            terminal: false,
            lanes: BTreeMap::new(),
            rounds: Some(3),
            drawn: 0,
            finished: BTreeMap::new(),
            words,
            unit: RateUnit::Calls,
        };
        // 20 of the round's 100 calls were answered before its clients stopped.
        let round = RoundDone { transport: TransportKind::Json, round: 0, done: 20, elapsed_s: 0.5, ok: false };
        assert_eq!(printer.round_line(&round, false), "http-json round 1/3 failed: 20 of 100 calls finished");
    }
}
