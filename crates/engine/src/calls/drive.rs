//! The part of a run every target of calls does alike: say it started,
//! prepare (its check and warmup), wait for `--start-at`, then the timed
//! rounds; and say why they ended where they did, a limit met before any
//! round as one met in the rounds is.

use crate::events::{Phase, RunEvent};
use crate::outlet::Outlets;
use crate::plan::Schedule;
use crate::{Rounds, Stop};
use std::future::Future;
pub use tokio_util::sync::CancellationToken;

/// When a run must end (`--timeout`).
pub type Deadline = tokio::time::Instant;

/// What a runner of calls gives the shared part of its run.
pub trait CallsRunner: Rounds + Outlets {
    fn run_id(&self) -> String;
    /// Where the run goes, as its start says it: `etcd at ... · keys under ...`.
    fn announced(&self) -> String;
    fn schedule(&self) -> &Schedule;
    /// The check and warmup before the timed rounds.
    fn prepare(&mut self) -> impl Future<Output = Option<Stop>>;
    /// What stops the run, and when it must end (`--timeout`).
    fn cancel_and_deadline(&mut self) -> (&CancellationToken, &mut Deadline);
    /// The timed rounds begin now (`Rounds::measuring_for` counts from here).
    fn begin_measuring(&mut self);
}

/// Announces, prepares, waits for `--start-at` and runs the timed rounds:
/// why the run stopped early, if it did, and what was said of its end.
pub async fn run_rounds<R: CallsRunner>(runner: &mut R) -> (Option<Stop>, Option<String>) {
    runner.outlet().restart();
    let schedule = runner.schedule().clone();
    let started = RunEvent::Started {
        run_id: runner.run_id(),
        target: runner.announced(),
        rounds_per_transport: schedule.duration.is_none().then_some(schedule.iterations),
    };
    runner.outlet().emit(started).await;
    let mut stop = runner.prepare().await;
    if stop.is_none()
        && let Some(at) = runner.outlet().start_at
    {
        let (cancel, deadline) = runner.cancel_and_deadline();
        match crate::start::begin_at(at, cancel, deadline).await {
            Ok(Some(late)) => runner.outlet().say(late).await,
            Ok(None) => {}
            Err(why) => stop = Some(why),
        }
    }
    // A limit met before any round: said, as a limit met in the rounds is.
    let mut because = (stop == Some(Stop::TimedOut)).then(|| {
        let limit = units::format_duration(schedule.timeout);
        format!("--timeout {limit} ran out before the timed rounds began")
    });
    if stop.is_none() {
        runner.outlet().emit(RunEvent::Phase(Phase::Measuring)).await;
        runner.begin_measuring();
        (stop, because) = crate::measure(runner, &schedule).await;
    }
    if let Some(why) = &because {
        runner.outlet().say(why.clone()).await;
    }
    (stop, because)
}

/// The `CallsRunner` methods every runner of calls answers from its fields,
/// which each names alike (`run_id`, `cancel`, `deadline`,
/// `measuring_since`): said once here, expanded inside each impl.
#[macro_export]
macro_rules! calls_runner_fields {
    () => {
        fn run_id(&self) -> String {
            self.run_id.clone()
        }

        fn cancel_and_deadline(
            &mut self,
        ) -> (&$crate::calls::drive::CancellationToken, &mut $crate::calls::drive::Deadline) {
            (&self.cancel, &mut self.deadline)
        }

        fn begin_measuring(&mut self) {
            self.measuring_since = ::std::time::Instant::now();
        }
    };
}

/// `Rounds` for a runner of calls whose rounds are `$round`s in its field
/// `rounds`, timed from `measuring_since`, each measured by its own
/// `round(kind, Some(round))`.
#[macro_export]
macro_rules! rounds_of_calls {
    ($runner:ty, $round:ty) => {
        impl $crate::Rounds for $runner {
            type Round = $round;

            async fn measure_round(&mut self, kind: $crate::plan::TransportKind, round: u32) -> Option<$crate::Stop> {
                self.round(kind, Some(round)).await.err()
            }

            fn rounds(&self) -> &[$round] {
                &self.rounds.rounds
            }

            fn measuring_for(&self) -> ::std::time::Duration {
                self.measuring_since.elapsed()
            }
        }
    };
}
