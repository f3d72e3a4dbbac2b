//! How a call goes over HTTP/JSON: the method's `google.api.http` rule (as
//! its specification says: verb, a path template whose variables are bound
//! from the request, `body: "*"` or one field, the rest as query
//! parameters), a path the user gives instead, or Connect's JSON protocol
//! (`POST /pkg.Service/Method`, the whole message as the body).

use crate::error::{Result, ServiceError};
use prost_reflect::{DynamicMessage, MethodDescriptor, ReflectMessage, SerializeOptions, Value};

pub(crate) mod path;
mod query;
pub use path::PathTemplate;

/// Which part of the request goes in the HTTP body.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    None,
    /// Every field the path does not bind.
    All,
    /// This one field (its JSON is the body).
    Field(String),
}

/// A method's HTTP binding.
#[derive(Clone, Debug, PartialEq)]
pub enum Mapping {
    /// A google.api.http rule (or `--http-path`, read as one).
    Rule { verb: http::Method, path: PathTemplate, body: Body, response_body: Option<String> },
    /// Connect's protocol: `POST /pkg.Service/Method`, JSON both ways.
    Connect { path: String },
}

/// One call as HTTP: its verb, path with query, and JSON body.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpCall {
    pub verb: http::Method,
    pub path_and_query: String,
    pub body: Option<String>,
    /// A client stream's messages' bodies, in order (empty: `body` alone).
    pub bodies: Vec<String>,
}

impl Mapping {
    /// The method's own rule (`google.api.http`), if its .proto gives one.
    pub fn from_rule(method: &MethodDescriptor) -> Result<Option<Mapping>> {
        let pool = method.parent_pool();
        let Some(extension) = pool.get_extension_by_name("google.api.http") else { return Ok(None) };
        let options = method.options();
        if !options.has_extension(&extension) {
            return Ok(None);
        }
        let Value::Message(rule) = options.get_extension(&extension).into_owned() else { return Ok(None) };
        let text = |name: &str| rule.get_field_by_name(name).and_then(|v| v.as_str().map(str::to_string));
        let verb_path = ["get", "put", "post", "delete", "patch"].iter().find_map(|verb| {
            let path = text(verb).filter(|p| !p.is_empty())?;
            Some((verb.to_ascii_uppercase(), path))
        });
        let custom = || {
            let Some(Value::Message(custom)) = rule.get_field_by_name("custom").map(|v| v.into_owned()) else {
                return None;
            };
            let field = |n: &str| custom.get_field_by_name(n).and_then(|v| v.as_str().map(str::to_string));
            Some((field("kind")?, field("path")?)).filter(|(k, p)| !k.is_empty() && !p.is_empty())
        };
        let Some((verb, path)) = verb_path.or_else(custom) else { return Ok(None) };
        let body = match text("body").unwrap_or_default().as_str() {
            "" => Body::None,
            "*" => Body::All,
            field => Body::Field(field.to_string()),
        };
        let response_body = text("response_body").filter(|f| !f.is_empty());
        Mapping::rule(method, &verb, &path, body, response_body).map(Some)
    }

    /// `--http-path`: `[VERB] /path/{field}`; POST, PUT and PATCH send every
    /// unbound field as the body, GET and DELETE as query parameters.
    pub fn from_flag(method: &MethodDescriptor, flag: &str) -> Result<Mapping> {
        let (verb, path) = match flag.trim().split_once(' ') {
            Some((verb, path)) => (verb.to_ascii_uppercase(), path.trim().to_string()),
            None => ("POST".to_string(), flag.trim().to_string()),
        };
        let body = match verb.as_str() {
            "GET" | "DELETE" => Body::None,
            "POST" | "PUT" | "PATCH" => Body::All,
            // http::Method takes any token ("FETCH"); a rule has these five.
            _ => {
                let said = format!(
                    "{verb} is not an HTTP verb a google.api.http rule has: use GET, POST, PUT, PATCH or DELETE"
                );
                return Err(ServiceError::Own { kind: crate::error::INPUT, message: said });
            }
        };
        Mapping::rule(method, &verb, &path, body, None)
    }

    pub fn connect(method: &MethodDescriptor) -> Mapping {
        Mapping::Connect { path: format!("/{}/{}", method.parent_service().full_name(), method.name()) }
    }

    fn rule(
        method: &MethodDescriptor,
        verb: &str,
        path: &str,
        body: Body,
        response_body: Option<String>,
    ) -> Result<Mapping> {
        let verb = http::Method::from_bytes(verb.as_bytes()).map_err(|_| ServiceError::Own {
            kind: crate::error::INPUT,
            message: format!("'{verb}' is not an HTTP verb"),
        })?;
        let path = PathTemplate::parse(path, &method.input())?;
        if let Body::Field(field) = &body
            && method.input().get_field_by_name(field).is_none()
        {
            let said = format!("the HTTP rule's body names {field}, which {} does not have", method.input().name());
            return Err(ServiceError::Own { kind: crate::error::INPUT, message: said });
        }
        Ok(Mapping::Rule { verb, path, body, response_body })
    }

    /// The HTTP request that carries `message`.
    pub fn call(&self, message: &DynamicMessage) -> Result<HttpCall> {
        match self {
            Mapping::Connect { path } => Ok(HttpCall {
                verb: http::Method::POST,
                path_and_query: path.clone(),
                body: Some(json(message)?),
                bodies: Vec::new(),
            }),
            Mapping::Rule { verb, path, body, .. } => {
                let (mut path_and_query, bound) = path.expand(message)?;
                // The fields the path bound are left out of the rest (a
                // copy only when there are some: every call comes here).
                let mut cleared;
                let mut rest = message;
                if !bound.is_empty() || matches!(body, Body::Field(_)) {
                    cleared = message.clone();
                    for field in &bound {
                        clear_path(&mut cleared, field);
                    }
                    rest = &cleared;
                }
                let body_json = match body {
                    Body::None => None,
                    Body::All => Some(json(rest)?),
                    Body::Field(field) => Some(value_json(
                        &message.descriptor(),
                        field,
                        rest.get_field_by_name(field).map(|v| v.into_owned()),
                    )?),
                };
                let query = match body {
                    Body::All => String::new(),
                    Body::Field(field) => {
                        let mut rest = rest.clone();
                        rest.clear_field_by_name(field);
                        query::encode(&rest)
                    }
                    Body::None => query::encode(rest),
                };
                if !query.is_empty() {
                    path_and_query.push('?');
                    path_and_query.push_str(&query);
                }
                Ok(HttpCall { verb: verb.clone(), path_and_query, body: body_json, bodies: Vec::new() })
            }
        }
    }

    /// The rule gives only a field of the response as the body.
    pub fn has_response_body(&self) -> bool {
        matches!(self, Mapping::Rule { response_body: Some(_), .. })
    }

    /// The JSON of a whole response message from an HTTP answer's body
    /// (a rule's `response_body` gives only that field).
    pub fn response_json(&self, body: serde_json::Value) -> serde_json::Value {
        match self {
            Mapping::Rule { response_body: Some(field), .. } => serde_json::json!({ field: body }),
            _ => body,
        }
    }
}

/// A message as the proto3 JSON mapping writes it.
pub fn json(message: &DynamicMessage) -> Result<String> {
    let mut out = serde_json::Serializer::new(Vec::new());
    message
        .serialize_with_options(&mut out, &SerializeOptions::new())
        .map_err(|e| ServiceError::Protocol(format!("cannot write the request as JSON: {e}")))?;
    Ok(String::from_utf8(out.into_inner()).expect("serde_json writes UTF-8"))
}

/// One field's value as JSON (a body that is one field).
fn value_json(parent: &prost_reflect::MessageDescriptor, field: &str, value: Option<Value>) -> Result<String> {
    let mut wrapper = DynamicMessage::new(parent.clone());
    if let Some(value) = value {
        wrapper.set_field_by_name(field, value);
    }
    let whole: serde_json::Value = serde_json::from_str(&json(&wrapper)?).expect("our own JSON reads back");
    let name = parent.get_field_by_name(field).map(|f| f.json_name().to_string()).unwrap_or_default();
    Ok(whole.get(&name).cloned().unwrap_or(serde_json::json!({})).to_string())
}

/// Clears `a.b.c` in `message` (a field the path bound).
fn clear_path(message: &mut DynamicMessage, path: &str) {
    match path.split_once('.') {
        None => message.clear_field_by_name(path),
        Some((head, rest)) => {
            if let Some(Value::Message(inner)) = message.get_field_by_name_mut(head) {
                clear_path(inner, rest);
            }
        }
    }
}
