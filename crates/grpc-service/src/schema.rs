//! Where a service's types come from: .proto files compiled in-process by
//! protox (no protoc on the user's machine), a descriptor set from
//! `protoc --descriptor_set_out` or `buf build`, or the server itself
//! (`reflection`).

use crate::error::{Result, ServiceError};
use prost_reflect::DescriptorPool;
use std::path::{Path, PathBuf};

/// The .proto files and the directories their imports are found in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProtoFiles {
    pub files: Vec<PathBuf>,
    pub includes: Vec<PathBuf>,
}

/// Compiles the files with their imports. google/protobuf's own files are
/// the built-in ones before any include directory's: bundles of Google's
/// protos (npm's google-proto-files, a googleapis checkout beside protobuf's
/// `src/`) carry a descriptor.proto newer than the compiler reads, and the
/// built-in types are the same types. A file is a path, or a name under an
/// include directory (`google/storage/v2/storage.proto`, as protoc takes
/// it); one outside every include directory brings its own directory, as
/// protoc's users expect of a lone file.
pub fn compile(protos: &ProtoFiles) -> Result<DescriptorPool> {
    let mut includes = protos.includes.clone();
    let mut files = Vec::new();
    for file in &protos.files {
        let found = match file.exists() {
            true => file.clone(),
            false => protos.includes.iter().map(|dir| dir.join(file)).find(|p| p.exists()).ok_or_else(|| {
                ServiceError::Own {
                    kind: crate::error::INPUT,
                    message: format!("--proto {}: no such file, here or under an -I directory", file.display()),
                }
            })?,
        };
        if !includes.iter().any(|dir| inside(&found, dir))
            && let Some(parent) = found.parent()
        {
            includes.push(if parent.as_os_str().is_empty() { PathBuf::from(".") } else { parent.to_path_buf() });
        }
        files.push(found);
    }
    let said = |e: protox::Error| ServiceError::Own { kind: crate::error::INPUT, message: compiler_said(&e) };
    let mut resolver = protox::file::ChainFileResolver::new();
    resolver.add(protox::file::GoogleFileResolver::new());
    for include in &includes {
        resolver.add(protox::file::IncludeFileResolver::new(include.clone()));
    }
    let mut compiler = protox::Compiler::with_file_resolver(resolver);
    compiler.include_imports(true).include_source_info(false);
    compiler.open_files(&files).map_err(said)?;
    // The pool, not the encoded set: it keeps the options' extension values
    // (google.api.http) that decoding the set again would need resolving.
    Ok(compiler.descriptor_pool())
}

fn inside(file: &Path, dir: &Path) -> bool {
    let absolute = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    absolute(file).starts_with(absolute(dir))
}

/// The compiler's message on one line: the first error with where it is.
fn compiler_said(error: &protox::Error) -> String {
    let text = error.to_string();
    let first = text.lines().next().unwrap_or("").trim().trim_end_matches('.');
    let at = error.file().map(|f| format!(" in {f}{}", line_and_column(error))).unwrap_or_default();
    // The import hint only where an import was not found: a typo is not one.
    let what_to_do = match error.is_file_not_found() {
        true => "give the directories its imports are in with --import-path (-I)",
        false => "fix it",
    };
    format!("the .proto does not compile{at}: {first}; {what_to_do}")
}

/// `:LINE:COLUMN` of the error's first label, as compilers say it; empty
/// when the error points nowhere in a file (a missing file).
fn line_and_column(error: &protox::Error) -> String {
    use miette::Diagnostic;
    let place = || {
        let label = error.labels()?.next()?;
        let span = error.source_code()?.read_span(label.inner(), 0, 0).ok()?;
        Some(format!(":{}:{}", span.line() + 1, span.column() + 1))
    };
    place().unwrap_or_default()
}

/// A `FileDescriptorSet` as protoc or buf writes it (with its imports).
pub fn descriptor_set(path: &Path) -> Result<DescriptorPool> {
    let bytes = std::fs::read(path).map_err(|e| ServiceError::Own {
        kind: crate::error::INPUT,
        message: format!("--descriptor-set {}: cannot read it ({e})", path.display()),
    })?;
    DescriptorPool::decode(bytes.as_slice()).map_err(|e| {
        ServiceError::Own { kind: crate::error::INPUT, message: format!(
            "--descriptor-set {}: not a FileDescriptorSet with its imports ({e}); write one with protoc --include_imports --descriptor_set_out",
            path.display()
        ) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_lone_file_finds_its_neighbours() {
        let dir = std::env::temp_dir().join(format!("schema-lone-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write(&dir, "b.proto", "syntax = \"proto3\"; package p; message B { int64 n = 1; }");
        let a = write(&dir, "a.proto", "syntax = \"proto3\"; package p; import \"b.proto\"; message A { B b = 1; }");
        let pool = compile(&ProtoFiles { files: vec![a], includes: vec![] }).unwrap();
        assert!(pool.get_message_by_name("p.A").is_some());
        assert!(pool.get_message_by_name("p.B").is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn google_protobuf_is_the_built_in_before_an_include_directorys_and_a_file_may_be_a_name_under_one() {
        let dir = std::env::temp_dir().join(format!("schema-bundle-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("google/protobuf")).unwrap();
        std::fs::create_dir_all(dir.join("acme/v1")).unwrap();
        // A bundle's descriptor.proto in a syntax this compiler does not read (as npm's google-proto-files has).
        write(
            &dir,
            "google/protobuf/descriptor.proto",
            "syntax = \"proto2\";\nmessage X { extensions 9 [declaration = {}]; }",
        );
        let service = "syntax = \"proto3\"; package acme.v1; import \"google/protobuf/timestamp.proto\";\n\
                       import \"google/protobuf/descriptor.proto\"; message A { google.protobuf.Timestamp at = 1; }";
        write(&dir, "acme/v1/a.proto", service);
        let files = ProtoFiles { files: vec!["acme/v1/a.proto".into()], includes: vec![dir.clone()] };
        let pool = compile(&files).unwrap();
        let at = pool.get_message_by_name("acme.v1.A").unwrap().get_field_by_name("at").unwrap();
        assert_eq!(at.kind().as_message().unwrap().full_name(), "google.protobuf.Timestamp");
        let missing = ProtoFiles { files: vec!["acme/v1/none.proto".into()], includes: vec![dir.clone()] };
        let said = compile(&missing).unwrap_err().to_string();
        assert_eq!(said, "--proto acme/v1/none.proto: no such file, here or under an -I directory");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_broken_file_is_one_sentence_naming_it() {
        let dir = std::env::temp_dir().join(format!("schema-broken-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // The `;` where the number belongs: line 2, column 23.
        let bad = write(&dir, "bad.proto", "syntax = \"proto3\";\nmessage A { int64 n = ; }");
        let said = compile(&ProtoFiles { files: vec![bad], includes: vec![] }).unwrap_err().to_string();
        assert!(said.starts_with("the .proto does not compile in bad.proto:2:23: "), "{said}");
        assert!(said.ends_with("; fix it") && !said.contains("--import-path"), "not an import: {said}");
        assert_eq!(said.lines().count(), 1, "{said}");
        let missing = write(&dir, "imports.proto", "syntax = \"proto3\"; import \"nowhere.proto\";");
        let said = compile(&ProtoFiles { files: vec![missing], includes: vec![] }).unwrap_err().to_string();
        assert!(said.contains("nowhere.proto"), "{said}");
        assert!(said.ends_with("give the directories its imports are in with --import-path (-I)"), "{said}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
