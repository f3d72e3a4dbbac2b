//! `--workload ranges`: how many ranges each reader wants of its object at
//! once, where they lie, and how gRPC asks for them.

use super::{ConfigError, Options, Workload, fail, parse_count};
use crate::transport::grpc::RangeReads;

/// GCS takes up to 1,000 ranges on one BidiReadObject stream before it
/// must be reopened; a read asks for at most that many.
pub const MAX_RANGES_PER_OBJECT: u32 = 1000;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RangesPlan {
    /// Ranges each reader wants of its object per round, all at once.
    pub per_object: u32,
    /// One after another from a drawn start (else each drawn at random).
    pub sequential: bool,
    /// How gRPC asks for them.
    pub grpc: RangeReads,
}

impl Options {
    /// The plan of a ranges workload (`None` for the others, whose range
    /// flags must then be left alone).
    pub(super) fn ranges_plan(&self, workload: Workload, range_size: u64) -> Result<Option<RangesPlan>, ConfigError> {
        if workload != Workload::Ranges {
            let flags = [
                (&self.ranges_per_object, "16", "ranges_per_object", "--ranges-per-object"),
                (&self.range_order, "random", "range_order", "--range-order"),
                (&self.grpc_ranges, "bidi", "grpc_ranges", "--grpc-ranges"),
            ];
            return left_alone(&flags, "ranges").map(|()| None);
        }
        if range_size == 0 {
            return fail("range_size", "--workload ranges needs --range-size (the bytes of each range, e.g. 64KiB)");
        }
        let per_object = parse_count(&self.ranges_per_object, "ranges_per_object", 1, MAX_RANGES_PER_OBJECT)?;
        let sequential = match self.range_order.trim() {
            "random" => false,
            "sequential" => true,
            other => return fail("range_order", format!("--range-order '{other}' is not one of random, sequential")),
        };
        let grpc = match self.grpc_ranges.trim() {
            "bidi" => RangeReads::Bidi,
            "read-object" => RangeReads::EachApart,
            other => return fail("grpc_ranges", format!("--grpc-ranges '{other}' is not one of bidi, read-object")),
        };
        Ok(Some(RangesPlan { per_object, sequential, grpc }))
    }
}

/// Refuses a flag of one workload (`(text, default, field, flag)`) given
/// a value other than its default in a run of another.
pub(super) fn left_alone(flags: &[(&String, &str, &'static str, &str)], workload: &str) -> Result<(), ConfigError> {
    for (text, default, field, flag) in flags {
        let text = text.trim();
        if !text.is_empty() && text != *default {
            return fail(field, format!("{flag} is for --workload {workload}: add it, or leave {flag} out"));
        }
    }
    Ok(())
}
