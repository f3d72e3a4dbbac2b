use super::*;

fn spec(name: &str, if_generation_match: Option<i64>) -> NewObject {
    NewObject {
        bucket: "bkt".into(),
        name: name.into(),
        content_type: "application/octet-stream".into(),
        if_generation_match,
        expected_crc32c: None,
        expected_size: None,
        md5: None,
    }
}

fn ingest(bytes: &[u8]) -> Ingest {
    let mut ingest = Ingest::new(true);
    ingest.push(bytes);
    ingest
}

#[test]
fn generation_zero_refuses_an_existing_object() {
    let store = Store::new(false, Duration::from_secs(60));
    store.create_bucket("bkt").unwrap();
    store.finalize(&spec("a", Some(0)), ingest(b"x")).unwrap();
    let again = store.finalize(&spec("a", Some(0)), ingest(b"y"));
    assert!(matches!(again, Err(StoreError::Precondition(_))));
}

#[test]
fn delete_only_removes_the_named_generation() {
    let store = Store::new(false, Duration::from_secs(60));
    store.create_bucket("bkt").unwrap();
    let object = store.finalize(&spec("a", None), ingest(b"x")).unwrap();
    assert!(matches!(store.delete("bkt", "a", Some(object.generation + 1)), Err(StoreError::Precondition(_))));
    store.delete("bkt", "a", Some(object.generation)).unwrap();
    assert_eq!(store.object_count(), 0);
}

#[test]
fn a_wrong_checksum_creates_nothing() {
    let store = Store::new(false, Duration::from_secs(60));
    store.create_bucket("bkt").unwrap();
    let mut bad = spec("a", None);
    bad.expected_crc32c = Some(1);
    assert!(matches!(store.finalize(&bad, ingest(b"x")), Err(StoreError::Checksum(_))));
    assert_eq!(store.object_count(), 0);
}

#[test]
fn idle_sessions_expire() {
    let store = Store::new(false, Duration::ZERO);
    store.create_bucket("bkt").unwrap();
    store.start_session(spec("a", None)).unwrap();
    store.start_session(spec("b", None)).unwrap();
    assert_eq!(store.session_count(), 1, "the first expired when the second started");
}
