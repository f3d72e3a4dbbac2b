//! An appendable object read back while it grows, as a tailing reader
//! reads it: after each flush is persisted, a second stream (a
//! BidiReadObject of its own, pinned to the object's generation) reads what
//! the flush added, and the flush's time from its first byte until the
//! reader had its bytes is kept. Flushes persisted while a read is out are
//! read together by the next, each timed to the read that brought it.

use super::GrpcTransport;
use crate::transport::download::ByteRange;
use crate::transport::ranges::RangesRequest;
use crate::transport::{CreatedObject, Progress, TransportError};
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc;

/// A flush the server said is persisted: the object's size then, and when
/// the flush's first byte was sent.
pub(super) struct Persisted {
    pub generation: i64,
    pub size: u64,
    pub flush_started: Instant,
}

impl GrpcTransport {
    /// Reads each persisted flush's bytes back until the writer is done
    /// (its sender dropped); a failed read fails the object's write.
    pub(super) async fn read_back(
        &self,
        name: &str,
        mut persisted: mpsc::UnboundedReceiver<Persisted>,
        progress: &Progress,
    ) -> Result<(), TransportError> {
        let mut read = 0;
        while let Some(first) = persisted.recv().await {
            let mut flushes = vec![first];
            while let Ok(more) = persisted.try_recv() {
                flushes.push(more);
            }
            let Some(&Persisted { generation, size, .. }) = flushes.last() else { continue };
            if size > read {
                let request = RangesRequest {
                    object: CreatedObject { name: name.into(), generation },
                    ranges: vec![ByteRange { offset: read, len: size - read }],
                    check_crc32c: self.settings.checksum,
                    progress: Arc::new(Progress::default()),
                };
                let outcome = self.read_ranges_bidi(request).await?;
                if outcome.bytes != size - read {
                    return Err(TransportError::Protocol(format!(
                        "the object read back while appended gave {} bytes of {}",
                        outcome.bytes,
                        size - read
                    )));
                }
                read = size;
            }
            for flush in flushes {
                progress.flush_read_back(flush.flush_started);
            }
        }
        Ok(())
    }
}
