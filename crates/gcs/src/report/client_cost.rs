//! The caution on the clients' cost beside each verdict
//! (`engine::cost_caution`), in the figures the table shows: client CPU per
//! GiB, or per object for small objects.

use super::shown::Shown;
use crate::stats::{TransportSummary, Verdict};
use engine::cost_caution::{ClientCost, Hosts, cost_caution};

/// Adds to each verdict its caution when one transport's client took
/// markedly more CPU for the same work with little CPU to spare. `lanes`:
/// the cores its concurrency can use (objects in flight, at most the CPUs).
pub fn mark_client_cost(
    shown: Shown,
    transports: &[TransportSummary],
    (hosts, lanes): (Hosts, usize),
    verdicts: &mut [Verdict],
) {
    let per = if shown.small { "object" } else { "GiB" };
    for verdict in verdicts {
        let costs: Vec<ClientCost> = transports
            .iter()
            .filter(|t| t.operation == verdict.operation)
            .filter_map(|t| client_cost(shown, t, lanes))
            .collect();
        if let [a, b] = &costs[..]
            && let Some(caution) = cost_caution(a, b, per, hosts)
        {
            verdict.add_caveat(&caution);
        }
    }
}

/// A transport's client CPU per GiB (or per object), and how busy its
/// client and the CPU available to it were in its rounds.
fn client_cost(shown: Shown, t: &TransportSummary, lanes: usize) -> Option<ClientCost> {
    let (cpu, said) = match shown.small {
        true => t.cpu_us_per_object.map(|us| (us, format!("{} µs", units::significant(us, 3))))?,
        // Three digits: the ratio beside them is of the unrounded figures.
        false => t.cpu_s_per_gib.map(|s| (s, format!("{} s", units::significant(s, 3))))?,
    };
    let rounds_s = t.mean_s.map(|mean| mean * t.runs as f64).filter(|&s| s > 0.0);
    let client_cores = rounds_s.map(|s| t.cpu_s / s);
    Some(ClientCost { transport: t.transport.name(), cpu, said, host_busy: t.host_cpu_busy, client_cores, lanes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TransportKind::{self, Grpc, Json};
    use crate::stats::{Accounting, Operation, RoundSample, Tally, compare, summarize};
    use engine::host_cpu::HostCpu;
    use units::{GIB, RateUnit};

    const BYTES: u64 = GIB / 4;

    /// Three 1 s rounds of a quarter GiB, each taking `cpu_s` of client CPU
    /// (so `cpu_s` x 4 s/GiB and `cpu_s` cores), on a host `busy` busy.
    fn rounds(transport: TransportKind, cpu_s: f64, busy: f64) -> Vec<RoundSample> {
        let host_cpu = HostCpu { busy_s: busy * 2.0, all_s: 2.0, process_s: 0.0, process_allowed_s: 2.0 };
        (0..3)
            .map(|round| RoundSample {
                transport,
                operation: Operation::Upload,
                round,
                elapsed_s: 1.0,
                bytes: BYTES,
                ok: true,
                cpu_s,
                wire_bytes: BYTES,
                retransmitted_bytes: 0,
                host_cpu: Some(host_cpu),
                span: Default::default(),
                paced: None,
                // One object a round: CPU per object is the round's.
                items: Some(Tally { finished: 1, finished_bytes: BYTES, finished_s: 1.0, ..Tally::default() }),
                rounds_held: 1,
            })
            .collect()
    }

    /// The verdict's caveat after marking, for JSON's and gRPC's clients.
    fn marked(json: (f64, f64), grpc: (f64, f64), lanes: usize, small: bool) -> Option<String> {
        let all: Vec<RoundSample> = [rounds(Json, json.0, json.1), rounds(Grpc, grpc.0, grpc.1)].concat();
        let summary = |kind| summarize(kind, Operation::Upload, BYTES, &all, &[], Accounting::default());
        let transports = [summary(Json), summary(Grpc)];
        let mut verdicts = compare(&transports, &all);
        let shown = Shown { unit: RateUnit::MiB, small, ranged: false };
        mark_client_cost(shown, &transports, (Hosts::One, lanes), &mut verdicts);
        verdicts[0].caveat.clone()
    }

    #[test]
    fn the_costlier_client_is_named_in_the_tables_figures() {
        // gRPC 0.15 s a quarter GiB (0.60 s/GiB) against JSON's 0.10 (0.40): 1.5x, host 90% busy.
        let said = marked((0.10, 0.5), (0.15, 0.9), 4, false).expect("a caution");
        assert!(
            said.starts_with("caution: grpc's client took 1.50x http-json's CPU per GiB (0.600 s against 0.400 s)")
        );
        assert!(said.contains("(the CPU available to the tool was 90% busy)"), "{said}");
        // Per object for small objects: 150,000 µs against 100,000.
        let small = marked((0.10, 0.5), (0.15, 0.9), 4, true).expect("a caution");
        assert!(small.contains("CPU per object (150000 µs against 100000 µs)"), "{small}");
    }

    #[test]
    fn no_caution_below_either_bound_and_the_cores_in_flight_count() {
        assert_eq!(marked((0.10, 0.5), (0.15, 0.8), 4, false), None, "the host 80% busy");
        assert_eq!(marked((0.10, 0.9), (0.12, 0.9), 4, false), None, "1.2x");
        assert_eq!(marked((0.10, 0.9), (0.15, 0.5), 4, false), None, "only the cheap client's host busy");
        // 0.9 of a core busy with one object in flight: short on an idle host.
        let one_lane = marked((0.6, 0.5), (0.9, 0.5), 1, false).expect("a caution");
        assert!(one_lane.contains("(its client kept 0.90 cores busy, of the 1 its concurrency can use)"));
        assert_eq!(marked((0.6, 0.5), (0.9, 0.5), 2, false), None, "0.9 of 2 cores");
    }
}
