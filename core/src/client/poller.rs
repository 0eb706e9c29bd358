//! Run polling: a sans-IO state machine that reads a run about once per
//! second (±10 % jitter) until the run reaches a state the caller lists as
//! terminal, or an overall deadline passes.
//!
//! Every poll is an ordinary [`Call`]: it goes through the throttle (polls
//! count against the quota), honours `Retry-After`, and is retried under the
//! retry policy and budget only when it fails — successful polls spend no
//! budget. After a 429 the poll interval doubles (up to `max_interval_ms`)
//! and halves back with each successful poll.

use super::call::{Call, CallEvent, Step};
use super::client::Client;
use super::error::ClientError;
use super::http::Outcome;
use super::request::RequestSpec;
use super::response::ApiResponse;
use super::retry::RetryCause;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// Options of a run poller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PollOptions {
    /// Time between polls, before jitter.
    pub interval_ms: u64,
    /// Jitter, in thousandths of the interval, either way (100 = ±10 %).
    pub jitter_per_mille: u64,
    /// The member of the run object holding its state.
    pub status_field: String,
    /// States after which polling stops.
    pub terminal_states: Vec<String>,
    /// Polling stops this long after the first poll.
    pub deadline_ms: u64,
    /// The longest interval after repeated 429s.
    pub max_interval_ms: u64,
}

impl Default for PollOptions {
    fn default() -> Self {
        Self {
            interval_ms: 1_000,
            jitter_per_mille: 100,
            status_field: "status".into(),
            terminal_states: crate::model::catalogue::RUN_TERMINAL_STATUSES
                .iter()
                .map(|state| (*state).to_owned())
                .collect(),
            deadline_ms: 600_000,
            max_interval_ms: 30_000,
        }
    }
}

/// What one outcome did to a poller.
#[derive(Debug, Clone)]
pub enum PollEvent {
    /// A poll answered; `terminal` when polling is over.
    Status {
        /// The run's state.
        state: String,
        /// Whether it is one of the terminal states.
        terminal: bool,
        /// The run object as received.
        run: Box<RawValue>,
    },
    /// The poll will be retried at `at`.
    Retrying {
        /// The instant.
        at: UnixMillis,
        /// Why.
        cause: RetryCause,
    },
    /// Polling stopped with this error.
    Failed(ClientError),
    /// The deadline passed before a terminal state.
    DeadlineReached {
        /// The deadline.
        deadline_at: UnixMillis,
        /// The last state seen, if any.
        last_state: Option<String>,
    },
}

/// Polls one run.
#[derive(Debug, Clone)]
pub struct RunPoller {
    spec: RequestSpec,
    options: PollOptions,
    started_at: Option<UnixMillis>,
    next_poll_at: UnixMillis,
    factor: u64,
    call: Option<Call>,
    finished: bool,
    polls: u64,
    last_state: Option<String>,
}

impl RunPoller {
    /// A poller that reads the run with `spec` (a GET answering `{data: run}`).
    pub fn new(spec: RequestSpec, options: PollOptions) -> Self {
        Self {
            spec,
            options,
            started_at: None,
            next_poll_at: 0,
            factor: 1,
            call: None,
            finished: false,
            polls: 0,
            last_state: None,
        }
    }

    /// Polls answered so far.
    pub fn polls(&self) -> u64 {
        self.polls
    }

    /// Whether polling is over.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// The current interval multiplier (1, or more after 429s).
    pub fn backoff_factor(&self) -> u64 {
        self.factor
    }

    fn deadline_at(&self) -> Option<UnixMillis> {
        self.started_at
            .map(|start| start.saturating_add(self.options.deadline_ms))
    }

    /// What to do at `now`.
    pub fn poll(&mut self, client: &mut Client, now: UnixMillis) -> Result<Step, ClientError> {
        if self.finished {
            return Ok(Step::Done);
        }
        self.started_at.get_or_insert(now);
        if self.call.is_none() {
            if now < self.next_poll_at {
                return Ok(Step::WaitUntil(self.next_poll_at));
            }
            match Call::build(client, &self.spec) {
                Ok(call) => self.call = Some(call),
                Err(error) => {
                    self.finished = true;
                    return Err(error);
                }
            }
        }
        Ok(match &mut self.call {
            Some(call) => call.poll(client, now),
            None => Step::Done,
        })
    }

    /// Takes the outcome of the poll in flight; `None` if none is.
    pub fn handle(
        &mut self,
        client: &mut Client,
        outcome: &Outcome,
        now: UnixMillis,
    ) -> Option<PollEvent> {
        let event = self.call.as_mut()?.handle(client, outcome, now)?;
        Some(match event {
            CallEvent::Retrying { at, cause, .. } => {
                if matches!(cause, RetryCause::Throttled { .. }) {
                    let cap =
                        (self.options.max_interval_ms / self.options.interval_ms.max(1)).max(1);
                    self.factor = self.factor.saturating_mul(2).min(cap);
                }
                PollEvent::Retrying { at, cause }
            }
            CallEvent::Finished(result) => {
                self.call = None;
                match result {
                    Ok(ApiResponse::Object { value, .. }) => self.answered(client, value, now),
                    Ok(_) => self.fail(ClientError::Protocol {
                        status: 200,
                        problem:
                            "the run poll was answered with something other than a `data` object"
                                .into(),
                    }),
                    Err(error) => self.fail(error),
                }
            }
        })
    }

    fn fail(&mut self, error: ClientError) -> PollEvent {
        self.finished = true;
        PollEvent::Failed(error)
    }

    fn answered(&mut self, client: &mut Client, run: Box<RawValue>, now: UnixMillis) -> PollEvent {
        self.polls += 1;
        let state = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(run.get())
            .ok()
            .and_then(|object| match object.get(&self.options.status_field) {
                Some(serde_json::Value::String(state)) => Some(state.clone()),
                _ => None,
            });
        let Some(state) = state else {
            let field = self.options.status_field.clone();
            return self.fail(ClientError::Protocol {
                status: 200,
                problem: format!("the run object has no string member {field:?} holding its state"),
            });
        };
        self.last_state = Some(state.clone());
        let terminal = self.options.terminal_states.contains(&state);
        if terminal {
            self.finished = true;
            return PollEvent::Status {
                state,
                terminal,
                run,
            };
        }
        let base = self.options.interval_ms.saturating_mul(self.factor);
        let spread = base.saturating_mul(self.options.jitter_per_mille.min(1_000)) / 1_000;
        let jitter = client.uniform(spread.saturating_mul(2));
        self.next_poll_at = now
            .saturating_add(base)
            .saturating_add(jitter)
            .saturating_sub(spread)
            .max(now.saturating_add(1));
        self.factor = (self.factor / 2).max(1);
        if let Some(deadline_at) = self
            .deadline_at()
            .filter(|deadline| self.next_poll_at > *deadline)
        {
            self.finished = true;
            return PollEvent::DeadlineReached {
                deadline_at,
                last_state: self.last_state.clone(),
            };
        }
        PollEvent::Status {
            state,
            terminal,
            run,
        }
    }
}
