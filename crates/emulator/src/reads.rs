//! What both APIs' reads share: the span of an object a read asks for, and
//! the stored bytes sent as slices of themselves (never copied) with the
//! request's fault applied on the way: a connection reset, a failure or a
//! stall after N bytes, or one corrupted byte.

use super::faults::{FaultAction, Trigger, corrupted};
use bytes::Bytes;
use std::future::Future;

/// Bytes [start, end) of an object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: u64,
    pub end: u64,
}

impl Span {
    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// A `Range` header (`bytes=A-B`, `bytes=A-`, `bytes=-N`) over an object of
/// `size` bytes: `Ok(None)` when there is none (the whole object), an error
/// when it cannot be satisfied (416).
pub fn parse_range(header: Option<&str>, size: u64) -> Result<Option<Span>, String> {
    let Some(text) = header else { return Ok(None) };
    let invalid = || format!("invalid Range '{text}': expected bytes=A-B, bytes=A- or bytes=-N");
    let spec = text.trim().strip_prefix("bytes=").ok_or_else(invalid)?;
    let (first, last) = spec.split_once('-').ok_or_else(invalid)?;
    let number = |s: &str| s.trim().parse::<u64>().map_err(|_| invalid());
    let span = match (first.trim().is_empty(), last.trim().is_empty()) {
        (true, false) => Span { start: size.saturating_sub(number(last)?), end: size },
        (false, true) => Span { start: number(first)?, end: size },
        (false, false) => Span { start: number(first)?, end: (number(last)? + 1).min(size) },
        (true, true) => return Err(invalid()),
    };
    if span.start >= size || span.start > span.end {
        return Err(format!("range {text} is not satisfiable: the object has {size} bytes"));
    }
    Ok(Some(span))
}

/// gRPC's `read_offset` (negative: from the end) and `read_limit` (0: to the end).
pub fn offset_span(offset: i64, limit: i64, size: u64) -> Result<Span, String> {
    if limit < 0 {
        return Err(format!("read_limit {limit} is negative"));
    }
    let start = if offset < 0 { size.saturating_sub(offset.unsigned_abs()) } else { offset as u64 };
    if start > size {
        return Err(format!("read_offset {offset} is past the object's {size} bytes"));
    }
    let end = if limit == 0 { size } else { (start + limit as u64).min(size) };
    Ok(Span { start, end })
}

/// How sending a span ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Served {
    Complete,
    /// The client went away.
    Gone,
    /// The fault said to fail here with this HTTP status.
    Failed(u16),
    /// The fault said to drop the connection here.
    Reset,
}

/// Sends `data[span]` in pieces of at most `piece` bytes through `send`
/// (given the piece and whether it was corrupted), firing the trigger's
/// fault at its offset within the span.
pub async fn serve<F, Fut>(data: &Bytes, span: Span, piece: usize, trigger: &mut Trigger, mut send: F) -> Served
where
    F: FnMut(Bytes, bool) -> Fut,
    Fut: Future<Output = bool>,
{
    let mut at = span.start as usize;
    let end = span.end as usize;
    while at < end {
        let len = piece.min(end - at);
        let (take, fault) = trigger.split(len);
        if take > 0 {
            if !send(data.slice(at..at + take), false).await {
                return Served::Gone;
            }
            at += take;
        }
        match fault {
            None => {}
            Some(FaultAction::Return(code)) => return Served::Failed(code),
            Some(FaultAction::ResetConnection) => return Served::Reset,
            Some(FaultAction::Stall(duration)) => tokio::time::sleep(duration).await,
            Some(FaultAction::Corrupt) if at < end => {
                let rest = piece.min(end - at);
                if !send(Bytes::from(corrupted(&data[at..at + rest])), true).await {
                    return Served::Gone;
                }
                at += rest;
            }
            Some(FaultAction::Corrupt) => {}
        }
    }
    Served::Complete
}

/// Waits until the connection has taken every piece queued on `tx`, and a
/// moment more for it to write them, so that a fault fired after N bytes
/// really comes after N bytes reached the client.
pub async fn drained<T>(tx: &tokio::sync::mpsc::Sender<T>) {
    while tx.capacity() < tx.max_capacity() && !tx.is_closed() {
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faults::Fault;

    #[test]
    fn ranges_parse_as_http_says() {
        let span = |start, end| Ok(Some(Span { start, end }));
        assert_eq!(parse_range(None, 10), Ok(None));
        assert_eq!(parse_range(Some("bytes=2-5"), 10), span(2, 6));
        assert_eq!(parse_range(Some("bytes=2-"), 10), span(2, 10));
        assert_eq!(parse_range(Some("bytes=-3"), 10), span(7, 10));
        assert_eq!(parse_range(Some("bytes=8-100"), 10), span(8, 10), "a last byte past the end is the end");
        assert!(parse_range(Some("bytes=10-"), 10).unwrap_err().contains("not satisfiable"));
        assert!(parse_range(Some("bits=1-2"), 10).unwrap_err().contains("invalid Range"));
        assert!(parse_range(Some("bytes=5-2"), 10).is_err());
    }

    #[test]
    fn offsets_and_limits_parse_as_read_object_says() {
        assert_eq!(offset_span(0, 0, 10), Ok(Span { start: 0, end: 10 }));
        assert_eq!(offset_span(4, 3, 10), Ok(Span { start: 4, end: 7 }));
        assert_eq!(offset_span(-4, 0, 10), Ok(Span { start: 6, end: 10 }));
        assert_eq!(offset_span(8, 5, 10), Ok(Span { start: 8, end: 10 }));
        assert!(offset_span(11, 0, 10).is_err());
        assert!(offset_span(0, -1, 10).is_err());
    }

    async fn pieces(fault: Option<&str>, span: Span) -> (Vec<(Vec<u8>, bool)>, Served) {
        let data = Bytes::from((0..100u8).collect::<Vec<_>>());
        let mut trigger = Trigger::new(fault.map(|f| Fault::parse(f).unwrap()));
        let mut sent = Vec::new();
        let served = serve(&data, span, 16, &mut trigger, |piece, bad| {
            sent.push((piece.to_vec(), bad));
            async { true }
        })
        .await;
        (sent, served)
    }

    #[tokio::test]
    async fn a_span_goes_out_in_pieces_and_faults_fire_at_their_offset() {
        let (sent, served) = pieces(None, Span { start: 10, end: 50 }).await;
        assert_eq!(served, Served::Complete);
        assert_eq!(sent.iter().map(|(p, _)| p.len()).collect::<Vec<_>>(), [16, 16, 8]);
        assert_eq!(sent.concat_bytes(), (10..50u8).collect::<Vec<_>>());
        let (sent, served) = pieces(Some("return-503-after-20"), Span { start: 0, end: 100 }).await;
        assert_eq!((sent.concat_bytes().len(), served), (20, Served::Failed(503)));
        let (sent, served) = pieces(Some("return-reset-connection-after-5"), Span { start: 0, end: 100 }).await;
        assert_eq!((sent.concat_bytes().len(), served), (5, Served::Reset));
        let (sent, served) = pieces(Some("corrupt-after-20"), Span { start: 0, end: 40 }).await;
        assert_eq!(served, Served::Complete);
        let bytes = sent.concat_bytes();
        assert_eq!(bytes.len(), 40);
        assert_eq!(bytes[20], 20 ^ 0xff, "the byte at the offset is flipped");
        assert_eq!(sent.iter().filter(|(_, bad)| *bad).count(), 1);
    }

    trait Concat {
        fn concat_bytes(&self) -> Vec<u8>;
    }

    impl Concat for Vec<(Vec<u8>, bool)> {
        fn concat_bytes(&self) -> Vec<u8> {
            self.iter().flat_map(|(p, _)| p.clone()).collect()
        }
    }
}
