//! [`Call`]: one logical call driven to its end — throttle plan, sends,
//! retries — as a sans-IO state machine: [`Call::poll`] says what to do now,
//! [`Call::handle`] takes each attempt's outcome.

use super::client::{Client, Handled};
use super::error::ClientError;
use super::http::Outcome;
use super::request::{ClientRequest, RequestSpec};
use super::response::ApiResponse;
use super::retry::RetryCause;
use super::throttle::Plan;
use crate::UnixMillis;

/// What a state machine wants the caller to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Send this request now, then hand its outcome to `handle`.
    Send(Box<ClientRequest>),
    /// Call `poll` again at this instant (caller's clock); nothing to do
    /// before, unless another outcome of the same client arrives first (it
    /// may move the client's limits, so polling again then is worthwhile).
    WaitUntil(UnixMillis),
    /// A request is in flight: hand its outcome to `handle`.
    AwaitingResponse,
    /// Finished: nothing more to send.
    Done,
}

/// What one outcome did to a call.
#[derive(Debug, Clone, PartialEq)]
pub enum CallEvent {
    /// It will be retried at `at` (poll again then).
    Retrying {
        /// The instant.
        at: UnixMillis,
        /// The next attempt's number.
        attempt: u32,
        /// Why.
        cause: RetryCause,
    },
    /// It is over.
    Finished(Result<ApiResponse, ClientError>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Ready,
    InFlight,
    Finished,
}

/// One logical call of one request, retries included.
#[derive(Debug, Clone)]
pub struct Call {
    request: ClientRequest,
    not_before: UnixMillis,
    state: State,
}

impl Call {
    /// A call of an already built request.
    pub fn new(request: ClientRequest) -> Self {
        Self {
            request,
            not_before: 0,
            state: State::Ready,
        }
    }

    /// Builds `spec` with `client` and wraps it.
    pub fn build(client: &mut Client, spec: &RequestSpec) -> Result<Self, ClientError> {
        client.build(spec).map(Self::new)
    }

    /// The request (with its attempt count).
    pub fn request(&self) -> &ClientRequest {
        &self.request
    }

    /// Whether the call is over.
    pub fn is_finished(&self) -> bool {
        self.state == State::Finished
    }

    /// What to do at `now`: send (the send is recorded), wait, or nothing.
    pub fn poll(&mut self, client: &mut Client, now: UnixMillis) -> Step {
        match self.state {
            State::Finished => Step::Done,
            State::InFlight => Step::AwaitingResponse,
            State::Ready => {
                let ready_at = match client.plan(&self.request, now) {
                    Plan::SendNow => now,
                    Plan::WaitUntil { at, .. } => at,
                }
                .max(self.not_before);
                if ready_at > now {
                    return Step::WaitUntil(ready_at);
                }
                client.on_sent(&mut self.request, now);
                self.state = State::InFlight;
                Step::Send(Box::new(self.request.clone()))
            }
        }
    }

    /// Takes the outcome of the attempt in flight; `None` if none is.
    pub fn handle(
        &mut self,
        client: &mut Client,
        outcome: &Outcome,
        now: UnixMillis,
    ) -> Option<CallEvent> {
        if self.state != State::InFlight {
            return None;
        }
        Some(match client.on_outcome(&mut self.request, outcome, now) {
            Handled::Retry {
                at, attempt, cause, ..
            } => {
                self.state = State::Ready;
                self.not_before = at;
                CallEvent::Retrying { at, attempt, cause }
            }
            Handled::Finished(result) => {
                self.state = State::Finished;
                CallEvent::Finished(result)
            }
        })
    }
}
