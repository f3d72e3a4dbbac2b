//! The routing header Google's front ends route a call by
//! (`x-goog-request-params: bucket=projects/_/buckets/b`), made from the
//! request as Google's generated clients make it: from the method's
//! `google.api.routing` annotation where it has one (each parameter a
//! field, and a path template whose one named segment is the value), else
//! from the path variables of its `google.api.http` rule (the whole field).

use crate::mapping::{Mapping, path::field_text};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use prost_reflect::{DynamicMessage, MethodDescriptor, Value};

pub const HEADER: &str = "x-goog-request-params";

/// Kept as they are in a value: unreserved characters, and `/` as Google's
/// clients keep it.
const VALUE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~').remove(b'/');

/// A template's piece, split at `/`.
#[derive(Clone, Debug, PartialEq)]
enum Segment {
    Literal(String),
    /// `*`: one segment.
    One,
    /// `**`: any number of segments.
    Any,
    /// The named part's start and end.
    Open,
    Close,
}

/// One routing parameter: the field read, the key it is sent as, and the
/// template its value must match (none: the whole field).
#[derive(Clone, Debug, PartialEq)]
struct Parameter {
    field: String,
    key: String,
    template: Option<Vec<Segment>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Routing {
    parameters: Vec<Parameter>,
}

impl Routing {
    /// The method's routing, if its .proto gives one either way.
    pub fn of(method: &MethodDescriptor) -> Option<Routing> {
        let parameters = annotated(method).or_else(|| implicit(method))?;
        (!parameters.is_empty()).then_some(Routing { parameters })
    }

    /// The header's value for `message`: `key=value&...`, the last match of
    /// a key winning, empty values left out (none: nothing to send).
    pub fn value(&self, message: &DynamicMessage) -> Option<String> {
        let mut found: Vec<(String, String)> = Vec::new();
        for parameter in &self.parameters {
            let Some(text) = field_text(message, &parameter.field).filter(|t| !t.is_empty()) else { continue };
            let value = match &parameter.template {
                None => Some(text),
                Some(template) => capture(template, &text.split('/').collect::<Vec<_>>()),
            };
            if let Some(value) = value.filter(|v| !v.is_empty()) {
                found.retain(|(key, _)| *key != parameter.key);
                found.push((parameter.key.clone(), value));
            }
        }
        let pairs: Vec<String> =
            found.iter().map(|(key, value)| format!("{key}={}", utf8_percent_encode(value, VALUE))).collect();
        (!pairs.is_empty()).then(|| pairs.join("&"))
    }
}

/// `google.api.routing`'s parameters, when the method has the annotation.
fn annotated(method: &MethodDescriptor) -> Option<Vec<Parameter>> {
    let extension = method.parent_pool().get_extension_by_name("google.api.routing")?;
    let options = method.options();
    if !options.has_extension(&extension) {
        return None;
    }
    let Value::Message(rule) = options.get_extension(&extension).into_owned() else { return None };
    let Some(Value::List(list)) = rule.get_field_by_name("routing_parameters").map(|v| v.into_owned()) else {
        return Some(Vec::new());
    };
    let parameters = list.iter().filter_map(|item| {
        let Value::Message(parameter) = item else { return None };
        let text = |name: &str| parameter.get_field_by_name(name).and_then(|v| v.as_str().map(str::to_string));
        let field = text("field")?;
        match text("path_template").filter(|t| !t.is_empty()) {
            None => Some(Parameter { key: field.clone(), field, template: None }),
            Some(template) => {
                let (key, segments) = parse(&template)?;
                Some(Parameter { field, key, template: Some(segments) })
            }
        }
    });
    Some(parameters.collect())
}

/// The HTTP rule's path variables, each sent whole under its field's name.
fn implicit(method: &MethodDescriptor) -> Option<Vec<Parameter>> {
    let Ok(Some(Mapping::Rule { path, .. })) = Mapping::from_rule(method) else { return None };
    Some(path.fields().map(|field| Parameter { field: field.into(), key: field.into(), template: None }).collect())
}

/// `projects/*/{bucket=buckets/*}/**`: the key and the segments, the named
/// part between `Open` and `Close` (`{key}` alone is `{key=*}`).
fn parse(template: &str) -> Option<(String, Vec<Segment>)> {
    let open = template.find('{')?;
    let close = open + template[open..].find('}')?;
    let inside = &template[open + 1..close];
    let (key, pattern) = inside.split_once('=').unwrap_or((inside, "*"));
    let mut segments = pieces(template[..open].trim_end_matches('/'));
    segments.push(Segment::Open);
    segments.extend(pieces(pattern));
    segments.push(Segment::Close);
    segments.extend(pieces(template[close + 1..].trim_start_matches('/')));
    Some((key.trim().to_string(), segments))
}

fn pieces(text: &str) -> Vec<Segment> {
    let piece = |p: &str| match p {
        "*" => Segment::One,
        "**" => Segment::Any,
        literal => Segment::Literal(literal.to_string()),
    };
    text.split('/').filter(|p| !p.is_empty()).map(piece).collect()
}

/// The value's segments the named part matched, if the whole matches.
fn capture(template: &[Segment], value: &[&str]) -> Option<String> {
    let mut span = (0, 0);
    matches(template, value, 0, &mut span).then(|| value[span.0..span.1].join("/"))
}

/// Whether `template` matches `value` from its `at`th segment, noting where
/// the named part began and ended.
fn matches(template: &[Segment], value: &[&str], at: usize, span: &mut (usize, usize)) -> bool {
    let Some((first, rest)) = template.split_first() else { return at == value.len() };
    match first {
        Segment::Open => {
            span.0 = at;
            matches(rest, value, at, span)
        }
        Segment::Close => {
            span.1 = at;
            matches(rest, value, at, span)
        }
        Segment::Literal(literal) => value.get(at) == Some(&literal.as_str()) && matches(rest, value, at + 1, span),
        Segment::One => value.get(at).is_some_and(|s| !s.is_empty()) && matches(rest, value, at + 1, span),
        Segment::Any => (at..=value.len()).rev().any(|end| matches(rest, value, end, span)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(template: &str, value: &str) -> Option<(String, String)> {
        let (key, segments) = parse(template).unwrap();
        capture(&segments, &value.split('/').collect::<Vec<_>>()).map(|v| (key, v))
    }

    #[test]
    fn a_templates_named_part_is_the_value_when_the_whole_matches() {
        let got = |t: &str, v: &str| captured(t, v).map(|(k, v)| format!("{k}={v}"));
        // As google/api/routing.proto's own examples read.
        assert_eq!(got("{bucket=**}", "projects/_/buckets/b").as_deref(), Some("bucket=projects/_/buckets/b"));
        assert_eq!(got("{project=projects/*}/**", "projects/p/instances/i").as_deref(), Some("project=projects/p"));
        assert_eq!(
            got("projects/*/{instance_id=instances/*}/**", "projects/p/instances/i/tables/t").as_deref(),
            Some("instance_id=instances/i")
        );
        assert_eq!(got("{table_location=instances/*}/tables/*", "projects/p/instances/i/tables/t"), None, "no match");
        assert_eq!(got("projects/*/{name}", "projects/p/x").as_deref(), Some("name=x"), "a bare name is name=*");
    }
}
