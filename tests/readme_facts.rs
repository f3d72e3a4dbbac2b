//! Facts the guide (docs/app.md) states about the app that the code decides,
//! checked against the code, so that the guide cannot go stale unnoticed.

use gcs_speed_tui::targets::{fields_of, named};

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/app.md")).unwrap()
}

#[test]
fn the_readme_counts_the_forms_fields_as_the_app_has_them() {
    // The guide wraps lines: compare with the white space folded.
    let text = readme().split_whitespace().collect::<Vec<_>>().join(" ");
    let split = |target: &str| {
        let first = named(target).essentials();
        (first, fields_of(target).len() - first)
    };
    let ((gcs, gcs_rest), (etcd, etcd_rest), (grpc, grpc_rest)) = (split("gcs"), split("etcd"), split("grpc"));
    let said = format!(
        "The form shows the {gcs} fields everyone sets first; the other {gcs_rest} sit under \"▸ advanced\", which Enter or → opens (etcd's form: {etcd} and {etcd_rest}; grpc's: {grpc} and {grpc_rest})."
    );
    assert!(text.contains(&said), "docs/app.md should say: {said}");
}
