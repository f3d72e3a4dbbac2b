//! What the app's live pane plans for a GCS run, and how its lanes read
//! their figures: as the report will show them (`Shown`), percentiles by
//! the report's own histogram and rounding.

use crate::config::{BenchConfig, W1R3_READS, Workload};
use crate::report::Shown;
use crate::stats::{Operation, at_most_the_slowest, latency_histogram, quantile_s};
use engine::live::{LanePlan, LiveReading, Work};
use std::sync::Arc;

impl LiveReading for Shown {
    fn rate_number(&self, rate: f64) -> String {
        Shown::rate_number(self, rate)
    }

    fn rate_name(&self) -> &'static str {
        Shown::rate_name(self)
    }

    fn per_item(&self) -> bool {
        self.small
    }

    fn item_percentiles(&self, seconds: &[f64]) -> Option<[String; 3]> {
        let histogram = latency_histogram(seconds);
        let at = |q| at_most_the_slowest(quantile_s(&histogram, q), seconds);
        Some([at(0.50)?, at(0.90)?, at(0.99)?].map(|s| self.time(Some(s))))
    }
}

impl BenchConfig {
    /// The live pane's plan: each transport's rounds, objects (w1r3: one
    /// write and three reads of each) and bytes.
    pub fn lane_plan(&self) -> LanePlan {
        let reading = |one, items| Work { weighed: true, one, counted: "bytes", doing: ["reading "; 2], items };
        let work = match self.workload {
            Workload::Upload | Workload::Append => Work { doing: ["uploading "; 2], ..reading("upload", "objects") },
            Workload::Download => reading("download", "objects"),
            // Each item a reader's many ranges of one object.
            Workload::Ranges => reading("read", "reads"),
            // Each round uploads, then reads what it wrote.
            Workload::W1r3 => Work { doing: ["uploading ", "reading "], ..reading("transfer", "objects") },
        };
        let items_per_object = if self.workload == Workload::W1r3 { 1 + W1R3_READS } else { 1 };
        LanePlan {
            transports: self.transports.clone(),
            rounds: self.iterations,
            items: self.iterations * self.concurrency * items_per_object,
            amount: self.bytes_per_round() * self.iterations as u64,
            work,
            parts: Operation::of(self.workload).iter().map(|o| o.name()).collect(),
            duration_s: self.duration.map(|d| d.as_secs_f64()),
            reading: Arc::new(Shown::for_config(self)),
            open_rate: self.open_loop.as_ref().map(|open| open.rate),
        }
    }
}
