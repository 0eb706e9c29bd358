//! The one seam between the command line and acd-core's client: the
//! [`Client`] and the command's call, polled as the driver protocol says
//! (`Client::poll`: every transmit that may go now, every event, the next
//! wake-up). Every rule (building, throttling, retries, timeouts, paging,
//! interpretation) is the core's; this only chains the calls of a command:
//! with `--learn-limits` the API index is read before a pager (so the core
//! learns the limit the server advertises), and `runs create --wait` waits
//! for the run it created (by the created run's `id`).

use crate::clock::Millis;
use acd_core::client::{
    ApiResponse, CallId, CallOptions, CallSpec, Client, ClientConfig, ClientError, Entropy, Event,
    NoticeLevel, PollOptions, Transmit,
};

/// The call of a command.
#[derive(Debug, Clone)]
pub enum Job {
    /// One call of the core as is: a request, a pager, a run wait.
    Call(CallSpec),
    /// Create a run; with `wait`, then wait for it to end.
    CreateRun {
        /// The `run_create` call.
        call: CallSpec,
        /// The wait's polling, when the command waits for the run.
        wait: Option<PollOptions>,
    },
}

impl Job {
    /// The job with `options` on each of its calls.
    pub fn with_options(self, options: &CallOptions) -> Self {
        match self {
            Job::Call(call) => Job::Call(call.with_options(options.clone())),
            Job::CreateRun { call, wait } => Job::CreateRun {
                call: call.with_options(options.clone()),
                wait,
            },
        }
    }
}

/// What one poll gives the drive loop.
pub struct Step {
    /// Requests to send now, all of them at once.
    pub transmits: Vec<Transmit>,
    /// The command's events, each with its notice level.
    pub events: Vec<(Event, Option<NoticeLevel>)>,
    /// When to poll again if no outcome arrives first.
    pub timeout: Option<Millis>,
}

/// The client and the command's call.
pub struct Engine {
    client: Client,
    id: CallId,
    /// The index read before paging, and the pager it precedes.
    prelude: Option<(CallId, CallSpec)>,
    /// After the run is created: wait for it with these options.
    follow: Option<(PollOptions, CallOptions)>,
    over: bool,
}

/// 32 bytes of OS entropy for the client's jitter and idempotency keys, so
/// no two processes share them.
fn os_entropy() -> Entropy {
    let mut seed = [0u8; 32];
    if getrandom::fill(&mut seed).is_err() {
        // No OS entropy: the process id and the clock still differ per run.
        let fallback = u64::from(std::process::id()) ^ crate::clock::system_now().rotate_left(17);
        return Entropy::from_seed(fallback);
    }
    Entropy(seed)
}

impl Engine {
    /// A client for `config` with its call `job`, started (so validated and
    /// built) before any I/O; `learn_limits` reads the index before a pager.
    pub fn new(config: ClientConfig, job: Job, learn_limits: bool) -> Result<Self, ClientError> {
        let mut client = Client::new(config, os_entropy())?;
        let (call, follow) = match job {
            Job::Call(call) => (call, None),
            Job::CreateRun { call, wait } => {
                let options = call.options().clone();
                (call, wait.map(|wait| (wait, options)))
            }
        };
        let pages = matches!(call, CallSpec::TablePages(_) | CallSpec::ConnectionPages(_));
        let mut id = client.start(call.clone())?;
        let mut prelude = None;
        if learn_limits && pages {
            client.cancel(id);
            let index = CallSpec::index().with_options(call.options().clone());
            id = client.start(index)?;
            prelude = Some((id, call));
        }
        Ok(Self {
            client,
            id,
            prelude,
            follow,
            over: false,
        })
    }

    /// One poll at `now`: the transmits to send, the command's events, the
    /// next wake-up.
    pub fn poll(&mut self, now: Millis) -> Step {
        let mut step = Step {
            transmits: Vec::new(),
            events: Vec::new(),
            timeout: None,
        };
        if self.over {
            return step;
        }
        loop {
            let batch = self.client.poll(now);
            step.transmits.extend(batch.transmits);
            step.timeout = batch.timeout.map(u64::from);
            let mut restarted = false;
            for ((id, event), level) in batch.events.into_iter().zip(batch.levels) {
                if self.over {
                    break;
                }
                restarted |= self.deliver(id, event, level, &mut step);
            }
            // A call started here has its first transmits in the next poll.
            if !restarted || self.over {
                return step;
            }
        }
    }

    /// Takes one event of the client; true when a new call was started.
    fn deliver(
        &mut self,
        id: CallId,
        event: Event,
        level: Option<NoticeLevel>,
        step: &mut Step,
    ) -> bool {
        if let Some((prelude, _)) = &self.prelude {
            if id == *prelude {
                // The index read shows its notices; its end starts the pager.
                return match event {
                    Event::Done | Event::Failed(_) => match self.prelude.take() {
                        Some((_, call)) => self.start(call, step),
                        None => false,
                    },
                    Event::Waiting { .. } | Event::Retrying { .. } | Event::Deprecation(_) => {
                        step.events.push((event, level));
                        false
                    }
                    _ => false,
                };
            }
        }
        if id != self.id {
            // A call that ended and was followed by another.
            return false;
        }
        match event {
            Event::Response { ref response, .. } if self.follow.is_some() => {
                self.follow_run(response, step)
            }
            Event::Done | Event::Failed(_) => {
                self.over = true;
                step.events.push((event, level));
                false
            }
            other => {
                step.events.push((other, level));
                false
            }
        }
    }

    fn start(&mut self, call: CallSpec, step: &mut Step) -> bool {
        match self.client.start(call) {
            Ok(id) => {
                self.id = id;
                true
            }
            Err(error) => {
                self.over = true;
                step.events.push((Event::Failed(error), None));
                false
            }
        }
    }

    /// The run was created: wait for it, by the created run's `id`.
    fn follow_run(&mut self, response: &ApiResponse, step: &mut Step) -> bool {
        let Some((poll, options)) = self.follow.take() else {
            return false;
        };
        let id = match response {
            ApiResponse::Object { value, .. } => {
                serde_json::from_str::<serde_json::Value>(value.get())
                    .ok()
                    .and_then(|run| run.get("id").and_then(|id| id.as_str().map(str::to_owned)))
            }
            _ => None,
        };
        match id {
            Some(id) => self.start(CallSpec::run_wait(id, poll).with_options(options), step),
            None => {
                self.over = true;
                step.events.push((
                    Event::Failed(ClientError::Protocol {
                        status: response.status(),
                        problem: "the created run has no string `id` member to wait for it by"
                            .into(),
                    }),
                    None,
                ));
                false
            }
        }
    }

    /// How the request `id` sent ended.
    pub fn handle(&mut self, id: CallId, outcome: acd_core::client::Outcome, now: Millis) {
        // Err is an outcome for a call that is over (cancelled, or ended
        // while its request was out), which changes nothing.
        let _ = self.client.handle(id, outcome, now);
    }
}
