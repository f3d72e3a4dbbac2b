//! The server's CPU, from etcd's own Prometheus endpoint: the counter
//! `process_cpu_seconds_total` at each member's `/metrics`, read before and
//! after a round, so the gateway's cost inside etcd becomes a number.

use super::client::{EtcdError, unreachable};
use wire::connections::root_cause;

pub struct ServerCpu {
    client: reqwest::Client,
    endpoints: Vec<String>,
}

impl ServerCpu {
    pub fn new(client: reqwest::Client, endpoints: Vec<String>) -> Self {
        Self { client, endpoints }
    }

    /// CPU seconds all members have used so far; `None` when a member does
    /// not publish the counter (not on Linux, or metrics turned off).
    pub async fn seconds(&self) -> Result<Option<f64>, EtcdError> {
        let mut total = 0.0;
        for endpoint in &self.endpoints {
            let url = format!("{endpoint}/metrics");
            let response = self.client.get(&url).send().await.map_err(|e| unreachable(endpoint, &root_cause(&e)))?;
            let text = response.text().await.map_err(|e| unreachable(endpoint, &root_cause(&e)))?;
            match cpu_seconds(&text) {
                Some(seconds) => total += seconds,
                None => return Ok(None),
            }
        }
        Ok(Some(total))
    }
}

/// The value of `process_cpu_seconds_total` in Prometheus' text format.
pub fn cpu_seconds(exposition: &str) -> Option<f64> {
    exposition
        .lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| line.strip_prefix("process_cpu_seconds_total "))
        .and_then(|value| value.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_cpu_counter_is_read_from_the_exposition() {
        let text = "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n\
                    # TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total 12.34\nprocess_max_fds 1024\n";
        assert_eq!(super::cpu_seconds(text), Some(12.34));
        assert_eq!(super::cpu_seconds("go_goroutines 7\n"), None);
    }
}
