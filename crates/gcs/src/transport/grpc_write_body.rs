//! A BidiWriteObject stream's request body: each message made when HTTP/2
//! asks for the next chunk, from the payload's own bytes, as JSON's
//! `PayloadBody` makes its slices. The writer hands over a range at a time
//! (a chunk, ending in a flush or in finish_write) and waits for the
//! server's answer to it.
//!
//! Each message's crc32c is worked out as the message is made, as Google's
//! gRPC clients do, and folded into the object's, which goes with
//! finish_write; nothing waits for a pass before the first message, as
//! JSON's one request must (its checksum goes in its headers). A pass over
//! the whole range first cost the same CPU, within this project's VM's
//! scatter (docs/performance.md).
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
    /// A range that ends at the object's end ends with finish_write.
    pub end: u64,
    /// The crc32c of the object's bytes before `start`, when the range does
    /// not carry on from the one before (a stream's first range, or a
    /// resend from what the server kept); `None` carries on.
    pub crc_before: Option<u32>,
}

pub struct WriteBody {
    payload: Payload,
    progress: Arc<Progress>,
    ranges: mpsc::Receiver<RangeToSend>,
    sending: Option<Sending>,
    /// Whether messages carry crc32c (each its own, the last the object's).
    checksum: bool,
    /// crc32c of the object's bytes before the next message.
    crc: u32,
}

/// Where the body is in the range it is sending.
struct Sending {
    range: RangeToSend,
    /// Where the next message starts.
    offset: u64,
    /// A message's content, to go after its head.
    content: Option<Bytes>,
}

impl WriteBody {
    /// The stream ends when the writer drops its sender.
    pub fn new(payload: Payload, progress: Arc<Progress>, ranges: mpsc::Receiver<RangeToSend>, checksum: bool) -> Self {
        Self { payload, progress, ranges, sending: None, checksum, crc: 0 }
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
        let finish = last_of_range && range.end == self.payload.size();
        let crc32c = self.checksum.then(|| gcs_protocol::crc::crc32c(&content));
        if let Some(crc) = crc32c {
            self.crc = gcs_protocol::crc::combine(self.crc, crc, content.len() as u64);
        }
        let object_crc = crc32c.map(|_| self.crc).filter(|_| finish);
        let message = pb::BidiWriteObjectRequest {
            first_message: range.first.take(),
            write_offset: sending.offset as i64,
            data: Some(Data::ChecksummedData(pb::ChecksummedData { content, crc32c })),
            finish_write: finish,
            flush: last_of_range && !finish,
            state_lookup: last_of_range && !finish,
            object_checksums: object_crc.map(|crc| pb::ObjectChecksums { crc32c: Some(crc), ..Default::default() }),
            ..Default::default()
        };
        let (head, content) = super::grpc_frame::frame(message);
        sending.offset += content.len() as u64;
        sending.content = Some(content);
        Some(head)
    }

    /// The content after its head, counted as sent as hyper takes it.
    fn next_content(&mut self) -> Option<Bytes> {
        let sending = self.sending.as_mut()?;
        let content = sending.content.take()?;
        self.progress.advance_to(sending.offset);
        if sending.offset == self.payload.size() {
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
                Some(range) => {
                    self.crc = range.crc_before.unwrap_or(self.crc);
                    self.sending = Some(Sending { offset: range.start, range, content: None });
                }
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

    /// Takes chunks until the body waits for the next range, noting after
    /// each what progress says (bytes, and whether the last byte is marked).
    fn take_ready(body: &mut WriteBody, progress: &Progress, chunks: &mut Vec<Bytes>, seen: &mut Vec<(u64, bool)>) {
        loop {
            match futures::FutureExt::now_or_never(body.frame()) {
                Some(Some(frame)) => chunks.push(frame.unwrap().into_data().unwrap()),
                Some(None) => panic!("the body ended before the writer was done"),
                None => return,
            }
            seen.push((progress.bytes(), progress.last_byte().is_some()));
        }
    }

    #[tokio::test]
    async fn two_ranges_go_as_messages_of_the_payloads_own_bytes_and_progress_follows_what_is_taken() {
        // 5 MiB + 3 bytes, the whole object in the pool: a chunk of 3 MiB
        // (flushed) and the rest (finished, carrying on from the first's
        // crc32c); messages end on 2 MiB boundaries and at each range's end.
        let total = 5 * MIB + 3;
        let payload = Payload::new(total, 11);
        let whole = crate::payload::random_bytes(total as usize, 11);
        let bounds = [(0, 2 * MIB), (2 * MIB, 3 * MIB), (3 * MIB, 4 * MIB), (4 * MIB, total)];
        let progress = Arc::new(Progress::default());
        let (tx, rx) = mpsc::channel(1);
        let mut body = WriteBody::new(payload.clone(), progress.clone(), rx, true);
        let first = Some(FirstMessage::UploadId("session".into()));
        let ranges = [
            RangeToSend { first, start: 0, end: 3 * MIB, crc_before: Some(0) },
            RangeToSend { first: None, start: 3 * MIB, end: total, crc_before: None },
        ];
        let (mut chunks, mut seen) = (Vec::new(), Vec::new());
        for range in ranges {
            tx.send(range).await.unwrap();
            take_ready(&mut body, &progress, &mut chunks, &mut seen);
        }
        drop(tx);
        let end = futures::FutureExt::now_or_never(body.frame()).expect("the body ends when the writer is done");
        assert!(end.is_none());

        // Two chunks a message (head, then content), the content the payload's own memory.
        assert_eq!(chunks.len(), 2 * bounds.len());
        for (content, (start, _)) in chunks.iter().skip(1).step_by(2).zip(bounds) {
            assert_eq!(content.as_ptr(), payload.slice(start, 1).as_ptr(), "not copied");
        }
        let sent: Vec<u8> = chunks.iter().flat_map(|chunk| chunk.to_vec()).collect();
        let messages = messages(&sent);
        assert_eq!(messages.len(), bounds.len());
        for (i, (message, (start, end))) in messages.iter().zip(bounds).enumerate() {
            assert_eq!(message.write_offset, start as i64);
            assert_eq!(message.first_message.is_some(), i == 0, "the upload id on the first message only");
            let Some(Data::ChecksummedData(data)) = &message.data else { panic!("no data in {i}") };
            assert_eq!(&data.content[..], &whole[start as usize..end as usize], "message {i}'s bytes");
            assert_eq!(data.crc32c, Some(crc32c::crc32c(&whole[start as usize..end as usize])), "message {i}'s crc32c");
            let (flushes, finishes) = (end == 3 * MIB, end == total);
            assert_eq!((message.flush, message.state_lookup, message.finish_write), (flushes, flushes, finishes));
            let sent_object_crc = message.object_checksums.as_ref().and_then(|c| c.crc32c);
            assert_eq!(sent_object_crc, finishes.then(|| crc32c::crc32c(&whole)), "message {i}");
        }
        // Progress moves when a content is taken; the last byte is marked with the last.
        let said: Vec<u64> = [0, 2, 2, 3, 3, 4, 4].iter().map(|m| m * MIB).chain([total]).collect();
        let marked = [false, false, false, false, false, false, false, true];
        assert_eq!(seen, said.into_iter().zip(marked).collect::<Vec<_>>());
    }

    #[tokio::test]
    async fn without_checksums_no_message_carries_one() {
        let total = 3 * MIB;
        let progress = Arc::new(Progress::default());
        let (tx, rx) = mpsc::channel(1);
        let mut body = WriteBody::new(Payload::new(total, 5), progress.clone(), rx, false);
        let range = RangeToSend { first: None, start: 0, end: total, crc_before: Some(0) };
        tx.send(range).await.unwrap();
        let (mut chunks, mut seen) = (Vec::new(), Vec::new());
        take_ready(&mut body, &progress, &mut chunks, &mut seen);
        let sent: Vec<u8> = chunks.iter().flat_map(|chunk| chunk.to_vec()).collect();
        let messages = messages(&sent);
        assert_eq!(messages.iter().map(|m| m.write_offset).collect::<Vec<_>>(), [0, 2 * MIB as i64]);
        for message in &messages {
            let Some(Data::ChecksummedData(data)) = &message.data else { panic!("no data") };
            assert_eq!((data.crc32c, &message.object_checksums), (None, &None));
        }
        assert!(messages[1].finish_write);
    }

    #[tokio::test]
    async fn a_resend_starts_from_the_crc32c_it_is_given_and_the_object_crc32c_covers_every_byte() {
        // 4 MiB + 1: the first range's two messages go, the server keeps
        // 1 MiB of them, and the writer resends from there with the crc32c
        // of that first MiB; the object's crc32c is then the whole object's,
        // not one that counts the resent MiB twice.
        let total = 4 * MIB + 1;
        let whole = crate::payload::random_bytes(total as usize, 3);
        let progress = Arc::new(Progress::default());
        let (tx, rx) = mpsc::channel(1);
        let mut body = WriteBody::new(Payload::new(total, 3), progress.clone(), rx, true);
        let kept_crc = crc32c::crc32c(&whole[..MIB as usize]);
        let ranges = [
            RangeToSend { first: None, start: 0, end: 3 * MIB, crc_before: Some(0) },
            RangeToSend { first: None, start: MIB, end: total, crc_before: Some(kept_crc) },
        ];
        let (mut chunks, mut seen) = (Vec::new(), Vec::new());
        for range in ranges {
            tx.send(range).await.unwrap();
            take_ready(&mut body, &progress, &mut chunks, &mut seen);
        }
        let sent: Vec<u8> = chunks.iter().flat_map(|chunk| chunk.to_vec()).collect();
        let messages = messages(&sent);
        let offsets: Vec<i64> = messages.iter().map(|m| m.write_offset).collect();
        assert_eq!(offsets, [0, 2 * MIB, MIB, 2 * MIB, 4 * MIB].map(|o| o as i64));
        let Some(Data::ChecksummedData(resent)) = &messages[2].data else { panic!("no data in the resend") };
        assert_eq!(&resent.content[..], &whole[MIB as usize..2 * MIB as usize], "the second MiB, sent again");
        assert_eq!(resent.crc32c, Some(crc32c::crc32c(&whole[MIB as usize..2 * MIB as usize])));
        let last = messages.last().unwrap();
        assert!(last.finish_write);
        let object_crc = last.object_checksums.as_ref().and_then(|c| c.crc32c);
        assert_eq!(object_crc, Some(crc32c::crc32c(&whole)));
        assert!(messages[..4].iter().all(|m| m.object_checksums.is_none()), "only finish_write carries the object's");
    }
}
