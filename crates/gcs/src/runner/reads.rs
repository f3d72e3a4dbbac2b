//! Reads. The download workload: the objects to read are uploaded once
//! before the rounds (untimed, over the first transport) and deleted with
//! the rest at cleanup; each round then reads every one of them at once over
//! one transport, whole or a seeded random range of each. w1r3 reads what
//! each round has just written, three passes in one measured round.

use super::delivered::Delivered;
use super::{Runner, Stop};
use crate::config::TransportKind;
use crate::payload::Payload;
use crate::stats::{ObjectSample, Operation};
use crate::transport::download::{ByteRange, DownloadOutcome, DownloadRequest, ListedObject};
use crate::transport::ranges::{RangeTimes, RangesRequest, plan_ranges};
use crate::transport::{Phases, Progress, Uploader, object_name};
use engine::events::RunEvent;
use engine::report::plural;

/// What one pass of reads came to.
struct PassRead {
    /// When its last read ended, in run seconds.
    end_s: f64,
    /// Bytes of the reads that finished whole.
    bytes: u64,
    all_ok: bool,
    stop: Option<Stop>,
    paced: Option<engine::open_loop::PacedRound>,
}
use std::sync::Arc;
use tokio::task::JoinSet;

/// Where a read of `size` bytes starts in an object of `object_size`: a
/// multiple of `size` (as the C++ client's benchmarks align them), drawn
/// from `seed`.
pub fn range_at(seed: u64, object_size: u64, size: u64) -> ByteRange {
    let slots = (object_size / size.max(1)).max(1);
    // A seed per read, the same for the same seed.
    let z = units::splitmix64(seed);
    ByteRange { offset: (z % slots) * size, len: size.min(object_size) }
}

impl Runner {
    /// The objects the rounds read, one per concurrent reader: uploaded now
    /// (deleted at cleanup), or with `--read-prefix` the first ones that
    /// exist under it, by name (read only, never deleted).
    pub(super) async fn prepare_reads(&mut self, payload: &Payload) -> Option<Stop> {
        let kind = *self.config.transports.first()?;
        let uploader = self.connected.uploader(kind)?.clone();
        if let Some(prefix) = self.config.read_prefix.clone() {
            return match uploader.list(&prefix, self.config.concurrency as usize).await {
                Ok(listed) if !listed.is_empty() => {
                    if listed.len() < self.config.concurrency as usize {
                        let note =
                            format!("only {} under {prefix}: each round reads those", plural(listed.len(), "object"));
                        self.emit(RunEvent::Note(note)).await;
                    }
                    self.read_set = listed;
                    None
                }
                Ok(_) => {
                    self.cannot_read(format!(
                        "there are no objects under --read-prefix {prefix} in bucket {}: give a prefix that holds objects, or leave --read-prefix out to read objects the run uploads",
                        self.config.bucket
                    ))
                    .await
                }
                Err(error) => {
                    self.cannot_read(format!(
                        "could not list --read-prefix {prefix}: {}",
                        error.explained(&self.config.bucket)
                    ))
                    .await
                }
            };
        }
        let names: Vec<String> = (0..self.config.concurrency)
            .map(|worker| object_name(&self.config.prefix, &self.run_id, kind, "read-set", worker))
            .collect();
        self.emit(RunEvent::Note(format!("uploading {} to read (not timed)", plural(names.len(), "object")))).await;
        let (mut results, stop, _) =
            self.upload_batch(&uploader, None, names, payload, Delivered::start(uploader.peer_port())).await;
        results.sort_by_key(|(worker, ..)| *worker);
        let mut failed = None;
        for (_, _, _, result, _) in results {
            match result {
                Ok(super::Stored { object, .. }) => {
                    self.ledger.add(&object.name);
                    self.created.push((kind, object.clone()));
                    self.read_set.push(ListedObject { object, size: payload.size() });
                }
                Err(error) => failed = Some(error),
            }
        }
        match failed {
            Some(error) => self.cannot_read(format!("could not upload the objects to read: {error}")).await,
            None => stop,
        }
    }

    async fn cannot_read(&mut self, why: String) -> Option<Stop> {
        // Said as why the run stopped where it did, with the report.
        self.stopped_because = Some(why);
        self.setup_failed = true;
        Some(Stop::FailFast)
    }

    /// Bytes one read of each object moves, by reader: the object, or its range.
    pub(super) fn read_sizes(&self) -> Vec<u64> {
        let range = self.config.range_size;
        let read = |size: u64| match &self.config.ranges {
            Some(plan) => plan.bytes_per_read(range, size),
            None if range > 0 => range.min(size),
            None => size,
        };
        self.read_set.iter().map(|o| read(o.size)).collect()
    }

    /// Reads every object of the read set `passes` times over one
    /// transport (one batch at a time, all measured as one round).
    pub(super) async fn measure_read_round(
        &mut self,
        kind: TransportKind,
        round: u32,
        seed: u64,
        passes: u32,
    ) -> Option<Stop> {
        let reader = self.connected.uploader(kind)?.clone();
        let key = (kind, Operation::Download);
        let meter = self.start_meter(key, reader.peer_port());
        let round_start = meter.start_s;
        self.emit(RunEvent::RoundStarted { transport: kind, round: Some(round), at_s: round_start }).await;
        let sizes = self.read_sizes();
        let pass_bytes: u64 = sizes.iter().sum();
        let (mut round_end, mut bytes, mut all_ok, mut stop) = (round_start, 0, true, None);
        let mut paced: Option<engine::open_loop::PacedRound> = None;
        for pass in 0..passes {
            let done_before = pass_bytes * u64::from(pass);
            let total = pass_bytes * u64::from(passes);
            let read = self.read_pass(&reader, round, seed, pass, (done_before, total)).await;
            round_end = round_end.max(read.end_s);
            bytes += read.bytes;
            all_ok &= read.all_ok;
            stop = read.stop;
            match (&mut paced, read.paced) {
                (Some(round), Some(pass)) => round.absorb(pass),
                (round, pass) => *round = round.take().or(pass),
            }
            if stop.is_some() || !all_ok {
                break;
            }
        }
        let mut metered = self.stop_meter(meter);
        // The bytes TCP sent again on a read are the server's: this side
        // cannot count them, and its own (requests, ACKs) are not the data.
        metered.retransmitted_bytes = 0;
        metered.paced = paced;
        self.record_round(key, round, metered, round_end, bytes, all_ok, stop).await
    }

    /// One read of each object of the read set at once (pass `pass` of a
    /// round), each read recorded as it finished.
    async fn read_pass(
        &mut self,
        reader: &Arc<dyn Uploader>,
        round: u32,
        seed: u64,
        pass: u32,
        progress: (u64, u64),
    ) -> PassRead {
        let kind = reader.kind();
        let sizes = self.read_sizes();
        let counters: Vec<Arc<Progress>> = sizes.iter().map(|_| Arc::new(Progress::default())).collect();
        let mut tasks = JoinSet::new();
        // Both transports' pass of round N get the same arrival schedule.
        let seed_of_pass = (u64::from(round) + 1) | (u64::from(pass) << 32);
        let (paced, gates) =
            super::paced::gates(self.config.open_loop.as_ref(), sizes.len(), seed_of_pass, self.clock());
        for ((worker, listed), gate) in self.read_set.iter().enumerate().zip(gates) {
            // The same seed, round, pass and reader give both transports the same range.
            let seed = seed ^ (u64::from(round) << 32) ^ (u64::from(pass) << 48) ^ worker as u64;
            let read = self.read_task(reader, listed, seed, counters[worker].clone());
            tasks.spawn(super::paced::timed(gate, worker as u32, self.clock(), read));
        }
        let (results, stop) = self.collect(kind, Some(round), tasks, &counters, progress, &sizes, None).await;
        let settled = super::paced::settle(paced, results, sizes.len());
        let (results, intended) = (settled.results, settled.intended_s);
        let all_ok = results.len() == settled.expected;
        let mut read = PassRead { end_s: 0.0, bytes: 0, all_ok, stop, paced: settled.paced };
        for (worker, start, elapsed, result, recovery) in results {
            read.end_s = read.end_s.max(start + elapsed);
            let expected = sizes[worker as usize];
            let (result, ranges) = match result {
                Ok((outcome, ranges)) => (Ok(outcome), ranges),
                Err(error) => (Err(error), None),
            };
            let (ok, error, outcome) = judged(result, expected);
            if let Some(error) = &error {
                read.all_ok = false;
                // Counted from 1, as rounds are (the CSV's worker column is the 0-based index).
                let line = format!(
                    "{} round {} download {} of {} failed: {error}",
                    kind.name(),
                    round + 1,
                    worker + 1,
                    sizes.len()
                );
                self.emit(RunEvent::Note(line)).await;
            } else {
                read.bytes += outcome.bytes;
            }
            let error_kind = error.as_ref().map(|e| e.kind.clone());
            let sample = ObjectSample {
                host: engine::timeline::this_host().to_string(),
                transport: kind,
                operation: Operation::Download,
                round,
                worker,
                object: self.read_set[worker as usize].object.name.clone(),
                bytes: expected,
                start_s: start,
                elapsed_s: elapsed,
                ok,
                error: error.map(|e| e.said),
                error_kind,
                phases: Phases { session_s: None, transfer_s: outcome.transfer_s, finalize_s: 0.0 },
                retries: recovery.retries,
                resumes: recovery.resumes,
                resent_bytes: recovery.resent_bytes,
                retried_after: recovery.retried_after,
                first_byte_s: ok.then_some(outcome.first_byte_s),
                unchecked: ok && outcome.unchecked,
                intended_s: intended[worker as usize],
                ranges: ranges.filter(|_| ok),
                flushes: None,
                read_back: None,
            };
            self.record_item(sample).await;
        }
        read
    }

    /// One reader's read of its object this pass: the whole object, one
    /// range of it, or (ranges workload) its ranges all at once, with each
    /// range's times.
    fn read_task(
        &self,
        reader: &Arc<dyn Uploader>,
        listed: &ListedObject,
        seed: u64,
        progress: Arc<Progress>,
    ) -> impl Future<Output = Result<(DownloadOutcome, Option<Vec<RangeTimes>>), super::Failed>> + Send + 'static {
        let (reader, bucket, range_size) = (reader.clone(), self.config.bucket.clone(), self.config.range_size);
        let (object, check_crc32c, plan) =
            (listed.object.clone(), self.checksum(reader.kind()), self.config.ranges.clone());
        let size = listed.size;
        async move {
            let failed = |e: crate::transport::TransportError| super::Failed::of(&e, &bucket);
            let Some(plan) = plan else {
                let range = (range_size > 0).then(|| range_at(seed, size, range_size));
                let request = DownloadRequest { object, range, check_crc32c, progress };
                return reader.download(request).await.map(|outcome| (outcome, None)).map_err(failed);
            };
            let ranges = plan_ranges(seed, size, &plan.sizes.each(range_size, plan.per_object), plan.sequential);
            let outcome = reader.read_ranges(RangesRequest { object, ranges, check_crc32c, progress }).await;
            let outcome = outcome.map_err(failed)?;
            let first_byte_s = outcome.first_byte_s();
            let whole = DownloadOutcome {
                bytes: outcome.bytes,
                first_byte_s,
                transfer_s: outcome.last_byte_s() - first_byte_s,
                unchecked: false,
            };
            Ok((whole, Some(outcome.ranges)))
        }
    }

    fn checksum(&self, kind: TransportKind) -> bool {
        match kind {
            TransportKind::Json => self.config.json_checksum,
            TransportKind::Grpc | TransportKind::GrpcReadObject => self.config.grpc_checksum,
        }
    }
}

/// A read's result against the object's size: a short read is a failure.
fn judged(
    result: Result<DownloadOutcome, super::Failed>,
    expected: u64,
) -> (bool, Option<super::Failed>, DownloadOutcome) {
    match result {
        Ok(outcome) if outcome.bytes == expected => (true, None, outcome),
        Ok(outcome) => {
            let said = format!("read {} bytes of {expected}", outcome.bytes);
            (false, Some(super::Failed::short("short read", said)), outcome)
        }
        Err(error) => (false, Some(error), DownloadOutcome::nothing()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_aligned_inside_the_object_and_follow_the_seed() {
        for seed in 0..200 {
            let range = range_at(seed, 10 << 20, 1 << 20);
            assert_eq!(range.offset % (1 << 20), 0);
            assert!(range.offset + range.len <= 10 << 20);
            assert_eq!(range, range_at(seed, 10 << 20, 1 << 20), "the same seed, the same range");
        }
        let offsets: std::collections::BTreeSet<u64> =
            (0..200).map(|s| range_at(s, 10 << 20, 1 << 20).offset).collect();
        assert_eq!(offsets.len(), 10, "every slot is drawn");
        assert_eq!(range_at(7, 100, 100), ByteRange { offset: 0, len: 100 }, "a range as large as the object");
    }
}
