//! The untimed warmup: an upload per worker per transport, all at once (so
//! that every connection a round uses is open), deleted at once; and for
//! the download workload one read of each object to read per transport, so
//! that the first timed round finds its connections open and (gRPC) its
//! adaptive receive window grown, as every later round does.

use super::delivered::Delivered;
use super::{Runner, Stop};
use crate::payload::Payload;
use crate::transport::download::DownloadRequest;
use crate::transport::{Progress, object_name};
use engine::events::RunEvent;
use std::sync::Arc;
use tokio::task::JoinSet;

impl Runner {
    /// An untimed upload per worker per transport, at once, deleted at once.
    pub(super) async fn warm_up(&mut self, payload: &Payload) -> Option<Stop> {
        for kind in self.config.transports.clone() {
            let Some(uploader) = self.connected.uploader(kind).cloned() else {
                continue;
            };
            let names = (0..self.config.concurrency)
                .map(|worker| object_name(&self.config.prefix, &self.run_id, kind, "warmup", worker))
                .collect();
            let (results, stop, _) =
                self.upload_batch(&uploader, None, names, payload, Delivered::start(uploader.peer_port())).await;
            for (_, _, _, result, _) in results {
                match result {
                    Ok(super::Stored { object, .. }) => {
                        if let Err(error) = uploader.delete(&object).await {
                            self.emit(RunEvent::Note(format!(
                                "could not delete warmup object {}: {error}",
                                object.name
                            )))
                            .await;
                            self.ledger.add(&object.name);
                            self.created.push((kind, object));
                        }
                    }
                    Err(error) => self.emit(RunEvent::Note(format!("{} warmup failed: {error}", kind.name()))).await,
                }
            }
            if stop.is_some() {
                return stop;
            }
        }
        None
    }

    /// One untimed read of each object of the read set, per transport.
    pub(super) async fn warm_up_reads(&mut self) -> Option<Stop> {
        let sizes: Vec<u64> = self.read_set.iter().map(|o| o.size).collect();
        for kind in self.config.transports.clone() {
            let Some(reader) = self.connected.uploader(kind).cloned() else {
                continue;
            };
            let counters: Vec<Arc<Progress>> = sizes.iter().map(|_| Arc::new(Progress::default())).collect();
            let mut tasks = JoinSet::new();
            for (worker, listed) in self.read_set.iter().enumerate() {
                let request = DownloadRequest {
                    object: listed.object.clone(),
                    range: None,
                    check_crc32c: false,
                    progress: counters[worker].clone(),
                };
                let reader = reader.clone();
                tasks.spawn(async move { (worker as u32, 0.0, 0.0, reader.download(request).await) });
            }
            self.emit(RunEvent::RoundStarted { transport: kind, round: None, at_s: self.at_s() }).await;
            let (results, stop) =
                self.collect(kind, None, tasks, &counters, (0, sizes.iter().sum()), &sizes, None).await;
            for (_, _, _, result, _) in results {
                if let Err(error) = result {
                    self.emit(RunEvent::Note(format!("{} warmup read failed: {error}", kind.name()))).await;
                }
            }
            if stop.is_some() {
                return stop;
            }
        }
        None
    }
}
