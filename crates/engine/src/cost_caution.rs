//! The caution said beside a verdict when the client itself may have
//! decided it: one transport's client took markedly more CPU for the same
//! work while the host had little to spare, so that transport waited on
//! its own client, not on the network or the service.

/// One transport's client, as the caution weighs it.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientCost {
    /// The transport's name (`grpc`).
    pub transport: &'static str,
    /// Client CPU per item of work (per GiB, per object, per call).
    pub cpu: f64,
    /// The same figure with its unit, as the report shows it (`0.52 s`).
    pub said: String,
    /// The share busy, 0 to 1, of the CPU available to the tool during its
    /// rounds (`HostCpu::busy_share`).
    pub host_busy: Option<f64>,
    /// Cores its client's own threads kept busy in its rounds: their CPU
    /// seconds over the rounds' seconds.
    pub client_cores: Option<f64>,
    /// Cores its concurrency can keep busy at once: the objects (or
    /// callers) in flight, at most the CPUs (or the client's threads). One
    /// upload's work runs mostly a step at a time, so one object in flight
    /// uses about one core however many the host has.
    pub lanes: usize,
}

/// Whose CPU the busy share is: one run's, or a fleet's hosts' pooled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Hosts {
    One,
    Fleet,
}

impl std::fmt::Display for Hosts {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            Hosts::One => "the CPU available to the tool",
            Hosts::Fleet => "the CPU available to the tools, pooled over the hosts,",
        })
    }
}

/// The costlier client must take at least this many times the other's CPU
/// for the same work: below it, run-to-run spread on one host (up to 1.2x
/// seen on a 2-core VM, docs/performance.md) would raise it at random.
pub const COSTLIER_BY: f64 = 1.25;

/// Short of CPU from this share busy: of the CPU available to the tool (at
/// most 15% idle), or of the cores its concurrency can use.
pub const SHORT_OF_CPU: f64 = 0.85;

/// "caution: grpc's client took 1.52x http-json's CPU per GiB (0.50 s
/// against 0.33 s) with little CPU to spare in its rounds (...): ..."; `None`
/// unless the costlier client was short of CPU. `per` is the unit of work
/// (`GiB`, `object`, `op`).
pub fn cost_caution(a: &ClientCost, b: &ClientCost, per: &str, hosts: Hosts) -> Option<String> {
    let (costly, cheap) = if a.cpu >= b.cpu { (a, b) } else { (b, a) };
    if cheap.cpu <= 0.0 || costly.cpu < COSTLIER_BY * cheap.cpu {
        return None;
    }
    let short = short_of_cpu(costly, hosts)?;
    Some(format!(
        "caution: {}'s client took {:.2}x {}'s CPU per {per} ({} against {}) with little CPU to spare in its rounds ({short}): part of the difference may be the clients' own CPU, not the network or the service",
        costly.transport,
        costly.cpu / cheap.cpu,
        cheap.transport,
        costly.said,
        cheap.said,
    ))
}

/// Why the client had little CPU to spare, if it had: the CPU the tool
/// had was busy, or its own threads kept busy the cores its concurrency
/// can use.
fn short_of_cpu(cost: &ClientCost, hosts: Hosts) -> Option<String> {
    if let Some(busy) = cost.host_busy.filter(|&share| share >= SHORT_OF_CPU) {
        return Some(format!("{hosts} was {:.0}% busy", busy * 100.0));
    }
    let lanes = cost.lanes.max(1);
    let cores = cost.client_cores.filter(|&cores| cores >= SHORT_OF_CPU * lanes as f64)?;
    Some(format!("its client kept {cores:.2} cores busy, of the {lanes} its concurrency can use"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client with `cpu` s/GiB on a host `host_busy` busy, whose own
    /// threads kept `cores` busy with `lanes` in flight.
    fn cost(transport: &'static str, cpu: f64, host_busy: f64, (cores, lanes): (f64, usize)) -> ClientCost {
        let said = format!("{cpu:.2} s");
        ClientCost { transport, cpu, said, host_busy: Some(host_busy), client_cores: Some(cores), lanes }
    }

    /// One lane, its client's threads half idle: only the host can be short.
    const SPARE: (f64, usize) = (0.5, 1);

    fn on_host(json: f64, grpc: f64, busy: f64) -> Option<String> {
        cost_caution(&cost("http-json", json, busy, SPARE), &cost("grpc", grpc, busy, SPARE), "GiB", Hosts::One)
    }

    #[test]
    fn a_costlier_client_on_a_busy_host_is_said_with_both_figures() {
        // 0.50 / 0.33 = 1.515..., on a host 97% busy.
        assert_eq!(
            on_host(0.33, 0.50, 0.97).as_deref(),
            Some(
                "caution: grpc's client took 1.52x http-json's CPU per GiB (0.50 s against 0.33 s) with little CPU to spare in its rounds (the CPU available to the tool was 97% busy): part of the difference may be the clients' own CPU, not the network or the service"
            )
        );
        let other_way = on_host(0.50, 0.33, 0.97).unwrap();
        assert!(other_way.starts_with("caution: http-json's client took 1.52x grpc's"), "{other_way}");
    }

    #[test]
    fn both_bounds_count_and_just_below_either_does_not() {
        assert!(on_host(0.5, 0.625, 0.85).is_some(), "1.25x on a host 85% busy: both at their bounds");
        assert_eq!(on_host(0.5, 0.624, 0.99), None, "1.248x is within one host's spread");
        assert_eq!(on_host(0.5, 0.625, 0.849), None, "a host 84.9% busy has a core in seven to spare");
        assert_eq!(on_host(0.0, 0.50, 0.99), None, "no CPU measured for one: nothing to weigh");
    }

    #[test]
    fn a_client_whose_work_in_flight_kept_its_cores_busy_is_short_on_an_idle_host() {
        let json = cost("http-json", 0.30, 0.5, SPARE);
        let serial = cost("grpc", 0.47, 0.5, (0.96, 1));
        let said = cost_caution(&json, &serial, "GiB", Hosts::One).unwrap();
        assert!(
            said.contains("(its client kept 0.96 cores busy, of the 1 its concurrency can use)"),
            "one upload's client on one core: {said}"
        );
        let four_lanes = cost("grpc", 0.47, 0.5, (0.96, 4));
        assert_eq!(cost_caution(&json, &four_lanes, "GiB", Hosts::One), None, "three of four cores to spare");
        let four_busy = cost("grpc", 0.47, 0.5, (3.5, 4));
        assert!(cost_caution(&json, &four_busy, "GiB", Hosts::One).is_some(), "3.5 of 4 is over 85%");
        let below = cost("grpc", 0.47, 0.5, (0.84, 1));
        assert_eq!(cost_caution(&json, &below, "GiB", Hosts::One), None, "0.84 of a core");
        let at_bound = cost("grpc", 0.47, 0.5, (0.85, 1));
        assert!(cost_caution(&json, &at_bound, "GiB", Hosts::One).is_some(), "0.85 of a core: at the bound");
        let no_lanes = cost("grpc", 0.47, 0.5, (0.9, 0));
        assert!(cost_caution(&json, &no_lanes, "GiB", Hosts::One).is_some(), "none in flight counts as one");
    }

    #[test]
    fn only_the_costlier_clients_shortage_counts() {
        // The cheap client short of CPU does not slow the costly one.
        let json = cost("http-json", 0.33, 0.99, (1.0, 1));
        let grpc = cost("grpc", 0.50, 0.40, SPARE);
        assert_eq!(cost_caution(&json, &grpc, "GiB", Hosts::One), None);
        // Either order of the arguments: the costlier one's shortage decides.
        let (short, spare) = (cost("grpc", 0.50, 0.90, SPARE), cost("http-json", 0.33, 0.40, SPARE));
        assert!(cost_caution(&short, &spare, "GiB", Hosts::One).is_some());
        assert!(cost_caution(&spare, &short, "GiB", Hosts::One).is_some());
        let (spare_costly, short_cheap) = (cost("grpc", 0.50, 0.40, SPARE), cost("http-json", 0.33, 0.90, SPARE));
        assert_eq!(cost_caution(&spare_costly, &short_cheap, "GiB", Hosts::One), None);
        assert_eq!(cost_caution(&short_cheap, &spare_costly, "GiB", Hosts::One), None);
        let unmeasured = ClientCost { host_busy: None, client_cores: None, ..grpc };
        assert_eq!(cost_caution(&json, &unmeasured, "GiB", Hosts::One), None, "a report without readings");
        let fleet = cost_caution(&json, &cost("grpc", 0.50, 0.9, SPARE), "object", Hosts::Fleet).unwrap();
        assert!(fleet.contains("CPU per object (0.50 s against 0.33 s)"), "{fleet}");
        assert!(fleet.contains("(the CPU available to the tools, pooled over the hosts, was 90% busy)"), "{fleet}");
    }
}
