//! Interop with clients and servers nobody here wrote: Google's Python client
//! (JSON and its bundled gRPC v2 client) against the built-in emulator, and
//! our JSON transport against the independent gcp-storage-emulator (PyPI).
//! ./scripts/test installs them into .venv first.

mod common;
use common::*;
use gcs_speed_tui::config::Options;
use gcs_speed_tui::emulator::EmulatorOptions;
use gcs_speed_tui::gcs::payload::random_bytes;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn python(script: &str, args: &[&str], env: &[(&str, String)]) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop").join(script);
    let mut command = Command::new(venv_bin("python"));
    command.arg(&script).args(args).env_remove("GOOGLE_APPLICATION_CREDENTIALS");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "{} failed:\n{stdout}\n{}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[tokio::test(flavor = "multi_thread")]
async fn google_cloud_storage_json_client_uploads_to_and_reads_from_the_emulator() {
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let json = emulator.json_url();
    let stdout =
        tokio::task::spawn_blocking(move || python("json_client.py", &[BUCKET], &[("STORAGE_EMULATOR_HOST", json)]))
            .await
            .unwrap();
    assert_eq!(stdout.lines().filter(|l| l.starts_with("ok ")).count(), 2, "{stdout}");
    let resumable = emulator.store().get(BUCKET, "interop/json-resumable.bin").unwrap();
    assert_eq!(resumable.size, 3 * MIB + 12345);
    assert!(emulator.store().checksums_verified.load(std::sync::atomic::Ordering::Relaxed) >= 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn google_cloud_storage_grpc_client_uploads_to_and_reads_from_the_emulator() {
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let address = emulator.grpc_addr().to_string();
    let stdout = tokio::task::spawn_blocking(move || python("grpc_client.py", &[&address, BUCKET], &[])).await.unwrap();
    assert_eq!(stdout.lines().filter(|l| l.starts_with("ok ")).count(), 4, "two writes, two reads: {stdout}");
    for name in ["interop/grpc-oneshot.bin", "interop/grpc-resumable.bin"] {
        assert_eq!(emulator.store().get(BUCKET, name).unwrap().size, 5 * MIB + 777);
    }
    assert_eq!(emulator.store().checksums_verified.load(std::sync::atomic::Ordering::Relaxed), 2);
}

/// gcp-storage-emulator on a free port, stopped when dropped.
struct PythonEmulator {
    child: Child,
    port: u16,
}

impl PythonEmulator {
    /// On a free port; if another process takes the port first (it was free
    /// when asked), the emulator exits and is started again on another.
    fn start(bucket: &str) -> Self {
        let mut exits = Vec::new();
        for _ in 0..3 {
            match Self::try_start(bucket) {
                Ok(emulator) => return emulator,
                Err(exit) => exits.push(exit),
            }
        }
        panic!("gcp-storage-emulator did not start: {}", exits.join("; "))
    }

    fn try_start(bucket: &str) -> Result<Self, String> {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let stderr = tempfile::tempfile().unwrap();
        let args = ["start", "--host", "127.0.0.1", "--port", &port.to_string(), "--default-bucket", bucket];
        let mut child = Command::new(venv_bin("gcp-storage-emulator"))
            .args(args)
            .args(["--in-memory", "-q"])
            .stdout(Stdio::null())
            .stderr(stderr.try_clone().unwrap())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        // Listening, and the emulator that answers (not another process
        // that took the port): it knows the bucket.
        while !knows_bucket(port, bucket) {
            if let Some(status) = child.try_wait().unwrap() {
                return Err(format!("port {port}: {status}: {}", said(stderr)));
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("gcp-storage-emulator did not answer on port {port} in 60 s: {}", said(stderr));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Ok(Self { child, port })
    }
}

/// Whatever answers on `port` says 200 to a JSON API GET of `bucket`.
fn knows_bucket(port: u16, bucket: &str) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return false };
    let request = format!("GET /storage/v1/b/{bucket} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    let mut answer = String::new();
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let _ = stream.write_all(request.as_bytes()).and_then(|_| stream.read_to_string(&mut answer).map(|_| ()));
    answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200")
}

/// The last lines a process wrote to `file`.
fn said(mut file: std::fs::File) -> String {
    use std::io::{Read, Seek};
    let mut text = String::new();
    let _ = file.rewind().and_then(|_| file.read_to_string(&mut text));
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(3)..].join(" / ")
}

impl Drop for PythonEmulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn our_json_transport_against_gcp_storage_emulator() {
    let peer = PythonEmulator::start("peer-bucket");
    for chunk_size in ["0", "256KiB"] {
        let options = Options {
            bucket: "peer-bucket".into(),
            endpoint: format!("http://127.0.0.1:{}", peer.port),
            transports: "http-json".into(),
            size: "1MiB".into(),
            iterations: "2".into(),
            chunk_size: chunk_size.into(),
            warmup_size: "256KiB".into(),
            ..Options::default()
        };
        let report = run_bench(options).await;
        assert!(report.succeeded(), "chunk size {chunk_size}:\n{}", report.to_table());
        assert_eq!(report.transports[0].objects, 2);
        assert_eq!(report.cleanup.deleted, 2);
        assert_eq!(report.transports[0].protocol, "HTTP/1.0", "this peer speaks HTTP/1.0");
    }
    // Reads from a server nobody here wrote: whole (its x-goog-hash checked) and ranged.
    for range_size in ["0", "256KiB"] {
        let options = Options {
            bucket: "peer-bucket".into(),
            endpoint: format!("http://127.0.0.1:{}", peer.port),
            transports: "http-json".into(),
            workload: "download".into(),
            range_size: range_size.into(),
            size: "1MiB".into(),
            iterations: "2".into(),
            warmup: false,
            ..Options::default()
        };
        let report = run_bench(options).await;
        assert!(report.succeeded(), "range size {range_size}:\n{}", report.to_table());
        assert_eq!((report.transports[0].runs, report.transports[0].errors), (2, 0));
        let per_read = if range_size == "0" { MIB } else { 256 * 1024 };
        assert!(report.rounds.iter().all(|r| r.bytes == per_read), "{:?}", report.rounds);
        assert_eq!(report.cleanup.deleted, 1, "the one prepared object");
    }
}

/// Uploads `data` as `name` through the store's own gRPC API (a one-shot
/// BidiWriteObject from the published stubs).
async fn put_object(emulator: &gcs_speed_tui::emulator::Emulator, name: &str, data: &[u8]) {
    use googleapis_tonic_google_storage_v2::google::storage::v2 as pb;
    let channel = tonic::transport::Channel::from_shared(format!("http://{}", emulator.grpc_addr())).unwrap();
    let mut client = pb::storage_client::StorageClient::new(channel.connect().await.unwrap());
    let spec = pb::WriteObjectSpec {
        resource: Some(pb::Object {
            bucket: format!("projects/_/buckets/{BUCKET}"),
            name: name.into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut requests: Vec<pb::BidiWriteObjectRequest> = data
        .chunks(2 << 20)
        .enumerate()
        .map(|(i, chunk)| pb::BidiWriteObjectRequest {
            write_offset: (i * (2 << 20)) as i64,
            data: Some(pb::bidi_write_object_request::Data::ChecksummedData(pb::ChecksummedData {
                content: bytes::Bytes::copy_from_slice(chunk),
                crc32c: Some(crc32c::crc32c(chunk)),
            })),
            ..Default::default()
        })
        .collect();
    requests[0].first_message = Some(pb::bidi_write_object_request::FirstMessage::WriteObjectSpec(spec));
    requests.last_mut().unwrap().finish_write = true;
    let mut answers = client.bidi_write_object(futures::stream::iter(requests)).await.unwrap().into_inner();
    while answers.message().await.unwrap().is_some() {}
}

#[tokio::test(flavor = "multi_thread")]
async fn google_multi_range_downloader_reads_100_ranges_from_the_emulator() {
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let size = 9 * MIB as usize + 4321;
    let payload = random_bytes(size, 100);
    put_object(&emulator, "interop/ranges.bin", &payload).await;
    // 100 ranges: small and large (over one 2 MiB message), across message
    // seams, the object's first and last bytes; each drawn from a seed.
    let ranges: Vec<(usize, usize)> = (0..100u64)
        .map(|i| {
            let z = (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            let len = if i % 10 == 0 { 2 * MIB as usize + (z % 1000) as usize } else { 1 + (z % 70_000) as usize };
            let offset = match i {
                0 => 0,
                1 => size - len,
                _ => ((z >> 20) as usize) % (size - len),
            };
            (offset, len)
        })
        .collect();
    let json = serde_json::to_string(&ranges).unwrap();
    let address = emulator.grpc_addr().to_string();
    let stdout = tokio::task::spawn_blocking(move || {
        python("bidi_client.py", &["ranges", &address, BUCKET, "interop/ranges.bin", &json], &[])
    })
    .await
    .unwrap();
    let said: Vec<&str> = stdout.lines().filter(|l| l.starts_with("range ")).collect();
    assert_eq!(said.len(), 100, "{stdout}");
    for (i, (offset, len)) in ranges.iter().enumerate() {
        let expected = format!("range {i} {len} {}", crc32c::crc32c(&payload[*offset..offset + len]));
        assert_eq!(said[i], expected, "range {i} at {offset}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn google_appendable_writer_appends_flushes_reads_takes_over_and_finalizes_on_the_emulator() {
    let emulator = emulator_with(EmulatorOptions { retain: true, ..EmulatorOptions::default() }).await;
    let (first, second) = (random_bytes(3 * MIB as usize + 17, 1), random_bytes(MIB as usize + 5, 2));
    let dir = tempfile::tempdir().unwrap();
    let (first_file, second_file) = (dir.path().join("first"), dir.path().join("second"));
    std::fs::write(&first_file, &first).unwrap();
    std::fs::write(&second_file, &second).unwrap();
    let address = emulator.grpc_addr().to_string();
    let files = [first_file.display().to_string(), second_file.display().to_string()];
    let stdout = tokio::task::spawn_blocking(move || {
        python("bidi_client.py", &["append", &address, BUCKET, "interop/appended.bin", &files[0], &files[1]], &[])
    })
    .await
    .unwrap();
    let whole = [first.as_ref(), second.as_ref()].concat();
    let expected = [
        format!("flushed {}", first.len()),
        format!("unfinalized {} {}", first.len(), crc32c::crc32c(&first)),
        format!("takeover {}", first.len()),
        format!("final {} {}", whole.len(), crc32c::crc32c(&whole)),
    ];
    assert_eq!(stdout.lines().collect::<Vec<_>>(), expected, "{stdout}");
    let stored = emulator.store().get(BUCKET, "interop/appended.bin").unwrap();
    assert_eq!((stored.size, stored.crc32c, stored.finalized), (whole.len() as u64, crc32c::crc32c(&whole), true));
}
