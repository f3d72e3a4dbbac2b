//! `grpc run`'s own options as the app's form holds them: each a line of
//! text (several files or fields a comma apart, headers a `;` apart, as a
//! header's value may hold commas), turned into the flags and back.

use crate::options::ServiceArgs;
use std::path::PathBuf;
use target_api::flags::TlsFlags;

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct GrpcOptions {
    pub method: String,
    pub protos: String,
    pub import_paths: String,
    pub descriptor_set: String,
    pub reflect: bool,
    pub data: String,
    pub grpc_endpoint: String,
    pub http_endpoint: String,
    pub http_mapping: String,
    pub http_path: String,
    pub ignore_fields: String,
    pub check: bool,
    pub headers: String,
    pub auth: String,
    pub credentials: String,
    pub scopes: String,
    pub cacert: String,
    pub cert: String,
    pub key: String,
    pub cleanup_method: String,
    pub cleanup_data: String,
    pub clients: String,
    pub requests: String,
    pub conns: String,
    pub client_threads: Option<u16>,
}

impl Default for GrpcOptions {
    fn default() -> Self {
        GrpcOptions::from_service(&ServiceArgs::default())
    }
}

/// `a, b` as a list; empty parts left out.
fn list(text: &str, separator: char) -> Vec<String> {
    text.split(separator).map(str::trim).filter(|p| !p.is_empty()).map(String::from).collect()
}

fn paths(text: &str) -> Vec<PathBuf> {
    list(text, ',').into_iter().map(PathBuf::from).collect()
}

fn path(text: &str) -> Option<PathBuf> {
    Some(text.trim()).filter(|t| !t.is_empty()).map(PathBuf::from)
}

fn joined(items: impl Iterator<Item = String>, separator: &str) -> String {
    items.collect::<Vec<_>>().join(separator)
}

fn shown(path: &Option<PathBuf>) -> String {
    path.as_ref().map(|p| p.display().to_string()).unwrap_or_default()
}

impl GrpcOptions {
    /// The form's text as `grpc run`'s service flags.
    pub fn service_args(&self) -> ServiceArgs {
        ServiceArgs {
            protos: paths(&self.protos),
            import_paths: paths(&self.import_paths),
            descriptor_set: path(&self.descriptor_set),
            reflect: self.reflect,
            method: self.method.clone(),
            data: self.data.clone(),
            grpc_endpoint: self.grpc_endpoint.clone(),
            http_endpoint: self.http_endpoint.clone(),
            http_mapping: self.http_mapping.clone(),
            http_path: self.http_path.clone(),
            ignore_fields: list(&self.ignore_fields, ','),
            check: self.check,
            headers: list(&self.headers, ';'),
            auth: self.auth.clone(),
            credentials: self.credentials.clone(),
            scopes: self.scopes.clone(),
            tls: TlsFlags { cacert: path(&self.cacert), cert: path(&self.cert), key: path(&self.key) },
            cleanup_method: self.cleanup_method.clone(),
            cleanup_data: self.cleanup_data.clone(),
            clients: self.clients.clone(),
            requests: self.requests.clone(),
            conns: self.conns.clone(),
            client_threads: self.client_threads,
        }
    }

    /// `grpc run`'s service flags as the form's text: the inverse of `service_args`.
    pub fn from_service(args: &ServiceArgs) -> GrpcOptions {
        let displayed = |paths: &[PathBuf]| joined(paths.iter().map(|p| p.display().to_string()), ", ");
        GrpcOptions {
            method: args.method.clone(),
            protos: displayed(&args.protos),
            import_paths: displayed(&args.import_paths),
            descriptor_set: shown(&args.descriptor_set),
            reflect: args.reflect,
            data: args.data.clone(),
            grpc_endpoint: args.grpc_endpoint.clone(),
            http_endpoint: args.http_endpoint.clone(),
            http_mapping: args.http_mapping.clone(),
            http_path: args.http_path.clone(),
            ignore_fields: args.ignore_fields.join(", "),
            check: args.check,
            headers: args.headers.join("; "),
            auth: args.auth.clone(),
            credentials: args.credentials.clone(),
            scopes: args.scopes.clone(),
            cacert: shown(&args.tls.cacert),
            cert: shown(&args.tls.cert),
            key: shown(&args.tls.key),
            cleanup_method: args.cleanup_method.clone(),
            cleanup_data: args.cleanup_data.clone(),
            clients: args.clients.clone(),
            requests: args.requests.clone(),
            conns: args.conns.clone(),
            client_threads: args.client_threads,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forms_text_and_the_flags_turn_into_each_other() {
        let form = GrpcOptions {
            protos: "a.proto, dir/b.proto".into(),
            import_paths: "inc".into(),
            ignore_fields: "header.revision, ts".into(),
            headers: "authorization: Bearer x, y; x-team: storage".into(),
            cacert: "ca.pem".into(),
            ..GrpcOptions::default()
        };
        let args = form.service_args();
        assert_eq!(args.protos, [PathBuf::from("a.proto"), PathBuf::from("dir/b.proto")]);
        assert_eq!(args.ignore_fields, ["header.revision", "ts"]);
        assert_eq!(args.headers, ["authorization: Bearer x, y", "x-team: storage"], "a value's comma stays");
        assert_eq!(args.tls.cacert, Some(PathBuf::from("ca.pem")));
        assert_eq!(GrpcOptions::from_service(&args), form);
    }
}
