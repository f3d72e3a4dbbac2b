//! The ways a user or a job runner asks a run to stop: Ctrl-C (SIGINT), a
//! CI job's kill (SIGTERM) and a closed terminal (SIGHUP). All three mean
//! "cancel, clean up, report", so they are one stream of requests.

use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;

/// Which signal arrived, for the exit status (128 + its number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interrupt {
    Int,
    Term,
    Hup,
}

impl Interrupt {
    pub fn exit_code(self) -> u8 {
        match self {
            Interrupt::Int => 130,
            Interrupt::Term => 143,
            Interrupt::Hup => 129,
        }
    }
}

/// Every SIGINT, SIGTERM and SIGHUP from now on, in order. Signals that
/// cannot be watched (never on Linux) are simply not reported.
pub fn interrupts() -> mpsc::UnboundedReceiver<Interrupt> {
    let (sender, receiver) = mpsc::unbounded_channel();
    for (kind, which) in [
        (SignalKind::interrupt(), Interrupt::Int),
        (SignalKind::terminate(), Interrupt::Term),
        (SignalKind::hangup(), Interrupt::Hup),
    ] {
        let Ok(mut stream) = signal(kind) else { continue };
        let sender = sender.clone();
        tokio::spawn(async move {
            while stream.recv().await.is_some() {
                if sender.send(which).is_err() {
                    break;
                }
            }
        });
    }
    receiver
}
