//! The untimed warmup: one upload per transport, deleted at once.

use super::{Runner, Stop};
use crate::engine::events::RunEvent;
use crate::gcs::payload::Payload;
use crate::gcs::transport::object_name;

impl Runner<'_> {
    /// One untimed upload per transport, deleted at once.
    pub(super) async fn warm_up(&mut self, payload: &Payload) -> Option<Stop> {
        for kind in self.config.transports.clone() {
            let Some(uploader) = self.connected.uploader(kind).cloned() else {
                continue;
            };
            let name = object_name(&self.config.prefix, &self.run_id, kind, "warmup", 0);
            let (results, stop) = self.upload_batch(&uploader, None, vec![name], payload).await;
            for (_, _, _, result, _) in results {
                match result {
                    Ok((object, _)) => {
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
}
