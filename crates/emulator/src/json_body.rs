//! An upload request's body, read as it arrives: frame by frame into the
//! session, with the link's shaping, the request's fault at its offset, and
//! a newer request to the same session taking over.

use super::faults::{FaultAction, Trigger};
use super::json_wire::*;
use super::server::ConnectionKill;
use super::store::SessionEntry;
use http_body_util::BodyExt;
use hyper::StatusCode;
use hyper::body::Incoming;

/// How a request body's reading ended early.
pub enum Cut {
    Fault(StatusCode),
    Reset,
    ClientGone,
    /// A newer request to the same session took over.
    Superseded,
}

pub async fn cut_response(kill: &ConnectionKill, cut: Cut) -> JsonResponse {
    match cut {
        Cut::Fault(status) => error_response(status, &format!("injected fault: return-{}", status.as_u16())),
        Cut::Reset => kill.reset().await,
        Cut::ClientGone => error_response(StatusCode::BAD_REQUEST, "the request body was cut short"),
        Cut::Superseded => error_response(StatusCode::CONFLICT, "a newer request to this upload session took over"),
    }
}

/// Streams a body into `sink`, frame by frame (never buffering the whole
/// body), dropping the first `skip` bytes (a resend of persisted data),
/// shaping the rate and firing the request's fault at its offset.
pub async fn read_body(
    mut body: Incoming,
    trigger: &mut Trigger,
    mut skip: u64,
    session: Option<(&SessionEntry, u64)>,
    mut sink: impl FnMut(&[u8]),
) -> Result<(), Cut> {
    // Resolves when a newer request takes the session over (never without one).
    let superseded = || async move {
        match session {
            Some((entry, claim)) => entry.superseded(claim).await,
            None => std::future::pending().await,
        }
    };
    let mut accept = |bytes: &[u8]| {
        let dropped = skip.min(bytes.len() as u64) as usize;
        skip -= dropped as u64;
        sink(&bytes[dropped..]);
    };
    loop {
        let frame = tokio::select! {
            frame = body.frame() => frame,
            _ = superseded() => return Err(Cut::Superseded),
        };
        let Some(frame) = frame else { break };
        let Ok(frame) = frame else {
            return Err(Cut::ClientGone);
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let (take, fault) = trigger.split(data.len());
        accept(&data[..take]);
        match fault {
            None => {}
            Some(FaultAction::Stall(duration)) => {
                tokio::select! {
                    _ = tokio::time::sleep(duration) => {}
                    _ = superseded() => return Err(Cut::Superseded),
                }
                accept(&data[take..]);
            }
            Some(FaultAction::Corrupt) => accept(&super::faults::corrupted(&data[take..])),
            Some(FaultAction::Return(code)) => {
                drain(&mut body).await;
                return Err(Cut::Fault(StatusCode::from_u16(code).unwrap_or(StatusCode::SERVICE_UNAVAILABLE)));
            }
            Some(FaultAction::ResetConnection) => return Err(Cut::Reset),
        }
    }
    Ok(())
}

/// Reads and discards the rest of a body, so that a client still sending
/// sees the answer rather than a broken pipe.
pub async fn drain(body: &mut Incoming) {
    while let Some(Ok(_)) = body.frame().await {}
}
