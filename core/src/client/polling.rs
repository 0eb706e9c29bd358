//! Run polling rules for the run pollers the driver runs
//! ([`super::CallSpec::run_poll`]): read the run about once per second
//! (±10 % jitter) until it reaches a terminal status, or an overall deadline
//! passes.
//!
//! Every poll is an ordinary request of the driver: it goes through the
//! throttle (polls count against the quota), honours `Retry-After`, and is
//! retried under the retry policy and budget only when it fails — successful
//! polls spend no budget. After a 429 the poll interval doubles (up to
//! `max_interval_ms`) and halves back with each successful poll.

use super::error::ClientError;
use super::member::string_member;
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

/// What one answered poll means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answered {
    /// The run's status.
    pub(crate) status: String,
    /// Whether it is terminal (polling is over).
    pub(crate) terminal: bool,
    /// Whether it differs from the previous poll's status.
    pub(crate) changed: bool,
    /// When to poll next (for a status that is not terminal).
    pub(crate) next_poll_at: UnixMillis,
}

/// Where a run poller is.
#[derive(Debug, Clone)]
pub(crate) struct PollerState {
    options: PollOptions,
    started_at: Option<UnixMillis>,
    factor: u64,
    last_status: Option<String>,
}

impl PollerState {
    /// A poller with `options`.
    pub(crate) fn new(options: PollOptions) -> Self {
        Self {
            options,
            started_at: None,
            factor: 1,
            last_status: None,
        }
    }

    /// Notes that a poll is sent at `now` (the first one starts the deadline).
    pub(crate) fn on_sent(&mut self, now: UnixMillis) {
        self.started_at.get_or_insert(now);
    }

    /// A 429 doubles the interval, up to `max_interval_ms`.
    pub(crate) fn on_throttled(&mut self) {
        let cap = self
            .options
            .max_interval_ms
            .checked_div(self.options.interval_ms)
            .unwrap_or(self.options.max_interval_ms)
            .max(1);
        self.factor = self.factor.saturating_mul(2).min(cap);
    }

    /// The widest jitter draw the next interval needs (`0..=span`).
    pub(crate) fn jitter_span(&self) -> u64 {
        self.spread().saturating_mul(2)
    }

    fn base(&self) -> u64 {
        self.options.interval_ms.saturating_mul(self.factor)
    }

    fn spread(&self) -> u64 {
        self.base()
            .saturating_mul(self.options.jitter_per_mille.min(1_000))
            / 1_000
    }

    /// Reads an answered poll at `now`; `jitter` is a draw from
    /// `0..=jitter_span()`. Errors: no status member, or the deadline passed.
    pub(crate) fn answered(
        &mut self,
        run: &RawValue,
        now: UnixMillis,
        jitter: u64,
    ) -> Result<Answered, ClientError> {
        let status = string_member(run.get(), &self.options.status_field).ok_or_else(|| {
            ClientError::Protocol {
                status: 200,
                problem: format!(
                    "the run object has no string member {:?} holding its status",
                    self.options.status_field
                ),
            }
        })?;
        let changed = self.last_status.as_ref() != Some(&status);
        self.last_status = Some(status.clone());
        let terminal = self.options.terminal_states.contains(&status);
        let next_poll_at = now
            .saturating_add(self.base())
            .saturating_add(jitter)
            .saturating_sub(self.spread())
            .max(now.saturating_add(1));
        self.factor = (self.factor / 2).max(1);
        if !terminal {
            let deadline_at = self
                .started_at
                .unwrap_or(now)
                .saturating_add(self.options.deadline_ms);
            if next_poll_at > deadline_at {
                return Err(ClientError::PollDeadline {
                    deadline_at,
                    last_status: status,
                });
            }
        }
        Ok(Answered {
            status,
            terminal,
            changed,
            next_poll_at,
        })
    }
}
