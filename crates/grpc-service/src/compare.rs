//! Both transports' answers to the same request, decoded as the method's
//! response and compared field by field: an HTTP mapping that drops,
//! renames or changes a field is found before any figure is given.
//! `--ignore-field` leaves out fields that differ by nature (revisions,
//! timestamps), by dotted path.

use prost_reflect::{DynamicMessage, Kind, MessageDescriptor, ReflectMessage, Value};

/// Where two answers first differ: the field as `--ignore-field` names it
/// (`kvs.version`), and the sentence with both values.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    pub field: String,
    pub said: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.said)
    }
}

/// The first field where `grpc` and `http` differ, said with both values;
/// `None` when they agree outside `ignored`.
pub fn difference(grpc: &DynamicMessage, http: &DynamicMessage, ignored: &[String]) -> Option<Difference> {
    differ(grpc, http, Where::default(), ignored)
}

/// Every field where they differ, each once (by its first difference), in
/// the response's field order: a call that took another branch may differ
/// at a field that differs by nature too, and both are said.
pub fn differences(grpc: &DynamicMessage, http: &DynamicMessage, ignored: &[String]) -> Vec<Difference> {
    let mut ignored = ignored.to_vec();
    let mut found = Vec::new();
    while let Some(next) = difference(grpc, http, &ignored) {
        ignored.push(next.field.clone());
        found.push(next);
    }
    found
}

/// Where in the message: as said (`kvs[0].version`) and as `--ignore-field`
/// names it, for every element of a list alike (`kvs.version`).
#[derive(Clone, Default)]
struct Where {
    shown: String,
    named: String,
}

fn differ(a: &DynamicMessage, b: &DynamicMessage, at: Where, ignored: &[String]) -> Option<Difference> {
    for field in a.descriptor().fields() {
        let named = format!("{}{}", at.named, field.name());
        let camel = format!("{}{}", at.named, field.json_name());
        if ignored.iter().any(|i| *i == named || *i == camel) {
            continue;
        }
        let here = Where { shown: format!("{}{}", at.shown, field.name()), named };
        let inside =
            |suffix: &str| Where { shown: format!("{}{suffix}.", here.shown), named: format!("{}.", here.named) };
        let (x, y) = (a.get_field(&field), b.get_field(&field));
        let said = match (x.as_ref(), y.as_ref()) {
            (Value::Message(x), Value::Message(y)) => differ(x, y, inside(""), ignored),
            (Value::List(x), Value::List(y)) if x.len() == y.len() => {
                x.iter().zip(y).enumerate().find_map(|(i, (x, y))| match (x, y) {
                    (Value::Message(x), Value::Message(y)) => differ(x, y, inside(&format!("[{i}]")), ignored),
                    (x, y) => (x != y).then(|| said(&format!("{}[{i}]", here.shown), &here.named, x, y)),
                })
            }
            (x, y) => (x != y).then(|| said(&here.shown, &here.named, x, y)),
        };
        if said.is_some() {
            return said;
        }
    }
    None
}

/// `--ignore-field` as the comparison reads it: each path must name a field
/// of the response (proto or JSON names, through messages and lists of
/// them), or a typo would silently ignore nothing.
pub fn check_ignored(response: &MessageDescriptor, paths: &[String]) -> Result<(), String> {
    for path in paths {
        if path.is_empty() {
            let example = response.fields().next().map(|f| format!(", like {}", f.name())).unwrap_or_default();
            return Err(format!("--ignore-field is empty: give a field of {}{example}", response.full_name()));
        }
        let mut message = Some(response.clone());
        let mut walked = String::new();
        for segment in path.split('.') {
            let Some(inside) = message.take() else {
                return Err(format!(
                    "--ignore-field {path}: {} is not a message, it has no fields",
                    &walked[..walked.len() - 1]
                ));
            };
            let field = inside.fields().find(|f| f.name() == segment || f.json_name() == segment);
            let Some(field) = field else { return Err(no_such_field(path, &walked, &inside)) };
            walked = format!("{walked}{}.", field.name());
            // Map values are compared whole, as `differ` does.
            message = match field.kind() {
                Kind::Message(m) if !field.is_map() => Some(m),
                _ => None,
            };
        }
    }
    Ok(())
}

fn no_such_field(path: &str, walked: &str, message: &MessageDescriptor) -> String {
    let fields: Vec<String> = message.fields().map(|f| format!("{walked}{}", f.name())).collect();
    let close = crate::method::closest(&fields, path);
    let hint = match (close.as_slice(), fields.len()) {
        ([], 0) => "it has no fields".to_string(),
        ([], n) if n <= 8 => format!("its fields are {}", fields.join(", ")),
        ([], n) => format!("it has {n} fields"),
        (close, _) => format!("did you mean {}?", close.join(" or ")),
    };
    format!("--ignore-field {path}: {} has no such field; {hint}", message.full_name())
}

fn said(path: &str, named: &str, grpc: &Value, http: &Value) -> Difference {
    let said = format!(
        "the answers differ at {path}: {} over gRPC, {} over HTTP (if it differs by nature, leave it out with --ignore-field {named})",
        shown(grpc),
        shown(http)
    );
    Difference { field: named.to_string(), said }
}

fn shown(value: &Value) -> String {
    let text = match value {
        Value::String(s) => format!("{s:?}"),
        Value::Bytes(b) => format!("{} bytes", b.len()),
        Value::List(l) => engine::report::plural(l.len(), "value"),
        Value::Map(m) => engine::report::plural(m.len(), "entry"),
        Value::Message(m) => format!("{{{}}}", m.fields().count()),
        other => format!("{other:?}").split('(').nth(1).unwrap_or("").trim_end_matches(')').to_string(),
    };
    text.chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::template::parse_message;

    #[test]
    fn the_first_difference_is_named_and_can_be_ignored() {
        let a = crate::testing::compile(
            "syntax = \"proto3\"; package c;
             message Header { int64 revision = 1; uint64 cluster_id = 2; }
             message KV { bytes key = 1; int64 version = 2; }
             message A { Header header = 1; repeated KV kvs = 2; int64 count = 3; }",
        )
        .get_message_by_name("c.A")
        .unwrap();
        let grpc = parse_message(
            &a,
            r#"{"header":{"revision":"5","clusterId":"9"},"kvs":[{"key":"aw==","version":"1"}],"count":"1"}"#,
        )
        .unwrap();
        let http = parse_message(
            &a,
            r#"{"header":{"revision":"6","cluster_id":"9"},"kvs":[{"key":"aw==","version":"2"}],"count":"1"}"#,
        )
        .unwrap();
        let found = difference(&grpc, &http, &[]).unwrap();
        assert_eq!(found.field, "header.revision");
        assert_eq!(
            found.said,
            "the answers differ at header.revision: 5 over gRPC, 6 over HTTP (if it differs by nature, leave it out with --ignore-field header.revision)"
        );
        let found = difference(&grpc, &http, &["header.revision".into()]).unwrap();
        assert_eq!(found.field, "kvs.version", "named as --ignore-field takes it, for every element alike");
        let said = found.to_string();
        assert!(said.starts_with("the answers differ at kvs[0].version: 1 over gRPC, 2 over HTTP"), "{said}");
        assert!(said.ends_with("--ignore-field kvs.version)"), "{said}");
        assert_eq!(difference(&grpc, &http, &["header.revision".into(), "kvs.version".into()]), None);
        assert_eq!(difference(&grpc, &grpc, &[]), None);
        let named = |paths: &[&str]| check_ignored(&a, &paths.iter().map(|p| p.to_string()).collect::<Vec<_>>());
        assert_eq!(named(&["header.revision", "header.clusterId", "kvs.version", "count"]), Ok(()));
        assert_eq!(
            named(&["header.revison"]),
            Err("--ignore-field header.revison: c.Header has no such field; did you mean header.revision?".into())
        );
        assert_eq!(named(&["cont"]), Err("--ignore-field cont: c.A has no such field; did you mean count?".into()));
        assert_eq!(
            named(&["zzz"]),
            Err("--ignore-field zzz: c.A has no such field; its fields are header, kvs, count".into())
        );
        assert_eq!(named(&["count.x"]), Err("--ignore-field count.x: count is not a message, it has no fields".into()));
    }
}
