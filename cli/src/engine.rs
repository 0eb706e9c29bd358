//! The one seam between the command line and acd-core's client role.
//!
//! [`Engine`] owns the core's [`Client`] and the one logical call a command
//! makes (a single request, a table or connection pager, or a run poller),
//! and exposes it in the shape of the core's driver: `poll_transmit(now)`,
//! `handle(outcome, now)`, `poll_event()` and `poll_timeout()`, with one
//! [`Event`] enum. Every rule (building, throttling, retries, paging,
//! interpretation) is the core's; this module only forwards, and is the one
//! place to change when the core's API moves.

use acd_core::client::{
    ApiResponse, Call, CallEvent, Client, ClientConfig, ClientError, ClientRequest,
    ConnectionPagerOptions, DeprecationWarning, GiveUpReason, Outcome, Pager, PagerEvent, Plan,
    PollEvent, PollOptions, RequestSpec, RetryCause, RunPoller, Step, TablePagerOptions,
    WaitReason as ThrottleReason,
};
use serde_json::value::RawValue;
use std::collections::VecDeque;

/// Unix milliseconds, the core's instant.
pub type Millis = u64;

/// The limit a wait is for, as the core knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitInfo {
    /// The gate's name of the limit, e.g. `user_table_reads`.
    pub name: String,
    /// Requests per window.
    pub requests: u64,
    /// Window length in seconds.
    pub window_seconds: u64,
}

/// Why the call waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaitReason {
    /// A rate-limit window is used up.
    Quota,
    /// The server said when to come back (`Retry-After`).
    RetryAfter,
    /// Backing off before attempt `attempt`.
    Backoff {
        /// The attempt that follows the wait.
        attempt: u32,
    },
    /// The interval between two run polls.
    PollInterval,
}

/// What the call reports, in order (the core driver's event, member for
/// member).
#[derive(Debug)]
pub enum Event {
    /// A single request's successful result.
    Response(ApiResponse),
    /// One page of a pager; `last` when it is the final one.
    Page {
        /// The records as received.
        records: Vec<Box<RawValue>>,
        /// The page's number, from 1.
        page: u64,
        /// Whether paging is over after it (the core driver's member; the
        /// command line waits for `Done` instead).
        #[allow(dead_code)]
        last: bool,
    },
    /// A run poll answered with a status different from the previous one.
    RunStatus {
        /// The run's status.
        status: String,
        /// Whether it is terminal.
        terminal: bool,
        /// The run object.
        run: Box<RawValue>,
    },
    /// The call waits until `until`.
    Waiting {
        /// The instant.
        until: Millis,
        /// The limit waited for, when it is a rate limit.
        limit: Option<LimitInfo>,
        /// Why.
        reason: WaitReason,
    },
    /// A Deprecation/Sunset notice.
    Deprecation(DeprecationWarning),
    /// The call ended successfully.
    Done,
    /// The call ended with this error.
    Failed(ClientError),
}

/// The one logical call of a command.
#[derive(Debug, Clone)]
pub enum Job {
    /// One request.
    Single(RequestSpec),
    /// Every record of a table.
    Table {
        /// The table id.
        table: String,
        /// Paging options.
        options: TablePagerOptions,
    },
    /// Every record of a connection's entity.
    Connection {
        /// The connection id.
        connection: String,
        /// The entity id.
        entity: String,
        /// Paging options.
        options: ConnectionPagerOptions,
    },
    /// Poll a run until it ends.
    Run {
        /// The run id.
        run_id: String,
        /// Polling options.
        options: PollOptions,
    },
}

enum Machine {
    Single(Call),
    Pager(Pager),
    Poller(RunPoller),
}

/// The client and its one call.
pub struct Engine {
    client: Client,
    machine: Machine,
    events: VecDeque<Event>,
    in_flight: Option<ClientRequest>,
    last_sent: Option<ClientRequest>,
    wake_at: Option<Millis>,
    announced: Option<Millis>,
    pending_reason: Option<WaitReason>,
    deadline_at: Option<Millis>,
    pages: u64,
    last_status: Option<String>,
    over: bool,
}

impl Engine {
    /// A client for `config` with its call `job`. `deadline_ms` bounds the
    /// whole command's waits, counted from `now`.
    pub fn new(
        config: ClientConfig,
        job: Job,
        deadline_ms: Option<u64>,
        now: Millis,
    ) -> Result<Self, ClientError> {
        let mut client = Client::new(config)?;
        let machine = match job {
            Job::Single(spec) => Machine::Single(Call::build(&mut client, &spec)?),
            Job::Table { table, options } => Machine::Pager(Pager::table(table, options)),
            Job::Connection {
                connection,
                entity,
                options,
            } => Machine::Pager(Pager::connection(connection, entity, options)),
            Job::Run { run_id, options } => Machine::Poller(RunPoller::new(
                RequestSpec::new(acd_core::sim::config::GET_RUN).path("run_id", run_id),
                options,
            )),
        };
        Ok(Self {
            client,
            machine,
            events: VecDeque::new(),
            in_flight: None,
            last_sent: None,
            wake_at: None,
            announced: None,
            pending_reason: None,
            deadline_at: deadline_ms.map(|ms| now.saturating_add(ms)),
            pages: 0,
            last_status: None,
            over: false,
        })
    }

    /// The request to send now, if any (the send is recorded at `now`).
    pub fn poll_transmit(&mut self, now: Millis) -> Option<ClientRequest> {
        if self.over || self.in_flight.is_some() {
            return None;
        }
        let step = match &mut self.machine {
            Machine::Single(call) => Ok(call.poll(&mut self.client, now)),
            Machine::Pager(pager) => pager.poll(&mut self.client, now),
            Machine::Poller(poller) => poller.poll(&mut self.client, now),
        };
        match step {
            Err(error) => self.finish(Err(error)),
            Ok(Step::Send(request)) => {
                self.wake_at = None;
                self.announced = None;
                self.pending_reason = None;
                self.in_flight = Some((*request).clone());
                return Some(*request);
            }
            Ok(Step::WaitUntil(at)) => self.wait_until(at, now),
            Ok(Step::AwaitingResponse) => {}
            Ok(Step::Done) => self.finish(Ok(())),
        }
        None
    }

    fn wait_until(&mut self, at: Millis, now: Millis) {
        self.wake_at = Some(at);
        if self.announced == Some(at) {
            return;
        }
        if let Some(deadline_at) = self.deadline_at.filter(|deadline| at > *deadline) {
            let last = ClientError::InvalidConfig {
                field: "deadline".into(),
                problem: format!(
                    "a wait of {:.1} s does not fit in what is left of the deadline",
                    at.saturating_sub(now) as f64 / 1000.0
                ),
            };
            self.finish(Err(ClientError::GaveUp {
                reason: GiveUpReason::Deadline {
                    deadline_at,
                    next_at: at,
                },
                attempts: 0,
                last: Box::new(last),
            }));
            return;
        }
        self.announced = Some(at);
        let (limit, reason) = match self.pending_reason {
            Some(reason) => (None, reason),
            None => self.throttle_wait(now),
        };
        self.events.push_back(Event::Waiting {
            until: at,
            limit,
            reason,
        });
    }

    /// Which limit a wait is for, from the throttle's own plan.
    fn throttle_wait(&self, now: Millis) -> (Option<LimitInfo>, WaitReason) {
        let Some(request) = self.last_request() else {
            return (None, WaitReason::PollInterval);
        };
        match self.client.plan(request, now) {
            Plan::WaitUntil { limit, reason, .. } => {
                let info = self.client.throttle().model(&limit).map(|model| LimitInfo {
                    name: model.name.clone(),
                    requests: u64::from(model.limit),
                    window_seconds: model.window_ms / 1000,
                });
                let reason = match reason {
                    ThrottleReason::Quota => WaitReason::Quota,
                    ThrottleReason::RetryAfter => WaitReason::RetryAfter,
                };
                (info, reason)
            }
            Plan::SendNow => (None, WaitReason::PollInterval),
        }
    }

    fn last_request(&self) -> Option<&ClientRequest> {
        match &self.machine {
            Machine::Single(call) => Some(call.request()),
            _ => self.last_sent.as_ref(),
        }
    }

    /// How the attempt in flight ended.
    pub fn handle(&mut self, outcome: &Outcome, now: Millis) {
        let Some(sent) = self.in_flight.take() else {
            return;
        };
        self.last_sent = Some(sent);
        match &mut self.machine {
            Machine::Single(call) => match call.handle(&mut self.client, outcome, now) {
                Some(CallEvent::Retrying { attempt, cause, .. }) => {
                    self.retrying(cause, attempt);
                }
                Some(CallEvent::Finished(result)) => {
                    self.notices();
                    match result {
                        Ok(response) => {
                            self.events.push_back(Event::Response(response));
                            self.finish(Ok(()));
                        }
                        Err(error) => self.finish(Err(error)),
                    }
                }
                None => {}
            },
            Machine::Pager(pager) => match pager.handle(&mut self.client, outcome, now) {
                Some(PagerEvent::Retrying { cause, .. }) => self.retrying(cause, 0),
                Some(PagerEvent::Page { records, last }) => {
                    self.notices();
                    self.pages += 1;
                    self.events.push_back(Event::Page {
                        records,
                        page: self.pages,
                        last,
                    });
                    if last {
                        self.finish(Ok(()));
                    }
                }
                Some(PagerEvent::Failed(error)) => {
                    self.notices();
                    self.finish(Err(error));
                }
                None => {}
            },
            Machine::Poller(poller) => match poller.handle(&mut self.client, outcome, now) {
                Some(PollEvent::Retrying { cause, .. }) => self.retrying(cause, 0),
                Some(PollEvent::Status {
                    state,
                    terminal,
                    run,
                }) => {
                    self.notices();
                    self.pending_reason = Some(WaitReason::PollInterval);
                    if terminal || self.last_status.as_deref() != Some(state.as_str()) {
                        self.last_status = Some(state.clone());
                        self.events.push_back(Event::RunStatus {
                            status: state,
                            terminal,
                            run,
                        });
                    }
                    if terminal {
                        self.finish(Ok(()));
                    }
                }
                Some(PollEvent::Failed(error)) => {
                    self.notices();
                    self.finish(Err(error));
                }
                Some(PollEvent::DeadlineReached {
                    deadline_at,
                    last_state,
                }) => {
                    let last = ClientError::InvalidConfig {
                        field: "deadline".into(),
                        problem: format!(
                            "the run was still {:?} when the deadline came",
                            last_state.unwrap_or_default()
                        ),
                    };
                    self.finish(Err(ClientError::GaveUp {
                        reason: GiveUpReason::Deadline {
                            deadline_at,
                            next_at: deadline_at,
                        },
                        attempts: 0,
                        last: Box::new(last),
                    }));
                }
                None => {}
            },
        }
    }

    fn retrying(&mut self, cause: RetryCause, attempt: u32) {
        self.notices();
        self.pending_reason = Some(match cause {
            RetryCause::Throttled { retry_after: true } => WaitReason::RetryAfter,
            _ => WaitReason::Backoff { attempt },
        });
    }

    fn notices(&mut self) {
        for warning in self.client.drain_notices() {
            self.events.push_back(Event::Deprecation(warning));
        }
    }

    fn finish(&mut self, result: Result<(), ClientError>) {
        if self.over {
            return;
        }
        self.over = true;
        self.wake_at = None;
        self.events.push_back(match result {
            Ok(()) => Event::Done,
            Err(error) => Event::Failed(error),
        });
    }

    /// The next event, in order.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When `poll_transmit` may have something new.
    pub fn poll_timeout(&self) -> Option<Millis> {
        if self.over {
            None
        } else {
            self.wake_at
        }
    }
}
