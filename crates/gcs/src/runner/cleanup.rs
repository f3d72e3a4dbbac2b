//! The end of a run: uploads cut off by a stop are recovered (sessions
//! cancelled, late objects found), then exactly the objects this run created
//! are deleted, by name and generation.

use super::Runner;
use crate::report::Cleanup;
use engine::events::{Phase, RunEvent};
use futures::StreamExt;
use std::collections::BTreeSet;
use std::time::Duration;

/// Deletes in flight at once during cleanup.
const CLEANUP_PARALLELISM: usize = 16;

/// Objects a run's uploads may pile up before they are deleted between rounds.
pub const DELETE_AS_WE_GO: usize = 4096;

/// The names of the objects of this run that may exist right now: created
/// and not yet deleted, or cut off mid-upload. A second Ctrl-C prints it.
#[derive(Default)]
pub struct Ledger(std::sync::Mutex<BTreeSet<String>>);

impl Ledger {
    pub(super) fn add(&self, name: &str) {
        self.0.lock().unwrap().insert(name.to_string());
    }

    pub(super) fn remove(&self, name: &str) {
        self.0.lock().unwrap().remove(name);
    }

    pub fn names(&self) -> Vec<String> {
        self.0.lock().unwrap().iter().cloned().collect()
    }
}

impl Runner {
    /// Uploads cut off by a stop: their sessions are cancelled, and an object
    /// that completed anyway (its bytes were already on the way) is found by
    /// its exact name, which carries this run's id, within a short grace.
    async fn recover_cut_off(&mut self) {
        const GRACE_MS: [u64; 5] = [0, 100, 300, 600, 1000];
        let (connected, ledger) = (&self.connected, &self.ledger);
        let found = futures::future::join_all(std::mem::take(&mut self.cut_off).into_iter().map(
            |(kind, name, session)| async move {
                let uploader = connected.uploader(kind)?;
                if let Some(session) = session {
                    let _ = uploader.cancel_session(&session).await;
                }
                for wait_ms in GRACE_MS {
                    tokio::time::sleep(Duration::from_millis(wait_ms)).await;
                    if let Ok(Some(object)) = uploader.lookup(&name).await {
                        return Some((kind, object));
                    }
                }
                ledger.remove(&name);
                None
            },
        ))
        .await;
        self.created.extend(found.into_iter().flatten());
    }

    /// Deletes exactly the objects this run created, by name and generation.
    pub(super) async fn clean_up(&mut self) -> Cleanup {
        if self.config.cleanup {
            self.recover_cut_off().await;
        }
        let created = std::mem::take(&mut self.created);
        if !self.config.cleanup {
            let kept = created.iter().map(|(_, o)| o.name.clone()).collect();
            return Cleanup { deleted: 0, left: Vec::new(), kept };
        }
        self.emit(RunEvent::Phase(Phase::CleaningUp)).await;
        let (deleted, left) = self.delete(created, CLEANUP_PARALLELISM).await;
        let (deleted, mut left) = (self.deleted_as_we_went + deleted, left);
        left.splice(0..0, std::mem::take(&mut self.left_as_we_went));
        self.emit(RunEvent::CleanupDone { deleted, left: left.clone() }).await;
        Cleanup { deleted, left, kept: Vec::new() }
    }

    /// A long run's uploads deleted between rounds (untimed) once
    /// `DELETE_AS_WE_GO` have piled up, so that the run keeps no growing list
    /// of them (and a bucket does not fill). Reads keep their objects.
    pub(super) async fn delete_as_we_go(&mut self) {
        let piled = self.created.len() >= DELETE_AS_WE_GO;
        if !piled || !self.config.cleanup || self.config.workload.reads_prepared_objects() {
            return;
        }
        if self.deleted_as_we_went == 0 {
            let said = format!(
                "deleting this run's objects between rounds as it goes (untimed, every {DELETE_AS_WE_GO} objects), so that a long run keeps no list of them"
            );
            self.emit(RunEvent::Note(said)).await;
        }
        let created = std::mem::take(&mut self.created);
        // No more at once than the run's own workers: a delete needing a
        // connection the rounds would not have opened one, and the report's
        // connections are the rounds' (16 were said for --concurrency 8).
        let at_once = (self.config.concurrency as usize).clamp(1, CLEANUP_PARALLELISM);
        let (deleted, left) = self.delete(created, at_once).await;
        self.deleted_as_we_went += deleted;
        self.left_as_we_went.extend(left);
    }

    /// Deletes the objects, by name and generation, `at_once` in flight:
    /// how many went, and the names of those that did not (each said in a note).
    async fn delete(
        &mut self,
        created: Vec<(crate::config::TransportKind, crate::transport::CreatedObject)>,
        at_once: usize,
    ) -> (usize, Vec<String>) {
        let connected = &self.connected;
        let outcomes: Vec<(String, Result<(), String>)> = futures::stream::iter(created)
            .map(|(kind, object)| async move {
                let result = match connected.uploader(kind) {
                    Some(uploader) => uploader.delete(&object).await.map_err(|e| e.to_string()),
                    None => Err("no transport to delete it with".into()),
                };
                (object.name, result)
            })
            .buffer_unordered(at_once)
            .collect()
            .await;
        let mut deleted = 0;
        let mut left = Vec::new();
        for (name, result) in outcomes {
            match result {
                Ok(()) => {
                    self.ledger.remove(&name);
                    deleted += 1;
                }
                Err(error) => {
                    self.emit(RunEvent::Note(format!("could not delete {name}: {error}"))).await;
                    left.push(name);
                }
            }
        }
        (deleted, left)
    }
}
