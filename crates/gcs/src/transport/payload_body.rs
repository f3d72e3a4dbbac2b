//! An HTTP body that streams a byte range of the payload as zero-copy slices
//! with an exact length, recording how far it got for the progress ticker.

use super::Progress;
use crate::payload::Payload;
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

pub struct PayloadBody {
    payload: Payload,
    offset: u64,
    end: u64,
    slice_bytes: u64,
    progress: Arc<Progress>,
}

impl PayloadBody {
    pub fn new(payload: Payload, start: u64, end: u64, slice_bytes: u64, progress: Arc<Progress>) -> Self {
        Self { payload, offset: start, end, slice_bytes, progress }
    }
}

impl Body for PayloadBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        if self.offset >= self.end {
            return Poll::Ready(None);
        }
        // The slice ends on the next multiple of slice_bytes, or at the range's end.
        let next = ((self.offset / self.slice_bytes + 1) * self.slice_bytes).min(self.end);
        let slice = self.payload.slice(self.offset, next - self.offset);
        self.offset += slice.len() as u64;
        self.progress.advance_to(self.offset);
        if self.offset == self.end {
            self.progress.mark_last_byte();
        }
        Poll::Ready(Some(Ok(Frame::data(slice))))
    }

    fn is_end_stream(&self) -> bool {
        self.offset >= self.end
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.end - self.offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn streams_exactly_the_range_and_records_progress() {
        let payload = Payload::new(10 * 1024 * 1024, 5);
        let progress = Arc::new(Progress::default());
        let body = PayloadBody::new(payload.clone(), 1000, 5 * 1024 * 1024, 2 * 1024 * 1024, progress.clone());
        assert_eq!(body.size_hint().exact(), Some(5 * 1024 * 1024 - 1000));
        let bytes = body.collect().await.unwrap().to_bytes();
        assert_eq!(bytes.len(), 5 * 1024 * 1024 - 1000);
        assert_eq!(&bytes[..16], &payload.slice(1000, 16)[..]);
        assert_eq!(progress.bytes(), 5 * 1024 * 1024);
        assert!(progress.last_byte().is_some());
    }
}
