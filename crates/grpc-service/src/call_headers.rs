//! Headers that differ call by call: `--header` values with placeholders,
//! filled as `--data`'s are, so that a call's metadata can name its key or
//! its run as its body does.

use crate::error::{Result, ServiceError};
use crate::template::{Call, Template};
use http::{HeaderMap, HeaderName, HeaderValue};
use std::borrow::Cow;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallHeaders {
    templated: Vec<(HeaderName, Template)>,
}

impl CallHeaders {
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
        Ok(CallHeaders { templated })
    }

    /// Call `call`'s headers (none when no header has a placeholder).
    pub fn of(&self, call: Call) -> Result<HeaderMap> {
        let mut map = HeaderMap::new();
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
        let own = call_headers.of(call).unwrap();
        assert_eq!(own.get("x-key").unwrap(), "k/7");
        let every: HeaderMap =
            [(HeaderName::from_static("x-key"), HeaderValue::from_static("old"))].into_iter().collect();
        assert_eq!(merged(&every, &own).get("x-key").unwrap(), "k/7", "the call's own wins");
        assert!(matches!(merged(&every, &HeaderMap::new()), Cow::Borrowed(_)));
        let bad = CallHeaders::split(&mut vec![("x".into(), "{{nope}}".into())]).unwrap_err();
        assert!(bad.starts_with("--header has {{nope}}, which is not a placeholder"), "{bad}");
    }
}
