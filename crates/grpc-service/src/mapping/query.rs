//! The request fields neither the path nor the body carries, as query
//! parameters: `name=value`, nested messages by dotted path, a repeated
//! field once per value (maps cannot be, as the specification says).

use super::path::{SEGMENT, scalar_text};
use percent_encoding::utf8_percent_encode;
use prost_reflect::{DynamicMessage, Value};

pub fn encode(message: &DynamicMessage) -> String {
    let mut pairs = Vec::new();
    collect(message, "", &mut pairs);
    pairs
        .iter()
        .map(|(name, value)| format!("{name}={}", utf8_percent_encode(value, SEGMENT)))
        .collect::<Vec<_>>()
        .join("&")
}

fn collect(message: &DynamicMessage, prefix: &str, pairs: &mut Vec<(String, String)>) {
    for (field, value) in message.fields() {
        let name = format!("{prefix}{}", field.name());
        match value {
            Value::Message(inner) => collect(inner, &format!("{name}."), pairs),
            Value::List(values) => {
                pairs.extend(values.iter().filter_map(|v| scalar_text(v, &field.kind())).map(|v| (name.clone(), v)))
            }
            Value::Map(_) => {}
            scalar => pairs.extend(scalar_text(scalar, &field.kind()).map(|v| (name, v))),
        }
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn unbound_fields_become_query_parameters() {
        let q = crate::testing::compile(
            "syntax = \"proto3\"; package q; enum Mode { A = 0; B = 1; }
             message Page { int32 size = 1; string token = 2; }
             message Q { string name = 1; Page page = 2; repeated int64 ids = 3; Mode mode = 4; bytes raw = 5; }",
        )
        .get_message_by_name("q.Q")
        .unwrap();
        let message = crate::template::parse_message(
            &q,
            r#"{"name":"a&b","page":{"size":10,"token":"t"},"ids":["1","2"],"mode":"B","raw":"/w=="}"#,
        )
        .unwrap();
        assert_eq!(super::encode(&message), "name=a%26b&page.size=10&page.token=t&ids=1&ids=2&mode=B&raw=_w%3D%3D");
        let empty = crate::template::parse_message(&q, "{}").unwrap();
        assert_eq!(super::encode(&empty), "", "fields left at their defaults are not sent");
    }
}
