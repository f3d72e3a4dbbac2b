//! gRPC `BidiReadObject`: all of a read's ranges on one stream, up to 100
//! per message (GCS's limit), tagged with their index as `read_id`, pinned
//! to the object's generation. Each piece's crc32c is checked when
//! checksums are on, each range's pieces must arrive in order, and every
//! range must end whole. A stream that breaks fails the read: resuming the
//! ranges left with the read handle is not done here.

use super::grpc::GrpcTransport;
use super::grpc_stream::status_error;
use super::ranges::{RangeTimes, RangesOutcome, RangesRequest};
use super::{TransportError, stall_guard};
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
        let started = Instant::now();
        let spec = pb::BidiReadObjectSpec {
            bucket: self.bucket_resource(),
            object: request.object.name.clone(),
            generation: request.object.generation,
            ..Default::default()
        };
        let ranges: Vec<pb::ReadRange> = (request.ranges.iter().enumerate())
            .map(|(id, r)| pb::ReadRange {
                read_offset: r.offset as i64,
                read_length: r.len as i64,
                read_id: id as i64,
            })
            .collect();
        let mut messages: Vec<pb::BidiReadObjectRequest> = (ranges.chunks(RANGES_PER_MESSAGE))
            .map(|chunk| pb::BidiReadObjectRequest { read_object_spec: None, read_ranges: chunk.to_vec() })
            .collect();
        if messages.is_empty() {
            messages.push(pb::BidiReadObjectRequest::default());
        }
        messages[0].read_object_spec = Some(spec);
        // All of them at once: the request side closes, the answers go on.
        let call = self.with_metadata(futures::stream::iter(messages)).await?;
        let mut answers = self.client().bidi_read_object(call).await.map_err(status_error)?.into_inner();
        let mut tally = Tally::new(&request);
        while let Some(answer) = answers.message().await.map_err(status_error)? {
            for entry in answer.object_data_ranges {
                tally.take(entry, started)?;
            }
            request.progress.advance_to(tally.bytes);
        }
        tally.finish()
    }
}

/// What has arrived of each range.
struct Tally<'a> {
    request: &'a RangesRequest,
    received: Vec<u64>,
    times: Vec<Option<RangeTimes>>,
    ended: Vec<bool>,
    bytes: u64,
}

impl<'a> Tally<'a> {
    fn new(request: &'a RangesRequest) -> Self {
        let n = request.ranges.len();
        Self { request, received: vec![0; n], times: vec![None; n], ended: vec![false; n], bytes: 0 }
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
            && sent != crc32c::crc32c(&data.content)
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
            if !self.ended[id] || self.received[id] != range.len {
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
