//! Bytes on the wire per transport when both talk to the same port: each
//! socket belongs to whoever was running when it first appeared (a
//! transport's own round or connect, else the tool's other traffic: etcd's
//! watch load, `/metrics`, setup).

use crate::netstat::{self, Counted, SocketBytes, WireCounter};
use crate::plan::TransportKind;
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Transport(TransportKind),
    /// The watch load, the metrics scraper, setup and cleanup.
    Tool,
}

/// Sent and received bytes since the last sample.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wire {
    pub sent: u64,
    pub received: u64,
}

pub struct WireMeter {
    ports: Vec<u16>,
    owners: HashMap<SocketAddr, Owner>,
    counters: BTreeMap<TransportKind, (WireCounter, WireCounter)>,
}

impl WireMeter {
    /// Counts sockets to these server ports (one per endpoint).
    pub fn new(mut ports: Vec<u16>) -> Self {
        ports.sort_unstable();
        ports.dedup();
        Self { ports, owners: HashMap::new(), counters: BTreeMap::new() }
    }

    fn sockets(&self) -> Vec<SocketBytes> {
        self.ports.iter().flat_map(|&port| netstat::client_sockets(port)).collect()
    }

    /// Gives every socket not seen before to `owner`.
    pub fn claim(&mut self, owner: Owner) {
        let sockets = self.sockets();
        self.claim_these(&sockets, owner);
    }

    fn claim_these(&mut self, sockets: &[SocketBytes], owner: Owner) {
        for socket in sockets {
            self.owners.entry(socket.local).or_insert(owner);
        }
    }

    /// The transport's bytes since its last sample; new sockets are claimed
    /// for it first (call at a round's start, after claiming for the tool,
    /// and at its end).
    pub fn sample(&mut self, kind: TransportKind) -> Wire {
        // One reading of the sockets serves both the claim and the count.
        let sockets = self.sockets();
        self.claim_these(&sockets, Owner::Transport(kind));
        let owned: Vec<SocketBytes> =
            sockets.into_iter().filter(|s| self.owners.get(&s.local) == Some(&Owner::Transport(kind))).collect();
        let (sent, received) = self
            .counters
            .entry(kind)
            .or_insert_with(|| (WireCounter::new(Counted::Sent), WireCounter::new(Counted::Received)));
        Wire { sent: sent.sample(&owned), received: received.sample(&owned) }
    }
}

/// The server port of `http://host:port` (80 or 443 by default).
pub fn port_of(endpoint: &str) -> Option<u16> {
    let rest = endpoint.split("://").nth(1)?;
    let default = if endpoint.starts_with("https://") { 443 } else { 80 };
    Some(rest.rsplit_once(':').and_then(|(_, port)| port.parse().ok()).unwrap_or(default))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn sockets_are_counted_for_the_transport_that_opened_them() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let mut meter = WireMeter::new(vec![port]);
        let mut tool = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        meter.claim(Owner::Tool);
        let mut grpc = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let (mut tool_side, _) = listener.accept().unwrap();
        let (mut grpc_side, _) = listener.accept().unwrap();
        assert_eq!(meter.sample(TransportKind::Grpc), Wire::default(), "nothing sent yet");
        tool.write_all(&[1; 1000]).unwrap();
        grpc.write_all(&[2; 300]).unwrap();
        grpc_side.write_all(&[3; 40]).unwrap();
        let mut buffer = [0; 1000];
        tool_side.read_exact(&mut buffer).unwrap();
        grpc_side.read_exact(&mut buffer[..300]).unwrap();
        grpc.read_exact(&mut buffer[..40]).unwrap();
        assert_eq!(meter.sample(TransportKind::Grpc), Wire { sent: 300, received: 40 });
        assert_eq!(meter.sample(TransportKind::Json), Wire::default(), "the tool's socket is no transport's");
    }
}
