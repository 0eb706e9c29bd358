//! The one seam between the command line and acd-core's client driver.
//!
//! [`Engine`] owns the core's [`Client`] and the one logical call a command
//! makes (a single request, a table or connection pager, or a run poller).
//! It forwards `poll_transmit`, `handle`, `poll_event` and `poll_timeout`;
//! every rule (building, throttling, retries, paging, interpretation) is the
//! core's. The one thing it adds is the command's own budget (`--deadline`):
//! a wait that would end after it is not slept, the call is cancelled and
//! the command gives up at once. No single wait is longer than the core's
//! [`RetryPolicy::max_retry_after_ms`](acd_core::client::RetryPolicy) plus
//! the backoff's cap (the jitter the core adds on top): a longer one comes
//! from a server's time that cannot be right (a reset a decade ahead), and
//! the command gives up at once naming it. With `--learn-limits` it reads the API
//! index once before paging, so the core learns the limit the server
//! advertises (a pager's responses describe only the tightest limit they
//! pass through).

use acd_core::client::{
    CallId, CallSpec, Client, ClientConfig, ClientError, ClientRequest, Entropy, Event,
    GiveUpReason, Outcome, PollOptions, RequestSpec,
};
use std::collections::VecDeque;

/// Unix milliseconds, the core's instant.
pub type Millis = u64;

/// The one logical call of a command.
#[derive(Debug, Clone)]
pub enum Job {
    /// A call of the core as is: a request, a table or connection pager, a
    /// run poller.
    Call(CallSpec),
    /// Create a run of an agent; with `wait`, then poll it until it ends.
    CreateRun {
        /// The run-creation request.
        spec: RequestSpec,
        /// Polling options when the command waits for the run.
        wait: Option<PollOptions>,
    },
}

/// The client and its one call.
pub struct Engine {
    client: Client,
    id: CallId,
    /// The index read that precedes paging, and the paging job it precedes.
    prelude: Option<(CallId, Job)>,
    /// After a run is created: poll it with these options.
    follow: Option<PollOptions>,
    deadline_at: Option<Millis>,
    /// The longest single wait that is slept.
    longest_wait_ms: u64,
    /// The bound named when a wait is refused (the policy's).
    max_wait_ms: u64,
    extra: VecDeque<Event>,
    over: bool,
}

/// 32 bytes of OS entropy for the client's jitter and idempotency keys, so
/// no two processes share them.
fn os_entropy() -> Entropy {
    let mut seed = [0u8; 32];
    if getrandom::fill(&mut seed).is_err() {
        // No OS entropy: the process id and the clock still differ per run.
        let fallback = u64::from(std::process::id()) ^ crate::run::now().rotate_left(17);
        return Entropy::from_seed(fallback);
    }
    Entropy(seed)
}

fn start(client: &mut Client, job: Job) -> Result<CallId, ClientError> {
    match job {
        Job::Call(call) => client.start(call),
        Job::CreateRun { spec, .. } => client.start(spec),
    }
}

impl Engine {
    /// A client for `config` with its call `job`, validated and built before
    /// any I/O. `deadline_ms` bounds the whole command's waits from `now`;
    /// `learn_limits` reads the index before a pager starts.
    pub fn new(
        config: ClientConfig,
        job: Job,
        deadline_ms: Option<u64>,
        learn_limits: bool,
        now: Millis,
    ) -> Result<Self, ClientError> {
        let max_wait_ms = config.retry.max_retry_after_ms;
        let longest_wait_ms = max_wait_ms.saturating_add(config.retry.backoff.cap_ms);
        let mut client = Client::new(config, os_entropy())?;
        // Started (so validated and built) before any I/O, in every case.
        let mut id = start(&mut client, job.clone())?;
        let follow = match &job {
            Job::CreateRun { wait, .. } => wait.clone(),
            _ => None,
        };
        let mut prelude = None;
        let pages = matches!(
            job,
            Job::Call(CallSpec::TablePages(_) | CallSpec::ConnectionPages(_))
        );
        if learn_limits && pages {
            client.cancel(id);
            id = client.start(RequestSpec::get_api_index())?;
            prelude = Some((id, job));
        }
        Ok(Self {
            client,
            id,
            prelude,
            follow,
            deadline_at: deadline_ms.map(|ms| now.saturating_add(ms)),
            longest_wait_ms,
            max_wait_ms,
            extra: VecDeque::new(),
            over: false,
        })
    }

    /// The request to send now, if any (the send is recorded at `now`).
    pub fn poll_transmit(&mut self, now: Millis) -> Option<ClientRequest> {
        if self.over {
            return None;
        }
        Some(self.client.poll_transmit(now)?.request)
    }

    /// How the attempt in flight ended.
    pub fn handle(&mut self, outcome: Outcome, now: Millis) {
        // Err is misuse only (no attempt in flight), which this loop never does.
        let _ = self.client.handle(self.id, outcome, now);
    }

    /// The next event of the call, in order.
    pub fn poll_event(&mut self, now: Millis) -> Option<Event> {
        if let Some(event) = self.extra.pop_front() {
            return Some(event);
        }
        if self.over {
            return None;
        }
        let (id, event) = self.client.poll_event()?;
        if let Some((prelude, _)) = &self.prelude {
            if id == *prelude {
                return self.prelude_event(event, now);
            }
        }
        if id != self.id {
            // The created run's call ended; its poller goes on.
            return self.poll_event(now);
        }
        match event {
            Event::Waiting {
                until, ref limit, ..
            } => match self.deadline_at {
                Some(deadline_at) if until.as_millis() > deadline_at => {
                    let what = limit.as_ref().map(crate::report::describe_limit);
                    self.give_up(deadline_at, until.as_millis(), now, what);
                    self.extra.pop_front()
                }
                _ if until.as_millis().saturating_sub(now) > self.longest_wait_ms => {
                    self.refuse_wait(until.as_millis(), now);
                    self.extra.pop_front()
                }
                _ => Some(event),
            },
            // A retry whose wait the command will refuse (the Waiting event
            // that follows ends it) is not announced.
            Event::Retrying { at, .. } if self.refuses_wait(at.as_millis(), now) => {
                self.poll_event(now)
            }
            Event::Response { ref response, .. } if self.follow.is_some() => {
                self.follow_run(response);
                self.poll_event(now)
            }
            Event::Done | Event::Failed(_) => {
                self.over = true;
                Some(event)
            }
            other => Some(other),
        }
    }

    /// Whether a wait until `until` is past the deadline or longer than
    /// the longest wait the command accepts.
    fn refuses_wait(&self, until: Millis, now: Millis) -> bool {
        self.deadline_at
            .is_some_and(|deadline_at| until > deadline_at)
            || until.saturating_sub(now) > self.longest_wait_ms
    }

    /// The index read before paging: its waits show, its result only
    /// teaches the client; whatever its end, paging starts then.
    fn prelude_event(&mut self, event: Event, now: Millis) -> Option<Event> {
        match event {
            Event::Done | Event::Failed(_) => {
                if let Some((_, job)) = self.prelude.take() {
                    match start(&mut self.client, job) {
                        Ok(id) => self.id = id,
                        Err(error) => {
                            self.over = true;
                            return Some(Event::Failed(error));
                        }
                    }
                }
                self.poll_event(now)
            }
            Event::Waiting { .. } => Some(event),
            _ => self.poll_event(now),
        }
    }

    /// A wait past the command's deadline: cancel the call and end it here.
    fn give_up(&mut self, deadline_at: Millis, until: Millis, now: Millis, what: Option<String>) {
        self.client.cancel(self.id);
        self.over = true;
        let wait = until.saturating_sub(now) as f64 / 1000.0;
        self.extra.push_back(Event::Failed(ClientError::GaveUp {
            reason: GiveUpReason::Deadline {
                deadline_at: deadline_at.into(),
                next_at: until.into(),
            },
            attempts: 0,
            last: Box::new(ClientError::InvalidConfig {
                field: "deadline".into(),
                problem: format!(
                    "a wait of {wait:.1} s{} does not fit in what is left of it",
                    what.map(|what| format!(" for {what}")).unwrap_or_default()
                ),
            }),
        }));
    }

    /// The run was created: poll it (by the `id` of the created run).
    fn follow_run(&mut self, response: &acd_core::client::ApiResponse) {
        let Some(options) = self.follow.take() else {
            return;
        };
        let id = match response {
            acd_core::client::ApiResponse::Object { value, .. } => {
                serde_json::from_str::<serde_json::Value>(value.get())
                    .ok()
                    .and_then(|run| run.get("id").and_then(|id| id.as_str().map(str::to_owned)))
            }
            _ => None,
        };
        let started = match id {
            Some(id) => self.client.start(CallSpec::run_poll(id, options)),
            None => Err(ClientError::Protocol {
                status: response.status(),
                problem: "the created run has no string `id` member to poll it by".into(),
            }),
        };
        match started {
            Ok(id) => self.id = id,
            Err(error) => {
                self.over = true;
                self.extra.push_back(Event::Failed(error));
            }
        }
    }

    /// A wait longer than any the command sleeps: cancel the call and end
    /// it here, naming the server's time and the bound.
    fn refuse_wait(&mut self, until: Millis, now: Millis) {
        self.client.cancel(self.id);
        self.over = true;
        self.extra.push_back(Event::Failed(ClientError::GaveUp {
            reason: GiveUpReason::RetryAfterTooLong {
                retry_at: until.into(),
                wait_ms: until.saturating_sub(now),
                max_wait_ms: self.max_wait_ms,
            },
            attempts: 0,
            last: Box::new(ClientError::InvalidConfig {
                field: "max_retry_after_ms".into(),
                problem: "the server's rate-limit headers name a time that far ahead".into(),
            }),
        }));
    }

    /// When `poll_transmit` may have something new.
    pub fn poll_timeout(&self) -> Option<Millis> {
        if self.over {
            None
        } else {
            self.client.poll_timeout().map(u64::from)
        }
    }
}
