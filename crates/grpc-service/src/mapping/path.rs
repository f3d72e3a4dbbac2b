//! A google.api.http path template (`/v1/{name=shelves/*/books/*}:get`):
//! its literal parts and the request fields its variables bind.

use crate::error::{Result, ServiceError};
use base64::Engine;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use prost_reflect::{DynamicMessage, Kind, MessageDescriptor, ReflectMessage, Value};

/// Kept as they are in any path: RFC 3986's unreserved characters.
pub(crate) const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');
/// A variable of several segments (`{name=shelves/*/books/*}`, `**`) keeps its slashes.
const SEGMENTS: &AsciiSet = &SEGMENT.remove(b'/');

#[derive(Clone, Debug, PartialEq)]
enum Piece {
    Literal(String),
    /// A field path (`book.name`) and whether its value may hold slashes.
    Variable {
        field: String,
        multi: bool,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct PathTemplate {
    pieces: Vec<Piece>,
}

impl PathTemplate {
    /// Reads `template`, checking that each variable names a scalar field
    /// of `request`.
    pub fn parse(template: &str, request: &MessageDescriptor) -> Result<PathTemplate> {
        let bad = |why: &str| ServiceError::Own {
            kind: crate::error::INPUT,
            message: format!("the HTTP path {template} {why}"),
        };
        if !template.starts_with('/') {
            return Err(bad("does not start with /"));
        }
        let mut pieces = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            pieces.push(Piece::Literal(rest[..open].to_string()));
            let close = rest[open..].find('}').ok_or_else(|| bad("has a { with no closing }"))? + open;
            let inside = &rest[open + 1..close];
            let (field, pattern) = inside.split_once('=').unwrap_or((inside, "*"));
            let field = field.trim().to_string();
            check_field(request, &field).map_err(|why| bad(&why))?;
            let multi = pattern.contains('/') || pattern.contains("**");
            pieces.push(Piece::Variable { field, multi });
            rest = &rest[close + 1..];
        }
        if rest.contains('}') {
            return Err(bad("has a } with no opening {"));
        }
        pieces.push(Piece::Literal(rest.to_string()));
        pieces.retain(|p| !matches!(p, Piece::Literal(l) if l.is_empty()));
        Ok(PathTemplate { pieces })
    }

    /// The request fields its variables bind (`shelf.id`).
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|piece| match piece {
            Piece::Variable { field, .. } => Some(field.as_str()),
            Piece::Literal(_) => None,
        })
    }

    /// The template as written (`/v1/{name=**}` reads as `/v1/{name=**}`).
    pub fn text(&self) -> String {
        self.pieces
            .iter()
            .map(|piece| match piece {
                Piece::Literal(text) => text.clone(),
                Piece::Variable { field, multi: false } => format!("{{{field}}}"),
                Piece::Variable { field, multi: true } => format!("{{{field}=**}}"),
            })
            .collect()
    }

    /// The path for `message`, and the fields it bound (left out of the
    /// body and the query).
    pub fn expand(&self, message: &DynamicMessage) -> Result<(String, Vec<String>)> {
        let mut path = String::new();
        let mut bound = Vec::new();
        for piece in &self.pieces {
            match piece {
                Piece::Literal(text) => path.push_str(text),
                Piece::Variable { field, multi } => {
                    let text =
                        field_text(message, field).filter(|t| !t.is_empty()).ok_or_else(|| ServiceError::Own {
                            kind: crate::error::INPUT,
                            message: format!(
                                "the HTTP path binds {field}, which the request leaves empty: give it in --data"
                            ),
                        })?;
                    let set = if *multi { SEGMENTS } else { SEGMENT };
                    path.extend(utf8_percent_encode(&text, set));
                    bound.push(field.clone());
                }
            }
        }
        Ok((path, bound))
    }
}

fn check_field(request: &MessageDescriptor, path: &str) -> std::result::Result<(), String> {
    let mut message = request.clone();
    let mut parts = path.split('.').peekable();
    while let Some(name) = parts.next() {
        let field = message
            .get_field_by_name(name)
            .ok_or_else(|| format!("binds {path}, not a field of {}", request.name()))?;
        match (field.kind(), parts.peek()) {
            (Kind::Message(inner), Some(_)) => message = inner,
            (_, Some(_)) => return Err(format!("binds {path}, but {name} holds no fields")),
            (Kind::Message(_), None) if !field.is_list() => {
                return Err(format!("binds {path}, a message, not a value"));
            }
            _ if field.is_list() || field.is_map() => return Err(format!("binds {path}, a repeated field")),
            _ => {}
        }
    }
    Ok(())
}

/// A scalar field's value as text, as the proto3 JSON mapping writes it.
pub(crate) fn field_text(message: &DynamicMessage, path: &str) -> Option<String> {
    let (head, rest) = match path.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (path, None),
    };
    let value = message.get_field_by_name(head)?;
    match (value.as_ref(), rest) {
        (Value::Message(inner), Some(rest)) => field_text(inner, rest),
        (value, None) => scalar_text(value, &message.descriptor().get_field_by_name(head)?.kind()),
        _ => None,
    }
}

pub(crate) fn scalar_text(value: &Value, kind: &Kind) -> Option<String> {
    Some(match value {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::I32(n) => n.to_string(),
        Value::I64(n) => n.to_string(),
        Value::U32(n) => n.to_string(),
        Value::U64(n) => n.to_string(),
        Value::F32(n) => n.to_string(),
        Value::F64(n) => n.to_string(),
        Value::Bytes(b) => base64::engine::general_purpose::URL_SAFE.encode(b),
        Value::EnumNumber(n) => match kind {
            Kind::Enum(e) => e.get_value(*n).map(|v| v.name().to_string()).unwrap_or_else(|| n.to_string()),
            _ => n.to_string(),
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book() -> MessageDescriptor {
        crate::testing::compile(
            "syntax = \"proto3\"; package lib;
             message Shelf { int64 id = 1; }
             message Q { string name = 1; Shelf shelf = 2; repeated string tags = 3; string note = 4; }",
        )
        .get_message_by_name("lib.Q")
        .unwrap()
    }

    fn message(json: &str) -> DynamicMessage {
        crate::template::parse_message(&book(), json).unwrap()
    }

    #[test]
    fn variables_are_bound_and_escaped_as_the_spec_says() {
        let one = PathTemplate::parse("/v1/{note}/books/{shelf.id}:get", &book()).unwrap();
        let (path, bound) = one.expand(&message(r#"{"note":"a b/c","shelf":{"id":"42"}}"#)).unwrap();
        assert_eq!(path, "/v1/a%20b%2Fc/books/42:get", "a one-segment variable escapes its slash");
        assert_eq!(bound, ["note", "shelf.id"]);
        let many = PathTemplate::parse("/v1/{name=shelves/*/books/*}", &book()).unwrap();
        let (path, _) = many.expand(&message(r#"{"name":"shelves/1/books/2"}"#)).unwrap();
        assert_eq!(path, "/v1/shelves/1/books/2", "a many-segment variable keeps its slashes");
    }

    #[test]
    fn bad_templates_and_empty_bindings_are_said() {
        let said = |t: &str| PathTemplate::parse(t, &book()).unwrap_err().to_string();
        assert_eq!(said("/v1/{nope}"), "the HTTP path /v1/{nope} binds nope, not a field of Q");
        assert_eq!(said("/v1/{tags}"), "the HTTP path /v1/{tags} binds tags, a repeated field");
        assert_eq!(said("/v1/{shelf}"), "the HTTP path /v1/{shelf} binds shelf, a message, not a value");
        assert_eq!(said("v1"), "the HTTP path v1 does not start with /");
        let template = PathTemplate::parse("/v1/{name}", &book()).unwrap();
        let said = template.expand(&message("{}")).unwrap_err().to_string();
        assert_eq!(said, "the HTTP path binds name, which the request leaves empty: give it in --data");
    }
}
