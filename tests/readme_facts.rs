//! Facts README states about the app that the code decides, checked
//! against the code, so that the README cannot go stale unnoticed.

use gcs_speed_tui::targets::{ESSENTIALS, ETCD_ESSENTIALS, ETCD_FIELDS, FIELDS, GRPC_ESSENTIALS, GRPC_FIELDS};

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

#[test]
fn the_readme_counts_the_forms_fields_as_the_app_has_them() {
    // README wraps lines: compare with the white space folded.
    let text = readme().split_whitespace().collect::<Vec<_>>().join(" ");
    let said = format!(
        "The form shows the {ESSENTIALS} fields everyone sets first; the other {} sit under \"▸ advanced\", which Enter or → opens (etcd's form: {ETCD_ESSENTIALS} and {}; grpc's: {GRPC_ESSENTIALS} and {}).",
        FIELDS.len() - ESSENTIALS,
        ETCD_FIELDS.len() - ETCD_ESSENTIALS,
        GRPC_FIELDS.len() - GRPC_ESSENTIALS
    );
    assert!(text.contains(&said), "README should say: {said}");
}
