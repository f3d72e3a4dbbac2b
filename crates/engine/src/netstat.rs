//! Bytes on the wire, read from the kernel: TCP_INFO of this process's
//! client sockets to a given port. Both transports, TLS or not, are counted
//! the same way, whatever their libraries do above the socket.

use std::collections::BTreeMap;
use std::net::SocketAddr;

/// One open TCP socket of this process, connected to `peer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SocketBytes {
    pub local: SocketAddr,
    pub peer: SocketAddr,
    /// Bytes the kernel sent on it, retransmissions included.
    pub sent: u64,
    /// Bytes the peer has acknowledged: what has really crossed the link.
    pub acked: u64,
    /// Bytes the kernel sent more than once (loss, tail-loss probes): part of `sent`.
    pub retransmitted: u64,
    /// Bytes received from the peer (answers, for request/response protocols).
    pub received: u64,
}

/// The open TCP sockets of this process whose peer listens on `peer_port`
/// (the server side of an in-process emulator has that as its local port,
/// so it is not counted). Measuring, not the client's CPU (`cpu::measuring`).
pub fn client_sockets(peer_port: u16) -> Vec<SocketBytes> {
    crate::cpu::measuring(|| {
        let Ok(fds) = std::fs::read_dir("/proc/self/fd") else { return Vec::new() };
        // Every descriptor is asked for TCP_INFO: anything but a TCP socket
        // refuses at once, where reading each one's link to see what it is
        // walked /proc once a descriptor, most of a scan's cost.
        fds.flatten()
            .filter_map(|fd| fd.file_name().to_str()?.parse::<i32>().ok())
            .filter_map(socket_bytes)
            .filter(|socket| socket.peer.port() == peer_port)
            .collect()
    })
}

fn socket_bytes(fd: i32) -> Option<SocketBytes> {
    // SAFETY: getsockopt/getpeername/getsockname write into buffers we own,
    // sized as we pass them; a non-TCP or closed fd makes them fail, not crash.
    unsafe {
        let mut info: libc::tcp_info = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
        let ok = libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        );
        if ok != 0 || (len as usize) < std::mem::offset_of!(libc::tcp_info, tcpi_bytes_sent) + 8 {
            return None;
        }
        let peer = address(fd, libc::getpeername)?;
        let local = address(fd, libc::getsockname)?;
        Some(SocketBytes {
            local,
            peer,
            sent: info.tcpi_bytes_sent,
            acked: info.tcpi_bytes_acked,
            retransmitted: info.tcpi_bytes_retrans,
            received: info.tcpi_bytes_received,
        })
    }
}

type NameFn = unsafe extern "C" fn(libc::c_int, *mut libc::sockaddr, *mut libc::socklen_t) -> libc::c_int;

unsafe fn address(fd: i32, name: NameFn) -> Option<SocketAddr> {
    // SAFETY: the storage is large enough for any address family.
    unsafe {
        let mut storage: libc::sockaddr_storage = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        if name(fd, (&mut storage as *mut libc::sockaddr_storage).cast(), &mut len) != 0 {
            return None;
        }
        match storage.ss_family as i32 {
            libc::AF_INET => {
                let v4 = &*(&storage as *const libc::sockaddr_storage).cast::<libc::sockaddr_in>();
                let ip = std::net::Ipv4Addr::from(u32::from_be(v4.sin_addr.s_addr));
                Some(SocketAddr::new(ip.into(), u16::from_be(v4.sin_port)))
            }
            libc::AF_INET6 => {
                let v6 = &*(&storage as *const libc::sockaddr_storage).cast::<libc::sockaddr_in6>();
                let ip = std::net::Ipv6Addr::from(v6.sin6_addr.s6_addr);
                Some(SocketAddr::new(ip.into(), u16::from_be(v6.sin6_port)))
            }
            _ => None,
        }
    }
}

/// Which of a socket's byte counts a `WireCounter` follows.
#[derive(Clone, Copy, Debug, Default)]
pub enum Counted {
    #[default]
    Sent,
    Acked,
    Retransmitted,
    Received,
}

/// Follows sockets across samples: bytes sent (or acknowledged, or
/// retransmitted) since the last sample, summed over the sockets open at
/// both ends (a socket new since then counts whole).
#[derive(Default)]
pub struct WireCounter {
    last: BTreeMap<(SocketAddr, SocketAddr), u64>,
    counted: Counted,
    /// A socket seen before was gone at a sample: what it carried after the
    /// sample before is lost with it (a reset, a closed connection).
    vanished: bool,
}

impl WireCounter {
    pub fn new(counted: Counted) -> Self {
        Self { counted, ..Self::default() }
    }

    /// Counts bytes the peer acknowledged rather than bytes sent.
    pub fn acked() -> Self {
        Self::new(Counted::Acked)
    }

    /// Bytes since the previous call.
    pub fn sample(&mut self, sockets: &[SocketBytes]) -> u64 {
        let mut delta = 0;
        let mut now = BTreeMap::new();
        for socket in sockets {
            let key = (socket.local, socket.peer);
            let count = match self.counted {
                Counted::Sent => socket.sent,
                Counted::Acked => socket.acked,
                Counted::Retransmitted => socket.retransmitted,
                Counted::Received => socket.received,
            };
            let before = self.last.get(&key).copied().unwrap_or(0);
            delta += count.saturating_sub(before);
            now.insert(key, count);
        }
        self.vanished |= self.last.keys().any(|key| !now.contains_key(key));
        self.last = now;
        delta
    }

    /// Whether a socket vanished since the last call (and forgets it).
    pub fn take_vanished(&mut self) -> bool {
        std::mem::take(&mut self.vanished)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn bytes_written_to_a_socket_are_counted_for_the_client_side_only() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let mut client = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let (mut server, _) = listener.accept().unwrap();
        let mut counter = WireCounter::default();
        counter.sample(&client_sockets(port));
        client.write_all(&vec![7u8; 300_000]).unwrap();
        let mut received = vec![0u8; 300_000];
        server.read_exact(&mut received).unwrap();
        server.write_all(b"reply that must not count").unwrap();
        let mut reply = [0u8; 25];
        client.read_exact(&mut reply).unwrap();
        let sockets = client_sockets(port);
        assert_eq!(sockets[0].received, 25, "the reply is counted as received");
        assert_eq!(sockets.len(), 1, "the server side has the port as local, not peer");
        // Sent counts what the kernel sent again too (loopback under load drops).
        assert_eq!(counter.sample(&sockets), 300_000 + sockets[0].retransmitted);
        // The SYN counts as one acknowledged byte.
        assert_eq!(sockets[0].acked, 300_001, "the server read it all, so its kernel acknowledged it all");
        assert_eq!(counter.sample(&client_sockets(port)), 0, "nothing new");
    }

    #[test]
    fn a_socket_that_appears_counts_whole() {
        let a: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:2".parse().unwrap();
        let mut counter = WireCounter::default();
        let socket =
            |local, sent, acked| SocketBytes { local, peer: b, sent, acked, retransmitted: sent - acked, received: 0 };
        assert_eq!(counter.sample(&[socket(a, 10, 6)]), 10);
        let c: SocketAddr = "127.0.0.1:3".parse().unwrap();
        assert_eq!(counter.sample(&[socket(a, 15, 8), socket(c, 4, 1)]), 9);
        let mut acked = WireCounter::acked();
        assert_eq!(acked.sample(&[socket(a, 10, 6)]), 6);
        assert_eq!(acked.sample(&[socket(a, 15, 8), socket(c, 4, 1)]), 3);
        let mut retransmitted = WireCounter::new(Counted::Retransmitted);
        assert_eq!(retransmitted.sample(&[socket(a, 10, 6)]), 4);
        assert_eq!(retransmitted.sample(&[socket(a, 15, 8), socket(c, 4, 1)]), 6);
    }

    #[test]
    fn a_socket_that_vanishes_is_said_once() {
        let a: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let c: SocketAddr = "127.0.0.1:3".parse().unwrap();
        let b: SocketAddr = "127.0.0.1:2".parse().unwrap();
        let socket = |local| SocketBytes { local, peer: b, sent: 5, acked: 5, retransmitted: 0, received: 0 };
        let mut counter = WireCounter::default();
        counter.sample(&[socket(a), socket(c)]);
        assert!(!counter.take_vanished(), "nothing closed yet");
        counter.sample(&[socket(a)]);
        assert!(counter.take_vanished(), "c closed between the samples");
        assert!(!counter.take_vanished(), "said once");
        counter.sample(&[socket(a), socket(c)]);
        assert!(!counter.take_vanished(), "a new socket is not a lost one");
    }
}
