//! The run's verdict in words: in open loop on latency at the offered
//! rate (which sets the throughput), then on throughput.

use super::report::{EtcdReport, mode_name};

impl EtcdReport {
    /// The verdict, or why there is none: in open loop on latency at the
    /// offered rate (which sets the throughput).
    pub fn summary_line(&self) -> String {
        match &self.open_loop {
            Some(open) => open.verdict(),
            None => self.throughput_verdict(),
        }
    }

    /// The verdict a line each: in open loop on latency, then on throughput.
    pub fn verdict_lines(&self) -> Vec<String> {
        match &self.open_loop {
            Some(open) => vec![open.verdict(), format!("{}{}", open.throughput_said(), self.throughput_verdict())],
            None => vec![self.throughput_verdict()],
        }
    }

    fn throughput_verdict(&self) -> String {
        match &self.comparison {
            Some(verdict) => verdict.sentence.clone(),
            None if let Some(apart) = self.fleet.as_ref().and_then(|f| f.apart.as_ref()) => {
                format!("no fleet verdict: {apart}")
            }
            None => format!("etcd {}: one transport, no comparison", mode_name(self.config.mode)),
        }
    }
}
