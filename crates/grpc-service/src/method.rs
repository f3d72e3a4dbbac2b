//! The method a run calls, found by `pkg.Service/Method` in the service's
//! descriptors; a name that is not there is answered with the close ones.

use crate::error::{Result, ServiceError};
use prost_reflect::{DescriptorPool, MethodDescriptor};

/// The method `name` names (`pkg.Service/Method`; `pkg.Service.Method`
/// and a leading `/` are taken too, as grpcurl and the wire write it).
pub fn find(pool: &DescriptorPool, name: &str) -> Result<MethodDescriptor> {
    let trimmed = name.trim().trim_start_matches('/');
    let (service, method) =
        trimmed.rsplit_once('/').or_else(|| trimmed.rsplit_once('.')).ok_or_else(|| ServiceError::Own {
            kind: crate::error::INPUT,
            message: format!("--method {name}: give it as pkg.Service/Method"),
        })?;
    let found = pool.get_service_by_name(service).and_then(|s| s.methods().find(|m| m.name() == method));
    found.ok_or_else(|| not_found(pool, name, &format!("{service}/{method}")))
}

/// Every method of every service, as `--method` takes it.
pub fn all(pool: &DescriptorPool) -> Vec<String> {
    let mut names = Vec::new();
    for service in pool.services() {
        names.extend(service.methods().map(|m| format!("{}/{}", service.full_name(), m.name())));
    }
    names
}

fn not_found(pool: &DescriptorPool, asked: &str, wanted: &str) -> ServiceError {
    let every = all(pool);
    if every.is_empty() {
        return ServiceError::Own {
            kind: crate::error::INPUT,
            message: format!("--method {asked}: the descriptors define no service"),
        };
    }
    let named = closest(&every, wanted);
    let hint = match named.as_slice() {
        [] if every.len() <= 6 => format!("the methods are {}", every.join(", ")),
        [] => format!("there are {} methods, in services {}", every.len(), services(pool)),
        close => format!("did you mean {}?", close.join(" or ")),
    };
    ServiceError::Own { kind: crate::error::INPUT, message: format!("--method {asked}: no such method; {hint}") }
}

/// The names in `every` closest to `wanted`: a few edits apart (a typo, a
/// case, a dropped package), the closest only, at most three.
pub(crate) fn closest<'a>(every: &'a [String], wanted: &str) -> Vec<&'a str> {
    let mut close: Vec<(usize, &String)> = every
        .iter()
        .map(|m| (strsim::levenshtein(&m.to_lowercase(), &wanted.to_lowercase()), m))
        // Fewer edits than half the name: `zzz` is not "close" to `kvs`.
        .filter(|(edits, m)| *edits <= 3.max(m.len() / 4) && edits * 2 < m.len().min(wanted.len()))
        .collect();
    close.sort();
    // A near miss is not crowded out by further ones.
    let best = close.first().map(|(edits, _)| *edits);
    close.retain(|(edits, _)| Some(*edits) == best);
    close.iter().take(3).map(|(_, m)| m.as_str()).collect()
}

fn services(pool: &DescriptorPool) -> String {
    pool.services().map(|s| s.full_name().to_string()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> DescriptorPool {
        crate::testing::compile(
            "syntax = \"proto3\"; package demo.v1;
             message Q { string key = 1; }
             message A { string value = 1; }
             service KV { rpc Put(Q) returns (A); rpc Range(Q) returns (A); rpc Watch(Q) returns (stream A); }",
        )
    }

    #[test]
    fn methods_are_found_by_the_names_people_write() {
        let pool = pool();
        for name in ["demo.v1.KV/Put", "/demo.v1.KV/Put", "demo.v1.KV.Put"] {
            assert_eq!(find(&pool, name).unwrap().full_name(), "demo.v1.KV.Put", "{name}");
        }
        assert!(find(&pool, "demo.v1.KV/Watch").unwrap().is_server_streaming());
    }

    #[test]
    fn a_missing_method_names_the_close_ones() {
        let pool = pool();
        let said = find(&pool, "demo.v1.KV/Putt").unwrap_err().to_string();
        assert_eq!(said, "--method demo.v1.KV/Putt: no such method; did you mean demo.v1.KV/Put?");
        let said = find(&pool, "other.Thing/Else").unwrap_err().to_string();
        assert_eq!(
            said,
            "--method other.Thing/Else: no such method; the methods are demo.v1.KV/Put, demo.v1.KV/Range, demo.v1.KV/Watch"
        );
        assert!(find(&pool, "Put").unwrap_err().to_string().contains("pkg.Service/Method"));
    }
}
