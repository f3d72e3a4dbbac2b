//! What a reading run's rounds read, said in one line under the table.

use super::{RunReport, plural};
use crate::config::Workload;
use units::format_size;

impl RunReport {
    /// What the download rounds read, in one line.
    pub(super) fn reads_line(&self) -> String {
        // A merged report has each host's seed, not one.
        let seed = self.read_seed.map_or("seeds per host".to_string(), |seed| format!("seed {seed:#x}"));
        let what = match (self.config.range_size, &self.config.ranges) {
            (0, _) => "whole objects".to_string(),
            (size, None) => format!("{} at a random aligned offset of each ({seed})", format_size(size)),
            (size, Some(plan)) => format!(
                "{} of {} of each object, all wanted at once, {} ({}, {seed})",
                plural(plan.per_object as usize, "range"),
                plan.sizes.describe(size),
                if plan.sequential { "in a row from a random start" } else { "each at a random offset" },
                if plan.sizes.is_fixed() { "aligned" } else { "on 4 KiB boundaries" }
            ),
        };
        // What gRPC is sent is paced by the window we grant: it matters for reads.
        let window = match self.config.grpc_window {
            Some(window) => format!("{} (--grpc-window; auto adapts it)", format_size(u64::from(window))),
            None => "adaptive (BDP-sized, --grpc-window auto; a size fixes it)".into(),
        };
        let objects = match (&self.config.read_prefix, self.config.workload) {
            (Some(prefix), _) => format!("the existing objects under {prefix} (read only, never deleted)"),
            (None, Workload::W1r3) => {
                return format!(
                    "w1r3: each round uploads {} of {} (timed), then reads each {} times over the same transport: {what}; gRPC receive window {window}",
                    plural(self.config.concurrency as usize, "object"),
                    format_size(self.config.object_size),
                    crate::config::W1R3_READS
                );
            }
            (None, _) => format!(
                "{} of {} (uploaded untimed, deleted at the end)",
                plural(self.config.concurrency as usize, "prepared object"),
                format_size(self.config.object_size)
            ),
        };
        let workload = self.config.workload.name();
        format!("{workload}: {objects}, each round reads {what}; gRPC receive window {window}")
    }
}
