//! The end of a run's measuring: how it ended, and each transport's
//! summary per operation from the rounds and objects it recorded.

use super::{Runner, Stop};
use crate::config::{W1R3_READS, Workload};
use crate::report::RunOutcome;
use crate::stats::{self, Accounting, Operation, TransportSummary};
use std::net::SocketAddr;

impl Runner {
    pub(super) fn outcome(&self, stop: Option<Stop>) -> RunOutcome {
        // A failed upload is counted in its sample, not in the outcome.
        RunOutcome::ended(stop, false, self.setup_failed)
    }

    /// The connections each transport opened for the measured work, read
    /// before cleanup opens more (its deletes run 16 at once).
    pub(super) fn note_connections(&mut self) {
        for uploader in self.connected.uploaders.clone() {
            // The transport's connections: w1r3's uploads and reads share them.
            for &operation in Operation::of(self.config.workload) {
                self.meter((uploader.kind(), operation)).connections = uploader.connections();
            }
        }
    }

    /// A summary per operation and transport, each with its meter's
    /// connections, peers and wire bytes.
    pub(super) fn summaries(&mut self) -> Vec<TransportSummary> {
        let mut summaries = Vec::new();
        for &operation in Operation::of(self.config.workload) {
            let bytes_per_round = self.bytes_per_round(operation);
            for &kind in &self.config.transports {
                let uploader = self.connected.uploader(kind);
                let meter = self.meters.remove(&(kind, operation)).unwrap_or_default();
                let accounting = Accounting {
                    protocol: uploader.map(|u| u.protocol()).unwrap_or_default(),
                    connections: meter.connections,
                    peers: meter.peers.iter().map(SocketAddr::to_string).collect(),
                    items: Some(meter.items.finish()),
                };
                let mut summary = stats::summarize(
                    kind,
                    operation,
                    bytes_per_round,
                    &self.rounds.rounds,
                    &self.cut_off_rounds,
                    accounting,
                );
                if meter.wire_lost {
                    // A connection closed mid-round took its last bytes with it:
                    // what is left would read as too few, so no figure.
                    summary.wire_ratio = None;
                }
                summaries.push(summary);
            }
        }
        summaries
    }

    /// Bytes one complete round of one transport moves in `operation`.
    fn bytes_per_round(&self, operation: Operation) -> u64 {
        match (operation, self.config.workload) {
            (Operation::Upload, _) => self.config.object_size * u64::from(self.config.concurrency),
            (Operation::Download, Workload::W1r3) => {
                u64::from(W1R3_READS) * self.config.bytes_per_read() * u64::from(self.config.concurrency)
            }
            (Operation::Download, _) => self.read_sizes().iter().sum(),
        }
    }
}
