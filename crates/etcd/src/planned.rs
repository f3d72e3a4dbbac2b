//! An etcd run as every front end starts it (`PlannedRun`).

use crate::options::EtcdConfig;
use crate::runner::{CLIENT_THREAD_NAME, ClientRuntime, EtcdRunner};
use engine::finished::FinishedRun;
use engine::live::LanePlan;
use engine::outlet::Outlets;
use engine::planned::{Connected, PlannedRun, Ran, Remains, Start};

impl PlannedRun for EtcdConfig {
    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn stopping_sentence(&self) -> String {
        EtcdConfig::stopping_sentence(self)
    }

    fn round_words(&self) -> engine::events::RoundWords {
        EtcdConfig::round_words(self)
    }

    fn where_said(&self) -> String {
        format!("etcd at {}", self.reach.endpoints.join(","))
    }

    fn sign_in_said(&self) -> String {
        match &self.reach.user {
            Some((user, _)) => format!("user: {user} (both transports sign in)"),
            None => "user: none (for a cluster with auth on, set User and Password)".into(),
        }
    }

    fn lane_plan(&self) -> LanePlan {
        EtcdConfig::lane_plan(self)
    }

    fn run<'a>(self: Box<Self>, start: Start, connected: Connected<'a>) -> Ran<'a> {
        Box::pin(async move {
            let Start { events, cancel, host, begin } = start;
            let stopping = self.stopping_sentence();
            // Small requests cost more in thread hand-offs than in work: the
            // client gets threads of its own (half the CPUs by default,
            // leaving etcd on loopback the rest), whose CPU alone is the client's.
            let client = ClientRuntime::new(self.client_threads, CLIENT_THREAD_NAME)?;
            let runner = client.run(EtcdRunner::connect(*self, cancel)).await.map_err(|e| e.to_string())?;
            let prefix = runner.run_prefix();
            let names = Box::new(move || vec![format!("etcd keys under {prefix}")]);
            connected(Remains { stopping, nouns: ["key prefix", "key prefixes"], names })?;
            let mut report = client.run(runner.with_events(events).starting(begin).run()).await;
            if let Some(host) = host {
                report.label_host(host);
            }
            Ok(Box::new(report) as Box<dyn FinishedRun>)
        })
    }
}
