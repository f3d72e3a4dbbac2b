//! gRPC `BidiReadObject`: all of a read's ranges on one stream, up to 100
//! per message (GCS's limit), tagged with their index as `read_id`, pinned
//! to the object's generation. Each piece's crc32c is checked when
//! checksums are on, each range's pieces must arrive in order, and every
//! range must end whole. A stream that breaks (a reset, a server error) is
//! opened again, as the Python and Go clients do, with the read handle the
//! first one gave and only what is left of each unfinished range; a
//! checksum mismatch is never retried.

use super::grpc::GrpcTransport;
use super::grpc_stream::status_error;
use super::ranges::{RangeTimes, RangesOutcome, RangesRequest};
use super::{TransportError, back_off_or_fail, stall_guard};
use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
use std::time::Instant;

/// GCS takes at most this many ranges in one message.
const RANGES_PER_MESSAGE: usize = 100;

impl GrpcTransport {
    pub(super) async fn read_ranges_bidi(&self, request: RangesRequest) -> Result<RangesOutcome, TransportError> {
        let progress = request.progress.clone();
        stall_guard(&progress, self.settings().request_timeout, self.bidi_read(request)).await
    }

    async fn bidi_read(&self, request: RangesRequest) -> Result<RangesOutcome, TransportError> {
        let (started, mut retries) = (Instant::now(), 0);
        let mut tally = Tally::new(&request);
        loop {
            match self.bidi_attempt(&mut tally, started).await {
                Ok(()) => return tally.finish(),
                Err(error) => {
                    back_off_or_fail(&self.settings().retry, &request.progress, &mut retries, started, error).await?;
                    request.progress.note_resume();
                }
            }
        }
    }

    /// One stream: what is left of every unfinished range, then its answers.
    async fn bidi_attempt(&self, tally: &mut Tally<'_>, started: Instant) -> Result<(), TransportError> {
        let spec = pb::BidiReadObjectSpec {
            bucket: self.bucket_resource(),
            object: tally.request.object.name.clone(),
            generation: tally.request.object.generation,
            read_handle: tally.handle.clone(),
            ..Default::default()
        };
        let left = tally.left();
        let mut messages: Vec<pb::BidiReadObjectRequest> = (left.chunks(RANGES_PER_MESSAGE))
            .map(|chunk| pb::BidiReadObjectRequest { read_object_spec: None, read_ranges: chunk.to_vec() })
            .collect();
        if messages.is_empty() {
            messages.push(pb::BidiReadObjectRequest::default());
        }
        messages[0].read_object_spec = Some(spec);
        // All of them at once: the request side closes, the answers go on.
        let call = self.with_metadata(futures::stream::iter(messages)).await?;
        let mut answers = self.client().bidi_read_object(call).await.map_err(status_error)?.into_inner();
        while let Some(answer) = answers.message().await.map_err(status_error)? {
            tally.handle = answer.read_handle.or(tally.handle.take());
            for entry in answer.object_data_ranges {
                tally.take(entry, started)?;
            }
            tally.request.progress.advance_to(tally.bytes);
        }
        Ok(())
    }
}

/// What has arrived of each range.
struct Tally<'a> {
    request: &'a RangesRequest,
    received: Vec<u64>,
    times: Vec<Option<RangeTimes>>,
    ended: Vec<bool>,
    bytes: u64,
    /// The handle the server gave, to open a resumed stream with.
    handle: Option<pb::BidiReadHandle>,
}

impl<'a> Tally<'a> {
    fn new(request: &'a RangesRequest) -> Self {
        let n = request.ranges.len();
        Self { request, received: vec![0; n], times: vec![None; n], ended: vec![false; n], bytes: 0, handle: None }
    }

    /// What is left of each unfinished range, under its own read id.
    fn left(&self) -> Vec<pb::ReadRange> {
        (self.request.ranges.iter().enumerate())
            .filter(|(id, r)| !self.ended[*id] && self.received[*id] < r.len)
            .map(|(id, r)| pb::ReadRange {
                read_offset: (r.offset + self.received[id]) as i64,
                read_length: (r.len - self.received[id]) as i64,
                read_id: id as i64,
            })
            .collect()
    }

    fn take(&mut self, entry: pb::ObjectRangeData, started: Instant) -> Result<(), TransportError> {
        let broken = |what: String| Err(TransportError::Protocol(format!("BidiReadObject: {what}")));
        let read_range = entry.read_range.unwrap_or_default();
        let id = read_range.read_id;
        let Some(range) = usize::try_from(id).ok().and_then(|i| self.request.ranges.get(i)) else {
            return broken(format!("a piece for read_id {id}, which was not asked for"));
        };
        let index = id as usize;
        let data = entry.checksummed_data.unwrap_or_default();
        let expected_offset = range.offset + self.received[index];
        if self.ended[index] || read_range.read_offset as u64 != expected_offset {
            return broken(format!("range {id}'s piece at {} is out of order", read_range.read_offset));
        }
        if self.request.check_crc32c
            && let Some(sent) = data.crc32c
            && sent != gcs_protocol::crc::crc32c(&data.content)
        {
            return broken(format!("checksum mismatch in range {id}'s piece at offset {expected_offset}"));
        }
        let now = started.elapsed().as_secs_f64();
        let times = self.times[index].get_or_insert(RangeTimes { first_byte_s: now, complete_s: now });
        times.complete_s = now;
        self.received[index] += data.content.len() as u64;
        self.bytes += data.content.len() as u64;
        self.ended[index] = entry.range_end;
        Ok(())
    }

    fn finish(self) -> Result<RangesOutcome, TransportError> {
        for (id, range) in self.request.ranges.iter().enumerate() {
            // (A range whose last bytes came on a stream that then broke is whole without its end.)
            if self.received[id] != range.len {
                return Err(TransportError::Connection(format!(
                    "BidiReadObject ended with range {id} at {} of {} bytes",
                    self.received[id], range.len
                )));
            }
        }
        let ranges = self.times.into_iter().map(Option::unwrap_or_default).collect();
        Ok(RangesOutcome { bytes: self.bytes, ranges, streams: 1 })
    }
}
