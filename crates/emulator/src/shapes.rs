//! The shapes of answer the v2 proto and the JSON API allow a server, so a
//! client can be tried against each: what a real server may leave out, the
//! emulator can leave out too.

/// The shapes of a read's checksums that the v2 proto and the JSON API
/// allow a server, so a client's reader can be tried against each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ReadChecksums {
    /// gRPC: `object_checksums`, `metadata.checksums` and each message's
    /// crc32c; JSON: `x-goog-hash`.
    #[default]
    Full,
    /// gRPC: the object's only in the first message's `metadata.checksums`,
    /// no message's crc32c; JSON: `x-goog-hash` as with full.
    Metadata,
    /// No checksum at all: gRPC sends none, JSON no `x-goog-hash`.
    None,
}

/// What a JSON upload's final answer carries. GCS answers with the whole
/// object resource, but a server (or a `fields=` partial response) may leave
/// out all but the name and generation: a client must not take a missing
/// size for a short write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum UploadAnswers {
    /// The whole object resource, as GCS sends it.
    #[default]
    Full,
    /// Only kind, name, bucket and generation: no size, no checksums.
    Minimal,
}
