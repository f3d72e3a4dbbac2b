//! The emulator's JSON API over real sockets: buckets, the three upload
//! types, resumable sessions, deletes, preconditions, checksums, faults,
//! link shaping and bad requests.

mod common;
use common::*;
use gcs_speed_tui::emulator::EmulatorOptions;
use gcs_speed_tui::emulator::faults::Fault;
use gcs_speed_tui::gcs::payload::random_bytes;
use reqwest::StatusCode;
use serde_json::Value;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn upload_url(base: &str) -> String {
    format!("{base}/upload/storage/v1/b/{BUCKET}/o")
}

async fn media(base: &str, name: &str, data: &[u8], hash: Option<String>) -> reqwest::Response {
    let mut request = http()
        .post(upload_url(base))
        .query(&[("uploadType", "media"), ("name", name), ("ifGenerationMatch", "0")])
        .body(data.to_vec());
    if let Some(hash) = hash {
        request = request.header("x-goog-hash", hash);
    }
    request.send().await.unwrap()
}

/// A media upload carrying `x-goog-emulator-instructions`.
async fn media_with_instructions(
    base: &str,
    name: &str,
    instructions: &str,
    data: Vec<u8>,
) -> reqwest::Result<reqwest::Response> {
    http()
        .post(upload_url(base))
        .query(&[("uploadType", "media"), ("name", name)])
        .header("x-goog-emulator-instructions", instructions)
        .body(data)
        .send()
        .await
}

async fn start_session(base: &str, name: &str) -> String {
    start_session_with(&http(), base, name).await
}

async fn start_session_with(client: &reqwest::Client, base: &str, name: &str) -> String {
    let response =
        client.post(upload_url(base)).query(&[("uploadType", "resumable"), ("name", name)]).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.headers()["location"].to_str().unwrap().to_string()
}

async fn put(session: &str, range: &str, body: Vec<u8>) -> reqwest::Response {
    http().put(session).header("content-range", range).body(body).send().await.unwrap()
}

fn range(response: &reqwest::Response) -> Option<String> {
    response.headers().get("range").map(|v| v.to_str().unwrap().to_string())
}

#[tokio::test]
async fn buckets_are_created_and_looked_up() {
    let emulator = emulator().await;
    let base = emulator.json_url();
    let create =
        || http().post(format!("{base}/storage/v1/b?project=p")).json(&serde_json::json!({"name": "new-bucket"}));
    let created = create().send().await.unwrap();
    assert_eq!(created.status(), StatusCode::OK);
    assert_eq!(created.json::<Value>().await.unwrap()["name"], "new-bucket");
    let again = create().send().await.unwrap();
    assert_eq!(again.status(), StatusCode::CONFLICT);
    let got = http().get(format!("{base}/storage/v1/b/new-bucket")).send().await.unwrap();
    assert_eq!(got.status(), StatusCode::OK);
    let missing = http().get(format!("{base}/storage/v1/b/no-such-bucket")).send().await.unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let body: Value = missing.json().await.unwrap();
    assert_eq!(body["error"]["code"], 404, "the GCS error body shape");
    assert_eq!(body["error"]["errors"][0]["reason"], "notFound");
    assert!(body["error"]["message"].as_str().unwrap().contains("no-such-bucket"));
}

#[tokio::test]
async fn media_uploads_verify_crc32c_and_report_the_object() {
    let emulator = emulator().await;
    let base = emulator.json_url();
    let data = random_bytes(300_000, 1);
    let response = media(&base, "dir/a b.bin", &data, Some(format!("crc32c={}", crc32c_b64(&data)))).await;
    assert_eq!(response.status(), StatusCode::OK);
    let object: Value = response.json().await.unwrap();
    assert_eq!(object["name"], "dir/a b.bin");
    assert_eq!(object["size"], "300000");
    assert_eq!(object["crc32c"], crc32c_b64(&data));
    assert!(object["generation"].as_str().unwrap().parse::<i64>().unwrap() > 0);
    assert!(object["timeCreated"].as_str().unwrap().ends_with('Z'));
    let fetched: Value = http()
        .get(format!("{base}/storage/v1/b/{BUCKET}/o/dir%2Fa%20b.bin"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(fetched["generation"], object["generation"]);
    assert_eq!(emulator.store().checksums_verified.load(std::sync::atomic::Ordering::Relaxed), 1);

    let wrong = media(&base, "bad.bin", &data, Some(format!("crc32c={}", crc32c_b64(b"other")))).await;
    assert_eq!(wrong.status(), StatusCode::BAD_REQUEST);
    assert!(wrong.text().await.unwrap().contains("crc32c"));
    assert!(emulator.store().get(BUCKET, "bad.bin").is_err(), "no object after a checksum mismatch");
}

#[tokio::test]
async fn if_generation_match_zero_refuses_an_existing_name() {
    let emulator = emulator().await;
    let base = emulator.json_url();
    assert_eq!(media(&base, "once", b"1", None).await.status(), StatusCode::OK);
    let again = media(&base, "once", b"2", None).await;
    assert_eq!(again.status(), StatusCode::PRECONDITION_FAILED);
    assert_eq!(again.json::<Value>().await.unwrap()["error"]["errors"][0]["reason"], "conditionNotMet");
}

#[tokio::test]
async fn multipart_uploads_carry_metadata_and_checksums() {
    let emulator = emulator().await;
    let base = emulator.json_url();
    let data = random_bytes(5000, 2);
    let metadata =
        serde_json::json!({"name": "multi.bin", "crc32c": crc32c_b64(&data), "contentType": "application/x-test"});
    let mut body = format!("--BOUNDARY\r\ncontent-type: application/json\r\n\r\n{metadata}\r\n--BOUNDARY\r\ncontent-type: application/octet-stream\r\n\r\n").into_bytes();
    body.extend_from_slice(&data);
    body.extend_from_slice(b"\r\n--BOUNDARY--\r\n");
    let response = http()
        .post(upload_url(&base))
        .query(&[("uploadType", "multipart")])
        .header("content-type", "multipart/related; boundary=BOUNDARY")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let object: Value = response.json().await.unwrap();
    assert_eq!((object["size"].as_str(), object["contentType"].as_str()), (Some("5000"), Some("application/x-test")));
}

#[tokio::test]
async fn resumable_sessions_follow_the_protocol() {
    let emulator = emulator().await;
    let base = emulator.json_url();
    let data = random_bytes(600 * 1024, 3);
    let total = data.len();
    let session = start_session(&base, "resumable.bin").await;

    let query = put(&session, &format!("bytes */{total}"), vec![]).await;
    assert_eq!(query.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(range(&query), None, "no Range while nothing is persisted");

    let first = put(&session, &format!("bytes 0-262143/{total}"), data[..262_144].to_vec()).await;
    assert_eq!(first.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(range(&first).as_deref(), Some("bytes=0-262143"));

    let unaligned = put(&session, "bytes 262144-300000/*", data[262_144..300_001].to_vec()).await;
    assert_eq!(unaligned.status(), StatusCode::BAD_REQUEST, "non-final chunks are 256 KiB multiples");

    // A resend that overlaps what is persisted: the overlap is skipped.
    let overlap = put(&session, "bytes 0-524287/*", data[..524_288].to_vec()).await;
    assert_eq!(range(&overlap).as_deref(), Some("bytes=0-524287"));
    let unknown_total = put(&session, "bytes */*", vec![]).await;
    assert_eq!(range(&unknown_total).as_deref(), Some("bytes=0-524287"));

    let last = http()
        .put(&session)
        .header("content-range", format!("bytes 524288-{}/{total}", total - 1))
        .header("x-goog-hash", format!("crc32c={}", crc32c_b64(&data)))
        .body(data[524_288..].to_vec())
        .send()
        .await
        .unwrap();
    assert_eq!(last.status(), StatusCode::OK);
    let object: Value = last.json().await.unwrap();
    assert_eq!(object["size"], total.to_string());
    assert_eq!(object["crc32c"], crc32c_b64(&data));
    let after = put(&session, &format!("bytes */{total}"), vec![]).await;
    assert_eq!(after.status(), StatusCode::OK, "a finished session answers with the object");
}

#[tokio::test]
async fn gaps_and_bad_ranges_are_refused() {
    let emulator = emulator().await;
    let base = emulator.json_url();
    let session = start_session(&base, "gappy.bin").await;
    let gap = put(&session, "bytes 262144-524287/*", vec![0; 262_144]).await;
    assert_eq!(gap.status(), StatusCode::BAD_REQUEST);
    assert!(gap.text().await.unwrap().contains("only 0 bytes are persisted"));
    for bad in ["bytes 9-1/10", "bits 0-1/2", "bytes 0-1/x", "bytes 0-262143/5"] {
        assert_eq!(put(&session, bad, vec![0; 2]).await.status(), StatusCode::BAD_REQUEST, "{bad}");
    }
    let mismatch =
        http().put(&session).header("content-range", "bytes 0-262143/*").body(vec![0; 10]).send().await.unwrap();
    assert_eq!(mismatch.status(), StatusCode::BAD_REQUEST, "Content-Length disagrees with Content-Range");
    let absurd = put(&session, "bytes 0-262143/18446744073709551615", vec![0; 262_144]).await;
    assert_eq!(absurd.status(), StatusCode::PERMANENT_REDIRECT, "a huge declared total is only a number");
}

#[tokio::test]
async fn cancelled_sessions_are_gone() {
    let emulator = emulator().await;
    let session = start_session(&emulator.json_url(), "cancel.bin").await;
    assert_eq!(emulator.store().session_count(), 1);
    let cancelled = http().delete(&session).send().await.unwrap();
    assert_eq!(cancelled.status().as_u16(), 499);
    assert_eq!(emulator.store().session_count(), 0);
    assert_eq!(put(&session, "bytes */*", vec![]).await.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn deletes_check_the_generation() {
    let emulator = emulator().await;
    let base = emulator.json_url();
    let object: Value = media(&base, "del.bin", b"x", None).await.json().await.unwrap();
    let generation: i64 = object["generation"].as_str().unwrap().parse().unwrap();
    let url = format!("{base}/storage/v1/b/{BUCKET}/o/del.bin");
    let wrong = http().delete(&url).query(&[("ifGenerationMatch", generation + 1)]).send().await.unwrap();
    assert_eq!(wrong.status(), StatusCode::PRECONDITION_FAILED);
    let right = http().delete(&url).query(&[("ifGenerationMatch", generation)]).send().await.unwrap();
    assert_eq!(right.status(), StatusCode::NO_CONTENT);
    assert_eq!(http().delete(&url).send().await.unwrap().status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn retained_bytes_read_back_and_unretained_say_how() {
    let retaining = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let data = random_bytes(70_000, 4);
    media(&retaining.json_url(), "keep.bin", &data, None).await;
    let read = http()
        .get(format!("{}/storage/v1/b/{BUCKET}/o/keep.bin?alt=media", retaining.json_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(read.bytes().await.unwrap(), data);

    let plain = emulator().await;
    media(&plain.json_url(), "gone.bin", &data, None).await;
    let read =
        http().get(format!("{}/storage/v1/b/{BUCKET}/o/gone.bin?alt=media", plain.json_url())).send().await.unwrap();
    assert_eq!(read.status(), StatusCode::NOT_IMPLEMENTED);
    assert!(read.text().await.unwrap().contains("--retain"));
}

#[tokio::test]
async fn header_faults_return_a_status_and_keep_what_arrived() {
    let emulator = emulator().await;
    let base = emulator.json_url();
    let refused = media_with_instructions(&base, "f.bin", "return-503", vec![1; 1000]).await.unwrap();
    assert_eq!(refused.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(emulator.store().get(BUCKET, "f.bin").is_err());

    let session = start_session(&base, "partial.bin").await;
    let cut = http()
        .put(&session)
        .header("content-range", "bytes 0-1048575/*")
        .header("x-goog-emulator-instructions", "return-503-after-256K")
        .body(vec![7; 1 << 20])
        .send()
        .await
        .unwrap();
    assert_eq!(cut.status(), StatusCode::SERVICE_UNAVAILABLE);
    let status = put(&session, "bytes */*", vec![]).await;
    assert_eq!(range(&status).as_deref(), Some("bytes=0-262143"), "the bytes before the fault stay persisted");

    let bad = media_with_instructions(&base, "g.bin", "explode", vec![1]).await.unwrap();
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn reset_faults_drop_the_connection_and_the_server_carries_on() {
    let emulator = emulator().await;
    let base = emulator.json_url();
    let result = media_with_instructions(&base, "r.bin", "return-reset-connection", vec![1; 1000]).await;
    assert!(result.is_err(), "no answer: the connection was dropped");
    assert_eq!(media(&base, "after.bin", b"ok", None).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn stalls_delay_and_then_complete() {
    let emulator = emulator().await;
    let start = Instant::now();
    let response =
        media_with_instructions(&emulator.json_url(), "stall.bin", "stall-for-1s-after-256K", vec![3; 512 * 1024])
            .await
            .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(start.elapsed() >= Duration::from_secs(1));
    assert_eq!(emulator.store().get(BUCKET, "stall.bin").unwrap().size, 512 * 1024);
}

#[tokio::test]
async fn queued_faults_and_rules_hit_upload_requests() {
    let (fault, every) = gcs_speed_tui::emulator::faults::parse_rule("return-429:every=2").unwrap();
    let emulator = emulator_with(EmulatorOptions { faults: vec![(fault, every)], ..EmulatorOptions::default() }).await;
    let base = emulator.json_url();
    let statuses: Vec<u16> = futures_sequential(&base, 4).await;
    assert_eq!(statuses, [200, 429, 200, 429]);
    emulator.faults().queue(Fault::parse("return-500").unwrap());
    assert_eq!(media(&base, "q", b"x", None).await.status().as_u16(), 500);
}

async fn futures_sequential(base: &str, n: usize) -> Vec<u16> {
    let mut statuses = Vec::new();
    for i in 0..n {
        statuses.push(media(base, &format!("rule-{i}"), b"x", None).await.status().as_u16());
    }
    statuses
}

#[tokio::test]
async fn latency_adds_a_round_trip_and_bandwidth_caps_ingest() {
    let slow =
        emulator_with(EmulatorOptions { latency: Duration::from_millis(100), ..EmulatorOptions::default() }).await;
    let start = Instant::now();
    http().get(format!("{}/storage/v1/b/{BUCKET}", slow.json_url())).send().await.unwrap();
    assert!(start.elapsed() >= Duration::from_millis(200), "one delay each way");

    let narrow = emulator_with(EmulatorOptions { bandwidth: Some(8 * MIB), ..EmulatorOptions::default() }).await;
    let start = Instant::now();
    assert_eq!(media(&narrow.json_url(), "shaped", &vec![0; 4 << 20], None).await.status(), StatusCode::OK);
    let seconds = start.elapsed().as_secs_f64();
    assert!(seconds >= 0.4, "4 MiB at 8 MiB/s took {seconds} s");
}

#[tokio::test]
async fn garbage_and_half_closed_connections_do_not_hurt_the_server() {
    let emulator = emulator().await;
    let base = emulator.json_url();
    let address = base.trim_start_matches("http://").to_string();

    let mut garbage = tokio::net::TcpStream::connect(&address).await.unwrap();
    garbage.write_all(b"\x00\x01 NOT HTTP AT ALL\r\n\r\n").await.unwrap();
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), garbage.read_to_end(&mut answer)).await;
    assert!(matches!(read, Ok(Ok(_))), "the server answers or closes a garbage connection within 5 s: {read:?}");
    assert!(answer.is_empty() || answer.starts_with(b"HTTP/1.1 400"), "{:?}", String::from_utf8_lossy(&answer));

    let mut half = tokio::net::TcpStream::connect(&address).await.unwrap();
    let head = format!(
        "POST /upload/storage/v1/b/{BUCKET}/o?uploadType=media&name=half.bin HTTP/1.1\r\nhost: x\r\ncontent-length: 1048576\r\n\r\n"
    );
    half.write_all(head.as_bytes()).await.unwrap();
    half.write_all(&[0; 100_000]).await.unwrap();
    drop(half);

    let unknown = http().get(format!("{base}/nothing/here")).send().await.unwrap();
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    assert_eq!(media(&base, "still-fine", b"ok", None).await.status(), StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(emulator.store().get(BUCKET, "half.bin").is_err(), "a cut-off upload creates nothing");
}

#[tokio::test]
async fn concurrent_creates_of_one_name_let_exactly_one_win() {
    let emulator = emulator().await;
    let base = emulator.json_url();
    let attempts = (0..8).map(|i| {
        let base = base.clone();
        async move { media(&base, "contested", &vec![i; 100_000], None).await.status().as_u16() }
    });
    let mut statuses = futures::future::join_all(attempts).await;
    statuses.sort();
    assert_eq!(statuses, [200, 412, 412, 412, 412, 412, 412, 412]);
}

#[tokio::test]
async fn a_slow_upload_does_not_block_other_connections() {
    let emulator = emulator().await;
    let base = emulator.json_url();
    let stalled = {
        let base = base.clone();
        tokio::spawn(async move { media_with_instructions(&base, "slow", "stall-for-2s", vec![1; 10]).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let start = Instant::now();
    assert_eq!(media(&base, "fast", b"x", None).await.status(), StatusCode::OK);
    assert!(start.elapsed() < Duration::from_secs(1));
    assert_eq!(stalled.await.unwrap().unwrap().status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_abandoned_sessions_expire() {
    let emulator =
        emulator_with(EmulatorOptions { session_ttl: Duration::from_millis(1000), ..EmulatorOptions::default() }).await;
    let base = emulator.json_url();
    // One client for all: building one loads the system's roots (milliseconds).
    let client = http();
    let starts = (0..2000).map(|i| {
        let (client, base) = (client.clone(), base.clone());
        async move { start_session_with(&client, &base, &format!("abandoned-{i}")).await }
    });
    for batch in futures::future::join_all(starts).await.chunks(500) {
        assert!(batch.iter().all(|location| location.contains("upload_id=")));
    }
    assert!(emulator.store().session_count() >= 1000, "they pile up while fresh");
    tokio::time::sleep(Duration::from_millis(1100)).await;
    start_session(&base, "one-more").await;
    assert_eq!(emulator.store().session_count(), 1, "idle sessions were forgotten");
    assert_eq!(media(&base, "still-serving", b"ok", None).await.status(), StatusCode::OK);
}
