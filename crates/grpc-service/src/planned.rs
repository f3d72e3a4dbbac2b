//! A `grpc run` as every front end starts it (`PlannedRun`).

use crate::config::ServiceConfig;
use crate::runner::{CLIENT_THREAD_NAME, ClientRuntime, ServiceRunner};
use engine::finished::FinishedRun;
use engine::live::LanePlan;
use engine::outlet::Outlets;
use engine::planned::{Connected, PlannedRun, Ran, Remains, Start};

impl PlannedRun for ServiceConfig {
    fn notes(&self) -> &[String] {
        &self.notes
    }

    fn stopping_sentence(&self) -> String {
        ServiceConfig::stopping_sentence(self)
    }

    fn round_words(&self) -> engine::events::RoundWords {
        ServiceConfig::round_words(self)
    }

    fn where_said(&self) -> String {
        format!("{} at {}", self.method_name(), self.reach.grpc_endpoint)
    }

    fn sign_in_said(&self) -> String {
        let headers = match self.reach.headers.len() + self.call_headers.names().count() {
            0 => "headers: none".into(),
            n => format!("headers: {n}, on both transports"),
        };
        match &self.sign_in {
            Some(sign_in) => format!("sign-in: {} · {headers}", sign_in.said()),
            None => headers,
        }
    }

    fn lane_plan(&self) -> LanePlan {
        ServiceConfig::lane_plan(self)
    }

    fn run<'a>(self: Box<Self>, start: Start, connected: Connected<'a>) -> Ran<'a> {
        Box::pin(async move {
            let Start { events, cancel, host, begin } = start;
            let stopping = self.stopping_sentence();
            // The calls' effects, named by the run ID their requests carry,
            // with whether a cleanup call was due (a second Ctrl-C may come
            // before it is sent, or before it is answered).
            let cleanup = match self.cleanup_call.is_some() && self.cleanup {
                true => "the cleanup call may not have been sent or answered",
                false => "no cleanup call was asked",
            };
            let method = self.method_name();
            let client = ClientRuntime::new(self.client_threads, CLIENT_THREAD_NAME)?;
            let runner = client.run(ServiceRunner::connect(*self, cancel)).await.map_err(|e| e.to_string())?;
            let effects = format!("what {method} calls of run {} made: {cleanup}", runner.run_id());
            let names = Box::new(move || vec![effects.clone()]);
            connected(Remains { stopping, nouns: ["set of call effects", "sets of call effects"], names })?;
            let mut report = client.run(runner.with_events(events).starting(begin).run()).await;
            if let Some(host) = host {
                report.label_host(host);
            }
            Ok(Box::new(report) as Box<dyn FinishedRun>)
        })
    }
}
