//! The run poller across the boundary: [`RunPoller`] polls one run about once
//! per second (the core's options) until a terminal state, honouring 429s,
//! with the same `poll`/`handle` shape as the pager.

use crate::client::{lock, Client};
use crate::client_types::{to_json, ClientFailure, Outcome, RequestSpec};
use crate::pager::{step_from, Step};
use crate::{time, AcdError};
use acd_core::client as core_client;
use std::sync::{Arc, Mutex};

/// What one outcome did to the poller.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum PollEvent {
    /// A poll answered; `terminal` when polling is over.
    Status {
        /// The run's state.
        state: String,
        /// Whether it is a terminal state.
        terminal: bool,
        /// The run object as received (JSON text).
        run: String,
    },
    /// The poll will be retried at `at_ms`.
    Retrying {
        /// The instant.
        at_ms: i64,
        /// Why, as the core serialises it.
        cause_json: String,
    },
    /// Polling stopped with this error.
    Failed {
        /// The error.
        failure: ClientFailure,
    },
    /// The deadline passed before a terminal state.
    DeadlineReached {
        /// The deadline (Unix ms).
        deadline_at_ms: i64,
        /// The last state seen, if any.
        last_state: Option<String>,
    },
}

/// Polls one run (the request `spec` reads it).
#[derive(Debug, uniffi::Object)]
pub struct RunPoller {
    inner: Mutex<core_client::RunPoller>,
}

#[uniffi::export]
impl RunPoller {
    /// A poller for the run `spec` reads; `options_json` is the core's
    /// `PollOptions` as JSON (members left out, or `None`, take defaults:
    /// every second, ±10 % jitter, states succeeded/failed/cancelled).
    #[uniffi::constructor]
    pub fn new(spec: RequestSpec, options_json: Option<String>) -> Result<Arc<Self>, AcdError> {
        let options = match options_json {
            Some(json) => serde_json::from_str(&json)
                .map_err(|error| AcdError::Config(format!("poll options JSON: {error}")))?,
            None => core_client::PollOptions::default(),
        };
        Ok(Arc::new(Self {
            inner: Mutex::new(core_client::RunPoller::new(spec.into(), options)),
        }))
    }

    /// What to do next at `now_ms`.
    pub fn poll(&self, client: Arc<Client>, now_ms: i64) -> Result<Step, AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let mut client = lock(&client.inner);
        Ok(step_from(lock(&self.inner).poll(&mut client, now)?))
    }

    /// Hands over how the poll ended; `None` when nothing was in flight.
    pub fn handle(
        &self,
        client: Arc<Client>,
        outcome: Outcome,
        now_ms: i64,
    ) -> Result<Option<PollEvent>, AcdError> {
        let now = time::to_core("now_ms", now_ms)?;
        let mut client = lock(&client.inner);
        let outcome = outcome.into();
        let event = lock(&self.inner).handle(&mut client, &outcome, now);
        Ok(event.map(|event| match event {
            core_client::PollEvent::Status {
                state,
                terminal,
                run,
            } => PollEvent::Status {
                state,
                terminal,
                run: run.get().to_owned(),
            },
            core_client::PollEvent::Retrying { at, cause } => PollEvent::Retrying {
                at_ms: time::from_core(at),
                cause_json: to_json(&cause),
            },
            core_client::PollEvent::Failed(error) => PollEvent::Failed {
                failure: error.into(),
            },
            core_client::PollEvent::DeadlineReached {
                deadline_at,
                last_state,
            } => PollEvent::DeadlineReached {
                deadline_at_ms: time::from_core(deadline_at),
                last_state,
            },
        }))
    }

    /// Polls answered so far.
    pub fn polls(&self) -> u64 {
        lock(&self.inner).polls()
    }

    /// Whether polling is over.
    pub fn is_finished(&self) -> bool {
        lock(&self.inner).is_finished()
    }
}
