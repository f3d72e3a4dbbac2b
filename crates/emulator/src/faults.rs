//! Fault injection, spelled as googleapis' storage testbench spells it, so
//! that people who know the testbench can use the same instructions here.
//!
//! An instruction arrives in the `x-goog-emulator-instructions` header (JSON)
//! or metadata (gRPC), from a queue filled through the Rust API, or from a
//! standing rule (`--fault return-503:every=3`) that hits every Nth upload request.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

pub const INSTRUCTIONS_HEADER: &str = "x-goog-emulator-instructions";

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FaultAction {
    /// Answer with this HTTP status (mapped to a gRPC code on gRPC).
    Return(u16),
    /// Drop the connection without an answer.
    ResetConnection,
    /// Stop reading for a while, then carry on normally.
    Stall(Duration),
    /// Flip one byte as if the wire corrupted it (not a testbench spelling:
    /// ours, so that checksum failures can be shown).
    Corrupt,
}

/// What to do, and after how many bytes of the request's body (0 = at once).
/// Bytes received before the fault stay persisted, so a client can resume.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub action: FaultAction,
    pub after_bytes: u64,
    /// `pause-server-for-1s`: the stall holds every data request that
    /// arrives until it ends, as a server-wide pause (a GC, a failover) does.
    pub pauses_server: bool,
}

impl Fault {
    /// Parses `return-503`, `return-429-after-256K`, `return-reset-connection`,
    /// `return-broken-stream-after-1M`, `reset-connection-after-256K`,
    /// `stall-for-2s-after-256K`, `stall-for-500ms`, `pause-server-for-1s`.
    pub fn parse(text: &str) -> Result<Fault, String> {
        if let Some(duration) = text.strip_prefix("pause-server-for-") {
            let duration = units::parse_duration(duration)
                .map_err(|_| format!("'{text}' is not a fault instruction: use pause-server-for-1s"))?;
            return Ok(Fault { action: FaultAction::Stall(duration), after_bytes: 0, pauses_server: true });
        }
        let invalid = || {
            format!(
                "'{text}' is not a fault instruction: use return-503, return-503-after-256K, \
                 return-reset-connection, stall-for-2s-after-256K or pause-server-for-1s"
            )
        };
        let (head, after_bytes) = match text.split_once("-after-") {
            Some((head, size)) => (head, parse_fault_size(size).ok_or_else(invalid)?),
            None => (text, 0),
        };
        let action = if matches!(head, "return-reset-connection" | "reset-connection" | "return-broken-stream") {
            FaultAction::ResetConnection
        } else if let Some(code) = head.strip_prefix("return-") {
            let status: u16 = code.parse().map_err(|_| invalid())?;
            if !(400..=599).contains(&status) {
                return Err(invalid());
            }
            FaultAction::Return(status)
        } else if head == "corrupt" {
            FaultAction::Corrupt
        } else if let Some(duration) = head.strip_prefix("stall-for-") {
            FaultAction::Stall(units::parse_duration(duration).map_err(|_| invalid())?)
        } else {
            return Err(invalid());
        };
        Ok(Fault { action, after_bytes, pauses_server: false })
    }
}

/// Sizes in instructions are written `256K`, `1M`, `512` (binary units; a
/// bare number is bytes, as the testbench spells it).
fn parse_fault_size(text: &str) -> Option<u64> {
    text.parse::<u64>().ok().or_else(|| units::parse_size(text).ok())
}

/// The bytes with the first one flipped, as a bad wire would deliver them.
pub fn corrupted(bytes: &[u8]) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    if let Some(first) = bytes.first_mut() {
        *first ^= 0xff;
    }
    bytes
}

/// A standing rule: every `every`th upload request gets the fault.
struct Rule {
    fault: Fault,
    every: u64,
    seen: AtomicU64,
}

/// Parses `INSTRUCTION[:every=N]` as given to `--fault`.
pub fn parse_rule(text: &str) -> Result<(Fault, u64), String> {
    let (instruction, every) = match text.split_once(":every=") {
        Some((instruction, n)) => {
            let every: u64 = n
                .parse()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("'{text}': every= needs a whole number above 0"))?;
            (instruction, every)
        }
        None => (text, 1),
    };
    if let Some((instruction, rest)) = text.split_once([',', ';', ' ']).filter(|(_, rest)| rest.starts_with("every")) {
        return Err(format!("'{text}': write {instruction}:{rest}, with a colon before every="));
    }
    Ok((Fault::parse(instruction)?, every))
}

/// Where data requests (uploads and reads) get their faults from.
#[derive(Default)]
pub struct FaultPlan {
    queued: Mutex<VecDeque<Fault>>,
    rules: Mutex<Vec<Rule>>,
    /// Faults handed to data requests so far.
    pub injected: AtomicU64,
    /// A server pause in progress ends then.
    paused_until: Mutex<Option<std::time::Instant>>,
}

impl FaultPlan {
    /// The next data request (of either API) gets this fault.
    pub fn queue(&self, fault: Fault) {
        self.queued.lock().unwrap().push_back(fault);
    }

    pub fn add_rule(&self, fault: Fault, every: u64) {
        self.rules.lock().unwrap().push(Rule { fault, every, seen: AtomicU64::new(0) });
    }

    /// The fault for one request that carries data (an upload's or a read's):
    /// its own instruction header first, then the queue, then the standing rules.
    pub fn for_data_request(&self, header: Option<&str>) -> Result<Option<Fault>, String> {
        let fault = self.next_fault(header)?;
        if let Some(fault) = &fault {
            self.injected.fetch_add(1, Ordering::Relaxed);
            if let (true, FaultAction::Stall(pause)) = (fault.pauses_server, &fault.action) {
                *self.paused_until.lock().unwrap() = Some(std::time::Instant::now() + *pause);
            }
            return Ok(Some(fault.clone()));
        }
        // A request that arrives during a pause waits for its end.
        let now = std::time::Instant::now();
        Ok(self.paused_until.lock().unwrap().filter(|until| *until > now).map(|until| Fault {
            action: FaultAction::Stall(until - now),
            after_bytes: 0,
            pauses_server: false,
        }))
    }

    fn next_fault(&self, header: Option<&str>) -> Result<Option<Fault>, String> {
        if let Some(text) = header {
            return Fault::parse(text.trim()).map(Some);
        }
        if let Some(fault) = self.queued.lock().unwrap().pop_front() {
            return Ok(Some(fault));
        }
        let rules = self.rules.lock().unwrap();
        Ok(rules.iter().find_map(|rule| {
            let n = rule.seen.fetch_add(1, Ordering::Relaxed) + 1;
            (n % rule.every == 0).then(|| rule.fault.clone())
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn testbench_spellings_parse() {
        assert_eq!(
            Fault::parse("return-503"),
            Ok(Fault { action: FaultAction::Return(503), after_bytes: 0, pauses_server: false })
        );
        assert_eq!(
            Fault::parse("return-503-after-256K"),
            Ok(Fault { action: FaultAction::Return(503), after_bytes: 256 * 1024, pauses_server: false })
        );
        assert_eq!(
            Fault::parse("return-reset-connection"),
            Ok(Fault { action: FaultAction::ResetConnection, after_bytes: 0, pauses_server: false })
        );
        assert_eq!(
            Fault::parse("stall-for-2s-after-1M"),
            Ok(Fault {
                action: FaultAction::Stall(Duration::from_secs(2)),
                after_bytes: 1 << 20,
                pauses_server: false
            })
        );
        assert_eq!(Fault::parse("return-broken-stream-after-2M").unwrap().after_bytes, 2 << 20);
        assert_eq!(Fault::parse("corrupt-after-1K").unwrap().action, FaultAction::Corrupt);
    }

    #[test]
    fn bad_instructions_are_refused_with_examples() {
        for bad in ["return-200", "return-abc", "explode", "stall-for-x", "return-503-after-lots"] {
            assert!(Fault::parse(bad).unwrap_err().contains("return-503-after-256K"), "{bad}");
        }
    }

    #[test]
    fn rules_hit_every_nth_request_and_the_queue_comes_first() {
        let plan = FaultPlan::default();
        let (fault, every) = parse_rule("return-429:every=3").unwrap();
        assert_eq!(every, 3);
        plan.add_rule(fault, every);
        plan.queue(Fault::parse("return-500").unwrap());
        let hits: Vec<Option<u16>> = (0..7)
            .map(|_| match plan.for_data_request(None).unwrap() {
                Some(Fault { action: FaultAction::Return(code), .. }) => Some(code),
                _ => None,
            })
            .collect();
        assert_eq!(hits, [Some(500), None, None, Some(429), None, None, Some(429)]);
        assert!(parse_rule("return-429:every=0").is_err());
        let comma = parse_rule("pause-server-for-1s,every=200").unwrap_err();
        assert_eq!(
            comma,
            "'pause-server-for-1s,every=200': write pause-server-for-1s:every=200, with a colon before every="
        );
    }

    #[test]
    fn a_server_pause_holds_every_request_until_it_ends() {
        let plan = FaultPlan::default();
        let (fault, every) = parse_rule("pause-server-for-300ms:every=2").unwrap();
        plan.add_rule(fault, every);
        assert_eq!(plan.for_data_request(None).unwrap(), None, "the first request is not the second");
        let pause = plan.for_data_request(None).unwrap().unwrap();
        assert_eq!(pause.action, FaultAction::Stall(Duration::from_millis(300)));
        // The third request arrives during the pause: it waits out the rest of it.
        let during = plan.for_data_request(None).unwrap().unwrap();
        match during.action {
            FaultAction::Stall(rest) => {
                assert!(rest <= Duration::from_millis(300) && rest > Duration::from_millis(200))
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(plan.injected.load(Ordering::Relaxed), 1, "the pause is one fault");
        assert!(Fault::parse("pause-server-for-ever").is_err());
    }

    #[test]
    fn a_header_wins_over_the_plan() {
        let plan = FaultPlan::default();
        plan.queue(Fault::parse("return-500").unwrap());
        let fault = plan.for_data_request(Some("return-503")).unwrap().unwrap();
        assert_eq!(fault.action, FaultAction::Return(503));
        assert!(plan.for_data_request(Some("bogus")).is_err());
    }
}

/// Fires one request's fault once its body has reached the fault's offset.
pub struct Trigger {
    pending: Option<Fault>,
    seen: u64,
}

impl Trigger {
    pub fn new(fault: Option<Fault>) -> Self {
        Self { pending: fault, seen: 0 }
    }

    /// Of the next `len` bytes, how many to accept before the fault fires, and
    /// the fault if it fires within them. `split(0)` at the start of a request
    /// fires a fault that has no offset.
    pub fn split(&mut self, len: usize) -> (usize, Option<FaultAction>) {
        match &self.pending {
            // Corruption needs a byte to corrupt: it waits for data.
            Some(fault) if fault.action == FaultAction::Corrupt && len == 0 => (0, None),
            Some(fault) if fault.after_bytes <= self.seen + len as u64 => {
                let take = fault.after_bytes.saturating_sub(self.seen) as usize;
                self.seen += take as u64;
                (take, self.pending.take().map(|f| f.action))
            }
            _ => {
                self.seen += len as u64;
                (len, None)
            }
        }
    }
}

#[cfg(test)]
mod trigger_tests {
    use super::*;

    #[test]
    fn a_trigger_fires_once_at_its_offset() {
        let mut trigger = Trigger::new(Some(Fault::parse("return-503-after-10").unwrap()));
        assert_eq!(trigger.split(0), (0, None));
        assert_eq!(trigger.split(6), (6, None));
        assert_eq!(trigger.split(6), (4, Some(FaultAction::Return(503))));
        assert_eq!(trigger.split(6), (6, None), "fired already");
        let mut at_once = Trigger::new(Some(Fault::parse("return-503").unwrap()));
        assert_eq!(at_once.split(0), (0, Some(FaultAction::Return(503))));
    }
}
