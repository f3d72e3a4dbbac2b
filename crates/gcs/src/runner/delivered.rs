//! How far a batch of uploads has really got, for the live view.

use engine::netstat::{self, WireCounter};

/// Live progress counts bytes that crossed the link: the payload handed to
/// the transport, but never more than the peer's kernel has acknowledged on
/// the transport's sockets since the batch began (bytes handed over sit in
/// socket buffers first, and would show a rate above the link).
pub(super) struct Delivered {
    port: u16,
    acks: WireCounter,
    acked: u64,
}

impl Delivered {
    /// Counting from now.
    pub(super) fn start(port: u16) -> Self {
        Self::since(port, &netstat::client_sockets(port))
    }

    /// Counting from `sockets`, the transport's read just before the batch
    /// (a timed round's meter reads them then: no second read in the round).
    pub(super) fn since(port: u16, sockets: &[netstat::SocketBytes]) -> Self {
        let mut acks = WireCounter::acked();
        acks.sample(sockets);
        Self { port, acks, acked: 0 }
    }

    pub(super) fn bytes(&mut self, handed: u64) -> u64 {
        self.acked += self.acks.sample(&netstat::client_sockets(self.port));
        handed.min(self.acked)
    }
}
