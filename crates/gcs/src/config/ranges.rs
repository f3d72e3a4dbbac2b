//! `--workload ranges`: how many ranges each reader wants of its object at
//! once, how large they are, where they lie, and how gRPC asks for them.

use super::{ConfigError, Options, TransportKind, Workload, fail, flag_error, parse_count};
use crate::transport::grpc::RangeReads;

/// GCS takes up to 1,000 ranges on one BidiReadObject stream before it
/// must be reopened; a read asks for at most that many.
pub const MAX_RANGES_PER_OBJECT: u32 = 1000;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct RangesPlan {
    /// Ranges each reader wants of its object per round, all at once.
    pub per_object: u32,
    /// Their sizes, when they differ (else each is `--range-size`).
    #[serde(default, skip_serializing_if = "RangeSizes::is_fixed")]
    pub sizes: RangeSizes,
    /// One after another from a drawn start (else each drawn at random).
    pub sequential: bool,
    /// How gRPC asks for them.
    pub grpc: RangeReads,
}

impl Options {
    /// The plan of a ranges workload (`None` for the others, whose range
    /// flags must then be left alone).
    pub(super) fn ranges_plan(
        &self,
        workload: Workload,
        range_size: u64,
        sizes: RangeSizes,
    ) -> Result<Option<RangesPlan>, ConfigError> {
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
        Ok(Some(RangesPlan { per_object, sizes, sequential, grpc }))
    }
}

/// `grpc-read-object` is a ranges run's lane, and differs from `grpc` only
/// while `grpc` reads on one BidiReadObject stream.
pub(super) fn check_lanes(transports: &[TransportKind], plan: Option<&RangesPlan>) -> Result<(), ConfigError> {
    if !transports.contains(&TransportKind::GrpcReadObject) {
        return Ok(());
    }
    match plan {
        None => fail(
            "transports",
            "--transports grpc-read-object is for --workload ranges: use both, http-json or grpc for other runs",
        ),
        Some(plan) if plan.grpc == RangeReads::EachApart && transports.contains(&TransportKind::Grpc) => fail(
            "transports",
            "--grpc-ranges read-object makes grpc read as grpc-read-object does: leave --grpc-ranges at bidi to pair the two",
        ),
        Some(_) => Ok(()),
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

/// The sizes of a read's ranges (`--range-size`): one size, a list taken in
/// turn (`4KiB,64KiB,1MiB`), or spread log-uniformly between two
/// (`4KiB..1MiB`, as Parquet's pages and column chunks spread). Each range
/// of a read has the same size in every read, so rounds move the same
/// bytes and compare.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RangeSizes {
    #[default]
    Fixed,
    List(Vec<u64>),
    Spread {
        smallest: u64,
        largest: u64,
    },
}

impl RangeSizes {
    /// `--range-size`'s text: its largest size (0 for none), and the sizes.
    pub fn parse(text: &str) -> Result<(u64, RangeSizes), ConfigError> {
        let size = |part: &str| units::parse_size(part.trim()).map_err(flag_error("range_size"));
        let positive = |part: &str| match size(part)? {
            0 => fail(
                "range_size",
                format!("--range-size {text}: '{}' is no size: each must be above zero", part.trim()),
            ),
            n => Ok(n),
        };
        if let Some((low, high)) = text.split_once("..") {
            let (smallest, largest) = (positive(low)?, positive(high)?);
            if smallest == largest {
                return fail(
                    "range_size",
                    format!("--range-size {text}: both ends are the same: give the one size, like {}", low.trim()),
                );
            }
            if smallest > largest {
                return fail("range_size", format!("--range-size {text}: put the smaller size first, like 4KiB..1MiB"));
            }
            return Ok((largest, RangeSizes::Spread { smallest, largest }));
        }
        if text.contains(',') {
            let list = text.split(',').map(positive).collect::<Result<Vec<u64>, _>>()?;
            return Ok((list.iter().copied().max().unwrap_or(0), RangeSizes::List(list)));
        }
        Ok((size(text)?, RangeSizes::Fixed))
    }

    pub fn is_fixed(&self) -> bool {
        *self == RangeSizes::Fixed
    }

    /// The size of each of `count` ranges, in order (`size` when fixed).
    pub fn each(&self, size: u64, count: u32) -> Vec<u64> {
        (0..count as usize)
            .map(|i| match self {
                RangeSizes::Fixed => size,
                RangeSizes::List(list) => list[i % list.len()],
                RangeSizes::Spread { smallest, largest } => {
                    // A fixed stream, not the run's seed: the same sizes in every run.
                    let unit = (units::splitmix64(i as u64 + 1) >> 11) as f64 / (1u64 << 53) as f64;
                    let (low, high) = ((*smallest as f64).ln(), (*largest as f64).ln());
                    ((low + unit * (high - low)).exp().round() as u64).clamp(*smallest, *largest)
                }
            })
            .collect()
    }

    /// "64 KiB", "4 KiB, 64 KiB and 1 MiB in turn", "4 KiB to 1 MiB (log-uniform)".
    pub fn describe(&self, size: u64) -> String {
        use units::format_size;
        match self {
            RangeSizes::Fixed => format_size(size),
            RangeSizes::List(list) => {
                let sizes: Vec<String> = list.iter().map(|&s| format_size(s)).collect();
                format!("{} in turn", sizes.join(", "))
            }
            RangeSizes::Spread { smallest, largest } => {
                format!("{} to {} (log-uniform)", format_size(*smallest), format_size(*largest))
            }
        }
    }
}

impl RangesPlan {
    /// Bytes one read of an object of `object_size` moves: each range,
    /// cut at the object's end.
    pub fn bytes_per_read(&self, range_size: u64, object_size: u64) -> u64 {
        self.sizes.each(range_size, self.per_object).iter().map(|&s| s.min(object_size)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_sizes_are_one_a_list_in_turn_or_a_log_uniform_spread() {
        assert_eq!(RangeSizes::parse("64KiB").unwrap(), (64 << 10, RangeSizes::Fixed));
        let (largest, list) = RangeSizes::parse("4KiB, 1MiB,64KiB").unwrap();
        assert_eq!((largest, list.each(0, 5)), (1 << 20, vec![4 << 10, 1 << 20, 64 << 10, 4 << 10, 1 << 20]));
        let (largest, spread) = RangeSizes::parse("4KiB..1MiB").unwrap();
        assert_eq!(largest, 1 << 20);
        let sizes = spread.each(0, 1000);
        assert!(sizes.iter().all(|s| (4 << 10..=1 << 20).contains(s)), "within the bounds");
        assert_eq!(sizes, spread.each(0, 1000), "the same sizes every time");
        // Log-uniform: as many below the geometric mean (64 KiB) as above it.
        let below = sizes.iter().filter(|&&s| s < 64 << 10).count();
        assert!((400..600).contains(&below), "{below} of 1,000 below 64 KiB");
        for bad in ["1MiB..4KiB", "4KiB..4KiB", "0,4KiB", "4KiB,", "4KiB..ten"] {
            assert_eq!(RangeSizes::parse(bad).unwrap_err().field, "range_size", "{bad}");
        }
    }
}
