//! A BidiWriteObject stream's request body: each message made when HTTP/2
//! asks for the next chunk, from the payload's own bytes, as JSON's
//! `PayloadBody` makes its slices. The writer hands over a range at a time
//! (a chunk, ending in a flush or in finish_write) and waits for the
//! server's answer to it.
//!
//! So progress is counted where it happens, when hyper takes a message's
//! content (a task of the writer's used to feed the messages through a
//! channel of four buffers, and counted them as the channel took them, up
//! to two messages early), and a stream has one task fewer. It did not
//! make uploads cheaper: the task switches that channel caused (959 of
//! 5,881 in a 3 GiB gRPC upload to an emulator keeping bytes, `perf record
//! -e sched:sched_switch`) moved to h2's lock, which hyper's body task and
//! the connection's task still share (docs/performance.md).

use super::{MESSAGE_BYTES, Progress};
use crate::payload::Payload;
use bytes::Bytes;
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use http_body::{Body, Frame};
use pb::bidi_write_object_request::{Data, FirstMessage};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use tokio::sync::mpsc;

/// One range of the object to send as messages of up to 2 MiB.
pub struct RangeToSend {
    /// The stream's first message (the object's spec, or the upload id).
    pub first: Option<FirstMessage>,
    pub start: u64,
    pub end: u64,
    /// The object's size: a range that ends there ends with finish_write.
    pub total: u64,
    /// Each message's crc32c, in order (when checksums are on).
    pub crcs: Option<Vec<u32>>,
    /// The whole object's crc32c, sent with finish_write.
    pub object_crc: Option<u32>,
}

pub struct WriteBody {
    payload: Payload,
    progress: Arc<Progress>,
    ranges: mpsc::Receiver<RangeToSend>,
    sending: Option<Sending>,
}

/// Where the body is in the range it is sending.
struct Sending {
    range: RangeToSend,
    /// Where the next message starts.
    offset: u64,
    /// The next message's index in the range (its crc32c's).
    index: usize,
    /// A message's content, to go after its head.
    content: Option<Bytes>,
}

impl WriteBody {
    /// The stream ends when the writer drops its sender.
    pub fn new(payload: Payload, progress: Arc<Progress>, ranges: mpsc::Receiver<RangeToSend>) -> Self {
        Self { payload, progress, ranges, sending: None }
    }

    /// The next message's frame head, and its content kept for the next poll.
    fn next_head(&mut self) -> Option<Bytes> {
        let sending = self.sending.as_mut()?;
        let range = &mut sending.range;
        if sending.offset >= range.end {
            return None;
        }
        let content = self.payload.segment(sending.offset, range.end, MESSAGE_BYTES);
        let last_of_range = sending.offset + content.len() as u64 == range.end;
        let finish = last_of_range && range.end == range.total;
        let crc32c = range.crcs.as_ref().map(|crcs| crcs[sending.index]);
        let message = pb::BidiWriteObjectRequest {
            first_message: range.first.take(),
            write_offset: sending.offset as i64,
            data: Some(Data::ChecksummedData(pb::ChecksummedData { content, crc32c })),
            finish_write: finish,
            flush: last_of_range && !finish,
            state_lookup: last_of_range && !finish,
            object_checksums: range
                .object_crc
                .filter(|_| finish)
                .map(|crc| pb::ObjectChecksums { crc32c: Some(crc), ..Default::default() }),
            ..Default::default()
        };
        let (head, content) = super::grpc_frame::frame(message);
        sending.offset += content.len() as u64;
        sending.index += 1;
        sending.content = Some(content);
        Some(head)
    }

    /// The content after its head, counted as sent as hyper takes it.
    fn next_content(&mut self) -> Option<Bytes> {
        let sending = self.sending.as_mut()?;
        let content = sending.content.take()?;
        self.progress.advance_to(sending.offset);
        if sending.offset == sending.range.total {
            self.progress.mark_last_byte();
        }
        Some(content)
    }
}

impl Body for WriteBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        loop {
            if let Some(chunk) = self.next_content().or_else(|| self.next_head()) {
                return Poll::Ready(Some(Ok(Frame::data(chunk))));
            }
            match ready!(self.ranges.poll_recv(cx)) {
                Some(range) => self.sending = Some(Sending { offset: range.start, range, index: 0, content: None }),
                None => return Poll::Ready(None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;
    use prost::Message;

    const MIB: u64 = 1024 * 1024;

    /// The messages in a gRPC body's bytes: each `[0][u32 length][message]`.
    fn messages(mut bytes: &[u8]) -> Vec<pb::BidiWriteObjectRequest> {
        let mut messages = Vec::new();
        while !bytes.is_empty() {
            assert_eq!(bytes[0], 0, "not compressed");
            let length = u32::from_be_bytes(bytes[1..5].try_into().unwrap()) as usize;
            messages.push(pb::BidiWriteObjectRequest::decode(&bytes[5..5 + length]).unwrap());
            bytes = &bytes[5 + length..];
        }
        messages
    }

    #[tokio::test]
    async fn two_ranges_go_as_messages_of_the_payloads_bytes_and_progress_follows_what_is_taken() {
        // 5 MiB + 3 bytes in a chunk of 4 MiB (flushed) and the rest (finished).
        let total = 5 * MIB + 3;
        let payload = Payload::new(total, 11);
        let whole: Vec<u8> = payload.segments(0, total, MIB).flat_map(|s| s.to_vec()).collect();
        let progress = Arc::new(Progress::default());
        let (tx, rx) = mpsc::channel(1);
        let mut body = WriteBody::new(payload, progress.clone(), rx);
        let crc_of = |a: u64, b: u64| crc32c::crc32c(&whole[a as usize..b as usize]);
        // Messages end on 2 MiB boundaries and at each range's end.
        let bounds = [(0, 2 * MIB), (2 * MIB, 4 * MIB), (4 * MIB, total)];
        let crcs = bounds.map(|(a, b)| crc_of(a, b));
        let first = Some(FirstMessage::UploadId("session".into()));
        let ranges = [
            RangeToSend { first, start: 0, end: 4 * MIB, total, crcs: Some(crcs[..2].to_vec()), object_crc: None },
            RangeToSend {
                first: None,
                start: 4 * MIB,
                end: total,
                total,
                crcs: Some(crcs[2..].to_vec()),
                object_crc: Some(crc_of(0, total)),
            },
        ];
        let mut sent = Vec::new();
        let mut taken = Vec::new();
        for range in ranges {
            tx.send(range).await.unwrap();
            // Take chunks until the body waits for the next range.
            while let Some(Some(frame)) = futures::FutureExt::now_or_never(body.frame()) {
                sent.extend_from_slice(&frame.unwrap().into_data().unwrap());
                taken.push(progress.bytes());
            }
        }
        drop(tx);
        assert!(body.frame().await.is_none(), "the body ends when the writer is done");

        let messages = messages(&sent);
        assert_eq!(messages.len(), 3);
        for (i, (message, (start, end))) in messages.iter().zip(bounds).enumerate() {
            assert_eq!(message.write_offset, start as i64);
            assert_eq!(message.first_message.is_some(), i == 0, "the upload id on the first message only");
            let Some(Data::ChecksummedData(data)) = &message.data else { panic!("no data in {i}") };
            assert_eq!(&data.content[..], &whole[start as usize..end as usize], "message {i}'s bytes");
            assert_eq!(data.crc32c, Some(crc_of(start, end)));
            let (flushes, finishes) = (i == 1, i == 2);
            assert_eq!((message.flush, message.state_lookup, message.finish_write), (flushes, flushes, finishes));
            let object_crc = message.object_checksums.as_ref().and_then(|c| c.crc32c);
            assert_eq!(object_crc, finishes.then(|| crc_of(0, total)));
        }
        // Two chunks a message (head, then content): progress moves when a content is taken.
        assert_eq!(taken, [0, 2 * MIB, 2 * MIB, 4 * MIB, 4 * MIB, total]);
        assert!(progress.last_byte().is_some());
    }
}
