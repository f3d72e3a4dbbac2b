//! `--workload append`: objects written in appends of `--append-size`,
//! each `--flush-every`th append flushed and its persistence awaited.

use super::ranges::left_alone;
use super::{ConfigError, Options, Workload, fail, flag_error, parse_count};
use gcs_protocol::rules::CHUNK_ALIGNMENT;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct AppendPlan {
    /// Bytes per append.
    pub size: u64,
    /// Appends per flush.
    pub flush_every: u32,
    /// A second gRPC stream reads each flush back as the object grows.
    #[serde(default)]
    pub read_back: bool,
}

impl AppendPlan {
    /// Bytes between two flushes: what JSON sends as one chunk.
    pub fn flush_bytes(&self) -> u64 {
        self.size * u64::from(self.flush_every)
    }
}

impl Options {
    /// The plan of an append workload (`None` for the others, whose append
    /// flags must then be left alone).
    pub(super) fn append_plan(&self, workload: Workload, object_size: u64) -> Result<Option<AppendPlan>, ConfigError> {
        if workload != Workload::Append {
            let flags = [
                (&self.append_size, "256KiB", "append_size", "--append-size"),
                (&self.flush_every, "1", "flush_every", "--flush-every"),
                (&self.read_back, "off", "read_back", "--read-back"),
            ];
            return left_alone(&flags, "append").map(|()| None);
        }
        let size = units::parse_size(&self.append_size).map_err(flag_error("append_size"))?;
        if size == 0 || size % CHUNK_ALIGNMENT != 0 {
            return fail(
                "append_size",
                "--append-size must be a positive multiple of 256 KiB (the JSON counterpart sends each flush as a resumable chunk)",
            );
        }
        if size > object_size {
            return fail("append_size", "--append-size is larger than the objects (--size): make it smaller");
        }
        let flush_every = parse_count(&self.flush_every, "flush_every", 1, 1 << 20)?;
        let read_back = match self.read_back.trim() {
            "on" => true,
            "off" => false,
            other => return fail("read_back", format!("--read-back '{other}' is not one of on, off")),
        };
        let plan = AppendPlan { size, flush_every, read_back };
        if plan.flush_bytes() > object_size {
            return fail(
                "flush_every",
                "--flush-every appends are more than one object (--size): flush at least once before the object's end",
            );
        }
        Ok(Some(plan))
    }
}
