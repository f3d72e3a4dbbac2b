//! What is measured around each timed round: client CPU (its own threads',
//! `CLIENT_THREAD_NAME`), the host's and the process's CPU
//! (`engine::host_cpu`), and the bytes on the transport's sockets (sent for
//! uploads, received for reads).

use super::delivered::Delivered;
use super::{CLIENT_THREAD_NAME, Runner};
use crate::config::TransportKind;
use crate::stats::{Operation, Recording};
use engine::host_cpu::{HostCpu, RoundCpu};
use engine::netstat::{self, Counted, SocketBytes, WireCounter};
use std::collections::BTreeSet;
use std::net::SocketAddr;

/// What is measured around one transport's timed rounds (CPU and wire bytes
/// go into each round's sample, so only complete rounds are divided).
pub(super) struct Meter {
    /// Connections opened by the end of the timed rounds (cleanup's deletes not counted).
    pub(super) connections: u64,
    wire: WireCounter,
    /// Of the wire bytes, those TCP sent again (loss, tail-loss probes).
    retransmitted: WireCounter,
    pub(super) peers: BTreeSet<SocketAddr>,
    /// A complete round lost a socket mid-round: its wire bytes are
    /// incomplete, so no wire figure is given for this transport.
    pub(super) wire_lost: bool,
    /// Its rounds' items added up, times whole: the summary's figures (a
    /// long run's folded records keep theirs coarser).
    pub(super) items: Recording,
}

impl Default for Meter {
    fn default() -> Self {
        Self {
            connections: 0,
            wire: WireCounter::default(),
            retransmitted: WireCounter::new(Counted::Retransmitted),
            peers: BTreeSet::new(),
            wire_lost: false,
            items: Recording::default(),
        }
    }
}

/// A round being measured.
pub(super) struct RoundMeter {
    key: (TransportKind, Operation),
    port: u16,
    cpu: RoundCpu,
    pub(super) start_s: f64,
    /// The transport's sockets as the round began.
    sockets: Vec<SocketBytes>,
}

impl RoundMeter {
    /// Live progress of the round's uploads, counting acknowledged bytes
    /// from the meter's own reading of the sockets.
    pub(super) fn delivered(&self) -> Delivered {
        Delivered::since(self.port, &self.sockets)
    }
}

/// What a round's meter measured around its batch.
pub(super) struct Metered {
    pub(super) start_s: f64,
    pub(super) cpu_s: f64,
    /// The host's and the process's CPU over the round.
    pub(super) host_cpu: HostCpu,
    pub(super) wire_bytes: u64,
    pub(super) retransmitted_bytes: u64,
    /// A socket closed during the round (its last bytes are not counted).
    pub(super) wire_lost: bool,
    /// Open loop: how the round's items were paced.
    pub(super) paced: Option<engine::open_loop::PacedRound>,
}

impl Meter {
    /// Reads count the bytes that came in.
    pub(super) fn for_reads() -> Self {
        Self { wire: WireCounter::new(Counted::Received), ..Self::default() }
    }
}

impl Runner {
    /// The meter of a transport's uploads (bytes sent) or reads (received).
    pub(super) fn meter(&mut self, key: (TransportKind, Operation)) -> &mut Meter {
        self.meters.entry(key).or_insert_with(|| match key.1 {
            Operation::Upload => Meter::default(),
            Operation::Download => Meter::for_reads(),
        })
    }

    /// Starts measuring a round: client CPU, and the bytes on the sockets
    /// to `port` (the transport's meter says which way they count).
    pub(super) fn start_meter(&mut self, key: (TransportKind, Operation), port: u16) -> RoundMeter {
        let sockets = netstat::client_sockets(port);
        let meter = self.meter(key);
        meter.wire.sample(&sockets);
        meter.retransmitted.sample(&sockets);
        // Closed before this round began: not this round's bytes.
        meter.wire.take_vanished();
        let cpu = RoundCpu::start(CLIENT_THREAD_NAME);
        RoundMeter { key, port, cpu, start_s: self.at_s(), sockets }
    }

    pub(super) fn stop_meter(&mut self, meter: RoundMeter) -> Metered {
        let cpu = meter.cpu.stop();
        let sockets = netstat::client_sockets(meter.port);
        let totals = self.meter(meter.key);
        let wire_bytes = totals.wire.sample(&sockets);
        let retransmitted_bytes = totals.retransmitted.sample(&sockets);
        totals.peers.extend(sockets.iter().map(|s| s.peer));
        let wire_lost = totals.wire.take_vanished();
        Metered {
            start_s: meter.start_s,
            cpu_s: cpu.client_s,
            host_cpu: cpu.host,
            wire_bytes,
            retransmitted_bytes,
            wire_lost,
            paced: None,
        }
    }
}
