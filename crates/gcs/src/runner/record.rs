//! What the runner keeps as items and rounds finish: each item into its
//! lane's tally, the kept set and the samples file; each round with its
//! tally, or among the cut-off rounds when no object of it finished.

use super::{Metered, Runner, Stop};
use crate::config::{TransportKind, Workload};
use crate::stats::{ObjectSample, Operation, RoundSample};
use engine::events::RunEvent;

impl Runner {
    pub(super) async fn record_item(&mut self, sample: ObjectSample) {
        self.emit(RunEvent::ItemDone((&sample).into())).await;
        self.any_failed |= !sample.ok;
        self.recordings.entry((sample.transport, sample.operation)).or_default().record(&sample);
        if let Some(file) = &mut self.samples_file {
            file.write(&sample);
        }
        self.kept.keep(sample);
    }

    /// Keeps a round (one cut off before any byte is not a round), and says
    /// whether the run stops here.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn record_round(
        &mut self,
        (kind, operation): (TransportKind, Operation),
        round: u32,
        metered: Metered,
        end_s: f64,
        bytes: u64,
        all_ok: bool,
        stop: Option<Stop>,
    ) -> Option<Stop> {
        // A round cut short ended when it did: its span lines up a fleet.
        let floor = if stop.is_none() { self.paced_floor_s(operation) } else { 0.0 };
        let end_s = end_s.max(metered.start_s + floor);
        let recording = self.recordings.remove(&(kind, operation)).unwrap_or_default();
        // The transport's own tally, whole: the round's added before it is packed.
        self.meter((kind, operation)).items.add(&recording);
        let items = recording.finish();
        let sample = RoundSample {
            transport: kind,
            operation,
            round,
            elapsed_s: end_s - metered.start_s,
            bytes,
            ok: all_ok && stop.is_none(),
            cpu_s: metered.cpu_s,
            host_cpu: Some(metered.host_cpu),
            wire_bytes: metered.wire_bytes,
            retransmitted_bytes: metered.retransmitted_bytes,
            span: self.anchor.span(metered.start_s, end_s),
            paced: metered.paced,
            items: Some(items),
            rounds_held: 1,
        };
        if sample.ok && metered.wire_lost {
            self.meter((kind, operation)).wire_lost = true;
        }
        if stop.is_none() || sample.bytes > 0 {
            // w1r3's uploads are the round's first part (its reads follow, if they finished).
            let first_part = self.config.workload == Workload::W1r3 && operation == Operation::Upload;
            let event = if first_part { RunEvent::PartDone } else { RunEvent::RoundDone };
            self.emit(event((&sample).into())).await;
            self.rounds.push(sample);
        } else {
            self.cut_off_rounds.push(sample);
        }
        if stop.is_none() && self.config.fail_fast && self.any_failed {
            return Some(Stop::FailFast);
        }
        stop
    }
}
