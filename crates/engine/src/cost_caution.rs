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
    /// The share busy, 0 to 1, of the CPU the tool could use during its
    /// rounds (`HostCpu::busy_share`).
    pub host_busy: Option<f64>,
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
            Hosts::One => "the CPU the tool could use",
            Hosts::Fleet => "the CPU the tools could use, pooled over the hosts,",
        })
    }
}

/// The costlier client must take at least this many times the other's CPU
/// for the same work: below it, run-to-run spread on one host (up to 1.2x
/// seen on a 2-core VM, docs/performance.md) would raise it at random.
pub const COSTLIER_BY: f64 = 1.25;

/// The host counts as short of CPU from this busy share in the costlier
/// transport's rounds: less than one core in seven left idle.
pub const SHORT_OF_CPU: f64 = 0.85;

/// "caution: the CPU the tool could use was 97% busy during grpc's rounds
/// and grpc's client took 1.52x http-json's CPU per GiB (0.50 s against
/// 0.33 s): ..."; `None` unless both hold. `per` is the unit of work
/// (`GiB`, `object`, `op`).
pub fn cost_caution(a: &ClientCost, b: &ClientCost, per: &str, hosts: Hosts) -> Option<String> {
    let (costly, cheap) = if a.cpu >= b.cpu { (a, b) } else { (b, a) };
    if cheap.cpu <= 0.0 || costly.cpu < COSTLIER_BY * cheap.cpu {
        return None;
    }
    let busy = costly.host_busy.filter(|&share| share >= SHORT_OF_CPU)?;
    Some(format!(
        "caution: {hosts} was {:.0}% busy during {}'s rounds and {}'s client took {:.2}x {}'s CPU per {per} ({} against {}): the verdict weighs the clients' cost as much as the transports'; a client host with CPU to spare tells them apart",
        busy * 100.0,
        costly.transport,
        costly.transport,
        costly.cpu / cheap.cpu,
        cheap.transport,
        costly.said,
        cheap.said,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(transport: &'static str, cpu: f64, host_busy: Option<f64>) -> ClientCost {
        ClientCost { transport, cpu, said: format!("{cpu:.2} s"), host_busy }
    }

    #[test]
    fn a_caution_only_where_the_costlier_client_ran_on_a_busy_host() {
        let caution = |json: f64, grpc: f64, busy: f64| {
            cost_caution(&cost("http-json", json, Some(busy)), &cost("grpc", grpc, Some(busy)), "GiB", Hosts::One)
        };
        // 0.50 / 0.33 = 1.515..., on a host 97% busy: said, with both figures.
        assert_eq!(
            caution(0.33, 0.50, 0.97).as_deref(),
            Some(
                "caution: the CPU the tool could use was 97% busy during grpc's rounds and grpc's client took 1.52x http-json's CPU per GiB (0.50 s against 0.33 s): the verdict weighs the clients' cost as much as the transports'; a client host with CPU to spare tells them apart"
            )
        );
        assert!(caution(0.50, 0.33, 0.97).unwrap().contains("during http-json's rounds"), "either way round");
        assert_eq!(caution(0.33, 0.50, 0.80), None, "a host with a core in five idle is not short of CPU");
        assert_eq!(caution(0.40, 0.49, 0.99), None, "1.225x is within one host's spread");
        assert!(caution(0.5, 0.625, 0.85).is_some(), "1.25x on a host 85% busy: both at their bounds");
        assert_eq!(caution(0.0, 0.50, 0.99), None, "no CPU measured for one: nothing to weigh");
    }

    #[test]
    fn only_the_costlier_transports_rounds_need_a_busy_host() {
        // The cheap client's rounds on a busy host do not slow the costly one.
        let (json, grpc) = (cost("http-json", 0.33, Some(0.99)), cost("grpc", 0.50, Some(0.40)));
        assert_eq!(cost_caution(&json, &grpc, "GiB", Hosts::One), None);
        let unmeasured = cost("grpc", 0.50, None);
        assert_eq!(cost_caution(&json, &unmeasured, "GiB", Hosts::One), None, "a report without host readings");
        let busy = cost("grpc", 0.50, Some(0.9));
        let fleet = cost_caution(&json, &busy, "object", Hosts::Fleet).unwrap();
        assert!(
            fleet.starts_with(
                "caution: the CPU the tools could use, pooled over the hosts, was 90% busy during grpc's rounds"
            ),
            "{fleet}"
        );
        assert!(fleet.contains("CPU per object (0.50 s against 0.33 s)"), "{fleet}");
    }
}
