//! Every call of a run's timed rounds, streamed to `--samples FILE` as its
//! round goes: each client gathers a few hundred records and hands them to
//! the file together, so the lock is taken once per batch, never per call.

use crate::outlet::Outlet;
use crate::plan::TransportKind;
use crate::samples::{Record, SamplesFile};
use serde::Serialize;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Records a client gathers before it writes them.
const GATHERED: usize = 256;

/// One call as it was sent and answered.
#[derive(Clone, Debug, Serialize)]
pub struct CallSample {
    pub transport: &'static str,
    /// Counted from 1, as the report's rounds are.
    pub round: u32,
    pub client: u32,
    /// The client's nth call of the round, from 0.
    pub call: u64,
    /// When it started (open loop: its intended start), from the start of the timed rounds.
    pub start_s: f64,
    /// Open loop: from its intended start, as the report counts it.
    pub latency_s: f64,
    /// Open loop: from when it was actually sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_s: Option<f64>,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Record for CallSample {
    const NOUN: &'static str = "call";
    const CSV_HEADER: &'static str = "transport,round,client,call,start_s,latency_s,service_s,ok,error\n";

    fn csv_row(&self) -> String {
        format!(
            "{},{},{},{},{:.6},{:.6},{},{},{}\n",
            self.transport,
            self.round,
            self.client,
            self.call,
            self.start_s,
            self.latency_s,
            self.service_s.map(|s| format!("{s:.6}")).unwrap_or_default(),
            self.ok,
            crate::report::csv_field(self.error.as_deref().unwrap_or("")),
        )
    }
}

/// The run's samples file, shared by its rounds.
#[derive(Clone, Debug)]
pub struct CallLog {
    file: Arc<Mutex<SamplesFile>>,
}

impl CallLog {
    pub fn create(path: &Path) -> Result<CallLog, String> {
        let file = SamplesFile::create::<CallSample>(path)?;
        Ok(CallLog { file: Arc::new(Mutex::new(file)) })
    }

    /// The log the outlet's `--samples` asks for; one that cannot be
    /// written is said, and the run goes on without it.
    pub async fn opened(outlet: &Outlet) -> Option<CallLog> {
        match CallLog::create(outlet.samples.as_deref()?) {
            Ok(log) => Some(log),
            Err(why) => {
                outlet.say(why).await;
                None
            }
        }
    }

    /// What round `round` of `transport` writes its calls through; `since`
    /// is the start of the timed rounds, from which `start_s` counts.
    pub fn round(&self, transport: TransportKind, round: u32, since: Instant) -> RoundLog {
        RoundLog { file: self.file.clone(), since, transport: transport.name(), round: round + 1 }
    }

    /// Flushes it; says what it holds.
    pub fn finish(&self) -> String {
        self.file.lock().unwrap_or_else(|e| e.into_inner()).finish()
    }
}

/// A round's share of the log.
#[derive(Clone, Debug)]
pub struct RoundLog {
    file: Arc<Mutex<SamplesFile>>,
    since: Instant,
    transport: &'static str,
    round: u32,
}

impl RoundLog {
    /// A client's gatherer.
    pub fn gatherer(&self) -> Gathered {
        Gathered { round: self.clone(), records: Vec::with_capacity(GATHERED) }
    }
}

/// A client's records not yet written; written when full and when dropped.
pub struct Gathered {
    round: RoundLog,
    records: Vec<CallSample>,
}

/// A call's times: when it started (intended, open loop), its latency, and
/// open loop's service time.
pub struct Timed {
    pub started: Instant,
    pub latency: Duration,
    pub service: Option<Duration>,
}

impl Gathered {
    /// Client `client`'s call `call`, and what it came to.
    pub fn add(&mut self, (client, call): (u32, u64), timed: Timed, error: Option<String>) {
        let start_s = timed.started.saturating_duration_since(self.round.since).as_secs_f64();
        self.records.push(CallSample {
            transport: self.round.transport,
            round: self.round.round,
            client,
            call,
            start_s,
            latency_s: timed.latency.as_secs_f64(),
            service_s: timed.service.map(|s| s.as_secs_f64()),
            ok: error.is_none(),
            error,
        });
        if self.records.len() >= GATHERED {
            self.write();
        }
    }

    fn write(&mut self) {
        let mut file = self.round.file.lock().unwrap_or_else(|e| e.into_inner());
        for record in self.records.drain(..) {
            file.write(&record);
        }
    }
}

impl Drop for Gathered {
    fn drop(&mut self) {
        if !self.records.is_empty() {
            self.write();
        }
    }
}
