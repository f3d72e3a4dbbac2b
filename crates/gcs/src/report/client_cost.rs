//! The caution on the clients' cost beside each verdict
//! (`engine::cost_caution`), in the figures the table shows: client CPU per
//! GiB, or per object for small objects.

use super::shown::Shown;
use crate::stats::{TransportSummary, Verdict};
use engine::cost_caution::{ClientCost, Hosts, cost_caution};

/// Adds to each verdict its caution when one transport's client took
/// markedly more CPU for the same work with little CPU to spare.
pub fn mark_client_cost(shown: Shown, transports: &[TransportSummary], hosts: Hosts, verdicts: &mut [Verdict]) {
    let per = if shown.small { "object" } else { "GiB" };
    for verdict in verdicts {
        let costs: Vec<ClientCost> = transports
            .iter()
            .filter(|t| t.operation == verdict.operation)
            .filter_map(|t| client_cost(shown, t))
            .collect();
        if let [a, b] = &costs[..]
            && let Some(caution) = cost_caution(a, b, per, hosts)
        {
            verdict.add_caveat(&caution);
        }
    }
}

/// A transport's client CPU per GiB (or per object) and its rounds' busy host.
fn client_cost(shown: Shown, t: &TransportSummary) -> Option<ClientCost> {
    let (cpu, said) = match shown.small {
        true => t.cpu_us_per_object.map(|us| (us, format!("{} µs", units::significant(us, 3))))?,
        false => t.cpu_s_per_gib.map(|s| (s, format!("{s:.2} s")))?,
    };
    Some(ClientCost { transport: t.transport.name(), cpu, said, host_busy: t.host_cpu_busy })
}
