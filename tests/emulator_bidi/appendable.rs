//! Appendable objects: created by a BidiWriteObject whose spec says
//! `appendable`, readable while they grow, taken over by generation,
//! finalized, and deleted unfinalized.

use super::*;

fn appendable_spec(name: &str) -> FirstMessage {
    FirstMessage::WriteObjectSpec(pb::WriteObjectSpec {
        resource: Some(pb::Object { bucket: RESOURCE.into(), name: name.into(), ..Default::default() }),
        appendable: Some(true),
        if_generation_match: Some(0),
        ..Default::default()
    })
}

fn takeover(name: &str, generation: i64) -> FirstMessage {
    FirstMessage::AppendObjectSpec(pb::AppendObjectSpec {
        bucket: RESOURCE.into(),
        object: name.into(),
        generation,
        ..Default::default()
    })
}

/// A write stream: its request side and its answers.
struct WriteStream {
    requests: mpsc::UnboundedSender<pb::BidiWriteObjectRequest>,
    answers: tonic::Streaming<pb::BidiWriteObjectResponse>,
}

impl WriteStream {
    async fn open(
        client: &mut StorageClient<Channel>,
        first: FirstMessage,
    ) -> Result<(Self, pb::Object), tonic::Status> {
        let (requests, outgoing) = mpsc::unbounded();
        requests
            .unbounded_send(pb::BidiWriteObjectRequest { first_message: Some(first), ..Default::default() })
            .unwrap();
        let mut answers = client.bidi_write_object(outgoing).await?.into_inner();
        let opened = answers.message().await?.expect("an appendable write is answered as it opens");
        assert!(opened.write_handle.is_some(), "with a write handle");
        let Some(WriteStatus::Resource(object)) = opened.write_status else { panic!("the object: {opened:?}") };
        Ok((Self { requests, answers }, object))
    }

    /// Sends `data` at `offset` with flush and state_lookup; the persisted size.
    async fn append(&mut self, data: &[u8], offset: usize) -> Result<i64, tonic::Status> {
        let message = pb::BidiWriteObjectRequest { flush: true, state_lookup: true, ..data_message(data, offset) };
        let _ = self.requests.send(message).await;
        match self.answers.message().await?.and_then(|a| a.write_status) {
            Some(WriteStatus::PersistedSize(size)) => Ok(size),
            other => panic!("expected the persisted size, got {other:?}"),
        }
    }
}

async fn read_all(client: &mut StorageClient<Channel>, name: &str) -> (Vec<u8>, pb::Object) {
    let read = pb::ReadObjectRequest { bucket: RESOURCE.into(), object: name.into(), ..Default::default() };
    let mut stream = client.read_object(read).await.unwrap().into_inner();
    let (mut bytes, mut metadata) = (Vec::new(), None);
    while let Some(message) = stream.message().await.unwrap() {
        metadata = metadata.or(message.metadata);
        bytes.extend_from_slice(&message.checksummed_data.unwrap_or_default().content);
    }
    (bytes, metadata.unwrap())
}

#[tokio::test]
async fn an_appendable_object_grows_readably_is_taken_over_and_finalized() {
    let emulator = retaining().await;
    let mut client = client(&emulator).await;
    let name = "append/growing.bin";
    let payload = random_bytes(700 * 1024, 11);
    let (mut writer, created) = WriteStream::open(&mut client, appendable_spec(name)).await.unwrap();
    assert_eq!(created.size, 0);
    assert!(created.generation > 0 && created.finalize_time.is_none(), "created, not finalized: {created:?}");

    assert_eq!(writer.append(&payload[..256 * 1024], 0).await.unwrap(), 256 * 1024);
    let (seen, metadata) = read_all(&mut client, name).await;
    assert!(seen == payload[..256 * 1024], "a reader sees the persisted bytes");
    assert!(metadata.finalize_time.is_none());

    let (mut taker, found) = WriteStream::open(&mut client, takeover(name, created.generation)).await.unwrap();
    assert_eq!(
        (found.size, found.generation),
        (256 * 1024, created.generation),
        "the takeover finds what was persisted"
    );
    let refused = writer.append(&payload[256 * 1024..300 * 1024], 256 * 1024).await.unwrap_err();
    assert_eq!(refused.code(), Code::Aborted, "the first writer was taken over: {refused:?}");

    assert_eq!(taker.append(&payload[256 * 1024..], 256 * 1024).await.unwrap(), payload.len() as i64);
    let finish = pb::BidiWriteObjectRequest {
        finish_write: true,
        object_checksums: Some(pb::ObjectChecksums { crc32c: Some(crc32c::crc32c(&payload)), ..Default::default() }),
        ..Default::default()
    };
    taker.requests.send(finish).await.unwrap();
    let Some(WriteStatus::Resource(finished)) = taker.answers.message().await.unwrap().unwrap().write_status else {
        panic!("finish_write answers with the object")
    };
    assert_eq!((finished.size, finished.generation), (payload.len() as i64, created.generation));
    assert!(finished.finalize_time.is_some());
    let stored = emulator.store().get(BUCKET, name).unwrap();
    assert_eq!((stored.size, stored.crc32c, stored.finalized), (payload.len() as u64, crc32c::crc32c(&payload), true));
    assert!(read_all(&mut client, name).await.0 == payload[..]);

    let late = WriteStream::open(&mut client, takeover(name, created.generation)).await.err().unwrap();
    assert_eq!(late.code(), Code::FailedPrecondition, "a finalized object takes no appends: {late:?}");
}

#[tokio::test]
async fn takeover_needs_the_generation_and_an_unfinalized_object_can_be_deleted() {
    let emulator = retaining().await;
    let mut client = client(&emulator).await;
    let name = "append/abandoned.bin";
    let (mut writer, created) = WriteStream::open(&mut client, appendable_spec(name)).await.unwrap();
    writer.append(&random_bytes(1000, 1), 0).await.unwrap();
    let wrong = WriteStream::open(&mut client, takeover(name, created.generation + 1)).await.err().unwrap();
    assert_eq!(wrong.code(), Code::FailedPrecondition, "{wrong:?}");
    assert_eq!(emulator.store().object_count(), 1, "the unfinalized object exists");
    let delete = pb::DeleteObjectRequest { bucket: RESOURCE.into(), object: name.into(), ..Default::default() };
    client.delete_object(delete).await.unwrap();
    assert_eq!(emulator.store().object_count(), 0);
    let gone = writer.append(&random_bytes(10, 2), 1000).await.unwrap_err();
    assert_eq!(gone.code(), Code::Aborted, "{gone:?}");
}
