//! The request a run sends, as JSON with placeholders, so that keys can
//! differ call by call yet every transport sends the same ones: call `n`
//! of a round is the same message whichever way it goes.
//!
//! - `{{seq}}`: the call's number in its round, from 0 (`{{seq 8}}`:
//!   zero-padded to 8 digits, so that every key has one length);
//! - `{{rand}}`: a 63-bit number drawn from `{{seq}}` (the same for both;
//!   it fits int64 fields);
//! - `{{client}}`: which client sends it;
//! - `{{transport}}`: `grpc` or `http-json`, and `{{round}}`: the timed
//!   round, from 1 (0 for the check and the warmup): a call that is not
//!   idempotent (a create-if-absent, an increment) gets a key of its own on
//!   each transport and in each round, so both transports do the same work;
//! - `{{run}}`: the run's ID, so a run's keys can be found and deleted;
//! - `{{base64 TEXT}}`: TEXT (placeholders expanded) in base64, as the
//!   proto3 JSON mapping writes `bytes` fields.
//!
//! A file of requests, one JSON request a line (NDJSON, as ghz and k6 read
//! them), is used in turn: call `seq` sends line `seq mod lines`.

use crate::error::{Result, ServiceError};
use base64::Engine;
use prost_reflect::{DeserializeOptions, DynamicMessage, MessageDescriptor};

#[derive(Clone, Debug, PartialEq)]
enum Part {
    Text(String),
    /// Zero-padded to this many digits (0: as it is).
    Seq(usize),
    Rand,
    Client,
    Run,
    Transport,
    Round,
    Base64(Vec<Part>),
}

/// What a call's placeholders stand for.
#[derive(Clone, Copy, Debug)]
pub struct Call<'a> {
    pub seq: u64,
    pub client: u32,
    pub run: &'a str,
    /// The transport's name: `grpc`, `http-json`.
    pub transport: &'a str,
    /// The timed round, from 1; 0 for the check and the warmup.
    pub round: u32,
}

/// One request, or a file's requests a line each.
#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    lines: Vec<Vec<Part>>,
}

impl Template {
    pub fn parse(text: &str) -> Result<Template> {
        let (parts, rest) = parse_parts(text, false)?;
        debug_assert!(rest.is_empty());
        Ok(Template { lines: vec![parts] })
    }

    /// A file's text: a request a line (NDJSON) when it has several lines
    /// and the first (its placeholders filled) is a JSON value of its own;
    /// else the whole text is one request (a pretty-printed one, say).
    pub fn parse_file(text: &str) -> Result<Template> {
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let sample = Call { seq: 0, client: 0, run: "r", transport: "grpc", round: 0 };
        let whole = |line: &str| {
            Template::parse(line)
                .is_ok_and(|t| serde_json::from_str::<serde::de::IgnoredAny>(&t.render(sample)).is_ok())
        };
        if lines.len() < 2 || !whole(lines[0]) {
            return Template::parse(text);
        }
        let parsed = lines.iter().enumerate().map(|(n, line)| match Template::parse(line) {
            Ok(mut template) => Ok(template.lines.remove(0)),
            Err(e) => Err(ServiceError::Own {
                kind: crate::error::INPUT,
                message: e.to_string().replacen("--data", &format!("--data line {}", n + 1), 1),
            }),
        });
        Ok(Template { lines: parsed.collect::<Result<_>>()? })
    }

    /// Requests it holds: 1, or the file's lines.
    pub fn lines(&self) -> usize {
        self.lines.len()
    }

    /// Every call sends the same message: it can be built once.
    pub fn is_fixed(&self) -> bool {
        self.lines.len() == 1 && self.lines[0].iter().all(|p| matches!(p, Part::Text(_)))
    }

    /// Call `call`'s request: its line's, placeholders filled.
    pub fn render(&self, call: Call) -> String {
        let mut out = String::new();
        render_into(&self.lines[(call.seq % self.lines.len() as u64) as usize], call, &mut out);
        out
    }

    /// Call `call`'s message, read as `request` by the proto3 JSON mapping;
    /// a field that is not the request's, or a value that does not fit
    /// one, is named.
    pub fn message(&self, request: &MessageDescriptor, call: Call) -> Result<DynamicMessage> {
        let json = self.render(call);
        // Every call builds its message: the field a failure is about is
        // tracked only once one has failed.
        let mut deserializer = serde_json::Deserializer::from_str(&json);
        let options = DeserializeOptions::new().deny_unknown_fields(true);
        let parsed = DynamicMessage::deserialize_with_options(request.clone(), &mut deserializer, &options)
            .and_then(|message| deserializer.end().map(|()| message));
        parsed.or_else(|_| {
            let line = match self.lines.len() {
                1 => String::new(),
                lines => format!(" line {}", call.seq % lines as u64 + 1),
            };
            parse_message(request, &json).map_err(|why| ServiceError::Own {
                kind: crate::error::INPUT,
                message: format!("--data{line} does not fit {}: {why}", request.full_name()),
            })
        })
    }
}

impl Template {
    /// Call `call`'s messages for `method`: its one request, or for a
    /// client-streaming or bidi method the stream's messages, each element
    /// of the JSON array it renders to (one object is a stream of one), as
    /// ghz takes them.
    pub fn messages(&self, method: &prost_reflect::MethodDescriptor, call: Call) -> Result<Vec<DynamicMessage>> {
        let input = method.input();
        if !method.is_client_streaming() {
            return Ok(vec![self.message(&input, call)?]);
        }
        let line = match self.lines.len() {
            1 => String::new(),
            lines => format!(" line {}", call.seq % lines as u64 + 1),
        };
        let bad =
            |what: String| ServiceError::Own { kind: crate::error::INPUT, message: format!("--data{line} {what}") };
        let items = match serde_json::from_str(&self.render(call)) {
            Ok(serde_json::Value::Array(items)) => items,
            Ok(one) => vec![one],
            Err(e) => return Err(bad(format!("is not valid JSON: {}", plain(&e.to_string())))),
        };
        let parsed = items.iter().enumerate().map(|(n, item)| {
            parse_message(&input, &item.to_string())
                .map_err(|why| bad(format!("message {} does not fit {}: {why}", n + 1, input.full_name())))
        });
        parsed.collect()
    }
}

/// JSON as `descriptor`'s message; the error names the field it is about.
pub fn parse_message(descriptor: &MessageDescriptor, json: &str) -> std::result::Result<DynamicMessage, String> {
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(&mut deserializer, &mut track);
    let options = DeserializeOptions::new().deny_unknown_fields(true);
    let parsed = DynamicMessage::deserialize_with_options(descriptor.clone(), tracked, &options)
        .and_then(|message| deserializer.end().map(|()| message));
    parsed.map_err(|e| {
        let path = track.path().to_string();
        let what = plain(&e.to_string());
        // Broken JSON is the text's, not a field's: the field it broke in
        // (`key` of `{"key":`) is only where the reader stopped.
        if matches!(e.classify(), serde_json::error::Category::Syntax | serde_json::error::Category::Eof) {
            return format!("not valid JSON: {what} (column {})", e.column());
        }
        match path.as_str() {
            "." | "" => what,
            field => format!("field {field}: {what}"),
        }
    })
}

/// A JSON reader's complaint as a user's words: no byte offsets or line
/// and column of a one-line request, and JSON's names for its kinds.
fn plain(said: &str) -> String {
    let said = said.rfind(" at line ").map_or(said, |at| &said[..at]).trim_end_matches('.');
    if said.starts_with("invalid base64") {
        return "not base64 (proto3 JSON writes bytes in base64; {{base64 TEXT}} encodes text)".into();
    }
    let json_kind = |kind: &str| match kind.trim_start_matches("a ") {
        "sequence" => "a list".to_string(),
        "map" => "an object".to_string(),
        other => other.to_string(),
    };
    match said.strip_prefix("invalid type: ").and_then(|rest| rest.split_once(", expected ")) {
        Some((found, wanted)) => format!("{} where {} belongs", json_kind(found), json_kind(wanted)),
        None => said.to_string(),
    }
}

fn render_into(parts: &[Part], call: Call, out: &mut String) {
    use std::fmt::Write;
    for part in parts {
        match part {
            Part::Text(text) => out.push_str(text),
            Part::Seq(width) => write!(out, "{:0width$}", call.seq, width = *width).unwrap(),
            // 63 bits: it fits int64 fields as well as uint64 ones.
            Part::Rand => write!(out, "{}", units::splitmix64(call.seq) >> 1).unwrap(),
            Part::Client => write!(out, "{}", call.client).unwrap(),
            Part::Run => out.push_str(call.run),
            Part::Transport => out.push_str(call.transport),
            Part::Round => write!(out, "{}", call.round).unwrap(),
            Part::Base64(inner) => {
                let mut text = String::new();
                render_into(inner, call, &mut text);
                out.push_str(&base64::engine::general_purpose::STANDARD.encode(text));
            }
        }
    }
}

/// The parts up to the end, or to the `}}` that closes a `{{base64`.
fn parse_parts(mut text: &str, nested: bool) -> Result<(Vec<Part>, &str)> {
    let mut parts = Vec::new();
    loop {
        let open = text.find("{{");
        let close = text.find("}}");
        match (open, close) {
            (_, Some(end)) if nested && open.is_none_or(|o| end < o) => {
                push_text(&mut parts, &text[..end]);
                return Ok((parts, &text[end + 2..]));
            }
            (Some(start), _) => {
                push_text(&mut parts, &text[..start]);
                let (part, rest) = placeholder(&text[start + 2..])?;
                parts.push(part);
                text = rest;
            }
            (None, _) if nested => return Err(bad("a {{base64 with no closing }}")),
            (None, _) => {
                push_text(&mut parts, text);
                return Ok((parts, ""));
            }
        }
    }
}

fn placeholder(text: &str) -> Result<(Part, &str)> {
    if let Some(inner) = text.strip_prefix("base64 ") {
        let (parts, rest) = parse_parts(inner, true)?;
        return Ok((Part::Base64(parts), rest));
    }
    let end = text.find("}}").ok_or_else(|| bad("a {{ with no closing }}"))?;
    let inside = text[..end].trim();
    let padded = inside.strip_prefix("seq ").and_then(|width| width.trim().parse::<usize>().ok());
    let part = match inside {
        _ if let Some(width) = padded.filter(|w| *w <= 20) => Part::Seq(width),
        "seq" => Part::Seq(0),
        "rand" => Part::Rand,
        "client" => Part::Client,
        "run" => Part::Run,
        "transport" => Part::Transport,
        "round" => Part::Round,
        other => return Err(bad(&format!("{{{{{other}}}}}, which is not a placeholder"))),
    };
    Ok((part, &text[end + 2..]))
}

fn push_text(parts: &mut Vec<Part>, text: &str) {
    if !text.is_empty() {
        parts.push(Part::Text(text.to_string()));
    }
}

fn bad(what: &str) -> ServiceError {
    ServiceError::Own {
        kind: crate::error::INPUT,
        message: format!(
            "--data has {what}: the placeholders are {{{{seq}}}} (or {{{{seq 8}}}}, zero-padded), {{{{rand}}}}, {{{{client}}}}, {{{{transport}}}}, {{{{round}}}}, {{{{run}}}} and {{{{base64 TEXT}}}}"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALL: Call = Call { seq: 7, client: 2, run: "r1", transport: "grpc", round: 3 };

    #[test]
    fn placeholders_expand_and_nest_inside_base64() {
        let template = Template::parse(r#"{"key":"{{base64 k/{{run}}/{{seq}}}}","n":{{seq}},"c":{{client}}}"#).unwrap();
        assert!(!template.is_fixed());
        let expected_key = base64::engine::general_purpose::STANDARD.encode("k/r1/7");
        assert_eq!(template.render(CALL), format!(r#"{{"key":"{expected_key}","n":7,"c":2}}"#));
        let rand = Template::parse("{{rand}}").unwrap();
        assert_eq!(rand.render(CALL), (units::splitmix64(7) >> 1).to_string(), "63 bits: an int64 holds it");
        assert_eq!(rand.render(CALL), rand.render(Call { client: 0, ..CALL }), "the same call draws the same");
        assert!(Template::parse(r#"{"a":1}"#).unwrap().is_fixed());
        assert_eq!(Template::parse("k{{seq 8}}").unwrap().render(CALL), "k00000007", "as wide as etcd run's keys");
    }

    #[test]
    fn each_transport_and_round_can_have_keys_of_its_own() {
        let template = Template::parse("k/{{transport}}/{{round}}/{{seq}}").unwrap();
        assert!(!template.is_fixed());
        assert_eq!(template.render(CALL), "k/grpc/3/7");
        assert_eq!(template.render(Call { transport: "http-json", round: 1, ..CALL }), "k/http-json/1/7");
        // 2 transports x 3 rounds x 5 calls: 30 keys, none twice.
        let mut keys = std::collections::BTreeSet::new();
        for transport in ["grpc", "http-json"] {
            for round in 1..=3 {
                for seq in 0..5 {
                    keys.insert(template.render(Call { transport, round, seq, ..CALL }));
                }
            }
        }
        assert_eq!(keys.len(), 2 * 3 * 5);
    }

    #[test]
    fn a_json_readers_complaint_is_said_plainly() {
        let said = plain("invalid base64: Invalid symbol 32, offset 3. at line 1 column 21");
        assert_eq!(said, "not base64 (proto3 JSON writes bytes in base64; {{base64 TEXT}} encodes text)");
        assert_eq!(
            plain("invalid type: sequence, expected a map at line 1 column 0"),
            "a list where an object belongs"
        );
        assert_eq!(plain("unknown field `kee`, expected one of `key`"), "unknown field `kee`, expected one of `key`");
    }

    #[test]
    fn bad_placeholders_are_named() {
        let said = Template::parse("{{sequence}}").unwrap_err().to_string();
        assert!(said.starts_with("--data has {{sequence}}, which is not a placeholder"), "{said}");
        assert!(Template::parse("{{base64 abc").unwrap_err().to_string().contains("no closing"));
        assert!(Template::parse("{{seq").unwrap_err().to_string().contains("no closing"));
    }

    #[test]
    fn broken_json_is_said_as_the_texts_not_a_fields() {
        let pool = crate::testing::compile("syntax = \"proto3\"; package t; message P { string key = 1; }");
        let put = pool.get_message_by_name("t.P").unwrap();
        let said = parse_message(&put, r#"{"key":"#).unwrap_err();
        assert!(said.starts_with("not valid JSON: EOF while parsing a value (column 7)"), "{said}");
        assert!(!said.contains("field key"), "{said}");
        // A value of the wrong kind is the field's.
        let wrong = parse_message(&put, r#"{"key":5}"#).unwrap_err();
        assert!(wrong.starts_with("field key: "), "{wrong}");
    }
}
