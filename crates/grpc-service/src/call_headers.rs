//! Headers that differ call by call: `--header` values with placeholders,
//! filled as `--data`'s are, so that a call's metadata can name its key or
//! its run as its body does; and the routing header Google's clients make
//! from each request (`routing`), unless `--header` gives it.

use crate::error::{Result, ServiceError};
use crate::routing::{self, Routing};
use crate::template::{Call, Template};
use http::{HeaderMap, HeaderName, HeaderValue};
use prost_reflect::{DynamicMessage, MethodDescriptor};
use std::borrow::Cow;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallHeaders {
    templated: Vec<(HeaderName, Template)>,
    routing: Option<Routing>,
}

impl CallHeaders {
    /// `method`'s calls' own headers: those of `headers` with placeholders
    /// (taken out of it) and the method's routing header.
    pub fn new(headers: &mut Vec<(String, String)>, method: &MethodDescriptor) -> std::result::Result<Self, String> {
        let given = headers.iter().any(|(name, _)| name.trim().eq_ignore_ascii_case(routing::HEADER));
        let templated = CallHeaders::split(headers)?;
        Ok(CallHeaders { routing: if given { None } else { Routing::of(method) }, ..templated })
    }

    /// Takes the headers with placeholders out of `headers` (the rest are
    /// the same on every call, set once on each transport's client).
    pub fn split(headers: &mut Vec<(String, String)>) -> std::result::Result<CallHeaders, String> {
        let mut templated = Vec::new();
        let mut fixed = Vec::new();
        for (name, value) in headers.drain(..) {
            let template = Template::parse(&value).map_err(|e| e.to_string().replacen("--data", "--header", 1))?;
            if template.is_fixed() {
                fixed.push((name, value));
                continue;
            }
            let header = HeaderName::from_bytes(name.trim().to_ascii_lowercase().as_bytes())
                .map_err(|_| format!("--header '{name}: {value}': '{name}' is not a header name HTTP can carry"))?;
            templated.push((header, template));
        }
        *headers = fixed;
        Ok(CallHeaders { templated, routing: None })
    }

    /// The header names each call may carry besides the fixed ones.
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        let routing = self.routing.as_ref().map(|_| routing::HEADER.to_string());
        self.templated.iter().map(|(name, _)| name.to_string()).chain(routing)
    }

    /// Call `call`'s headers (routing: when its request is `message`).
    pub fn of(&self, call: Call, message: Option<&DynamicMessage>) -> Result<HeaderMap> {
        let mut map = HeaderMap::new();
        if let Some(value) = message.zip(self.routing.as_ref()).and_then(|(m, routing)| routing.value(m)) {
            // Percent-encoded: always a value HTTP carries.
            if let Ok(value) = HeaderValue::from_str(&value) {
                map.insert(routing::HEADER, value);
            }
        }
        for (name, template) in &self.templated {
            let value = template.render(call);
            let value = HeaderValue::from_str(&value).map_err(|_| ServiceError::Own {
                kind: crate::error::INPUT,
                message: format!("--header {name}: '{value}' is not a value HTTP can carry"),
            })?;
            map.insert(name.clone(), value);
        }
        Ok(map)
    }
}

/// The headers every call carries with this call's own over them.
pub fn merged<'a>(every: &'a HeaderMap, own: &HeaderMap) -> Cow<'a, HeaderMap> {
    if own.is_empty() {
        return Cow::Borrowed(every);
    }
    let mut headers = every.clone();
    for (name, value) in own {
        headers.insert(name.clone(), value.clone());
    }
    Cow::Owned(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_with_placeholders_are_filled_per_call_and_the_rest_stay_fixed() {
        let mut headers = vec![("x-team".to_string(), "storage".to_string()), ("x-key".into(), "k/{{seq}}".into())];
        let call_headers = CallHeaders::split(&mut headers).unwrap();
        assert_eq!(headers, [("x-team".to_string(), "storage".to_string())]);
        let call = Call { seq: 7, client: 0, run: "r", transport: "grpc", round: 1 };
        let own = call_headers.of(call, None).unwrap();
        assert_eq!(own.get("x-key").unwrap(), "k/7");
        let every: HeaderMap =
            [(HeaderName::from_static("x-key"), HeaderValue::from_static("old"))].into_iter().collect();
        assert_eq!(merged(&every, &own).get("x-key").unwrap(), "k/7", "the call's own wins");
        assert!(matches!(merged(&every, &HeaderMap::new()), Cow::Borrowed(_)));
        let bad = CallHeaders::split(&mut vec![("x".into(), "{{nope}}".into())]).unwrap_err();
        assert!(bad.starts_with("--header has {{nope}}, which is not a placeholder"), "{bad}");
    }
}
