//! Runs of different workloads compare by operation: a w1r3 run's uploads
//! with an upload run's, never an upload with a download; the history and
//! `compare` name each run's workload.

mod common;

fn saved(dir: &std::path::Path, workload: &str) -> String {
    let path = dir.join(format!("{workload}.json"));
    let args = ["run", "--workload", workload, "--size", "256KiB", "--iterations", "2", "--warmup=false"];
    let output = common::run(&[&args[..], &["--format", "json", "--output", path.to_str().unwrap()]].concat(), &[]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    path.to_str().unwrap().to_string()
}

#[test]
fn a_w1r3_run_compares_its_uploads_with_an_upload_run_and_an_upload_never_with_a_download() {
    let dir = tempfile::tempdir().unwrap();
    let (upload, download, w1r3) =
        (saved(dir.path(), "upload"), saved(dir.path(), "download"), saved(dir.path(), "w1r3"));
    let output = common::run(&["compare", &upload, &w1r3], &[]);
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows: Vec<&str> = said.lines().filter(|l| l.contains(" upload ") || l.contains(" download ")).collect();
    assert_eq!(rows.len(), 2, "the two upload rows, and no read row the upload run lacks: {said}");
    assert!(rows.iter().all(|r| r.starts_with("http-json upload ") || r.starts_with("grpc upload ")), "{said}");
    let refused = common::run(&["compare", &upload, &download], &[]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("measured different things (GCS upload vs GCS download)"), "{stderr}");
    let named = common::run(&["compare", &download, &w1r3], &[]);
    let said = String::from_utf8_lossy(&named.stdout);
    assert!(
        named.status.success(),
        "a download run and w1r3's reads compare: {}",
        String::from_utf8_lossy(&named.stderr)
    );
    assert!(said.lines().any(|l| l.starts_with("grpc download ")), "{said}");
}

#[test]
fn history_lines_name_the_workload() {
    let dir = tempfile::tempdir().unwrap();
    for workload in ["upload", "download", "w1r3"] {
        let text = std::fs::read_to_string(saved(dir.path(), workload)).unwrap();
        let finished: gcs_speed_tui::finished::Finished = serde_json::from_str(&text).unwrap();
        let said = finished.key_options();
        assert!(said.starts_with(&format!("{workload} 256KiB x2 ")), "{said}");
    }
}
