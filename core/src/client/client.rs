//! [`Client`]: one client instance — configuration, throttle, retry planner
//! (with its budget and random source) and deprecation tracker — behind a
//! sans-IO surface: build, plan, mark sent, hand over the outcome.

use super::budget::RetryBudget;
use super::config::ClientConfig;
use super::deprecation::{DeprecationTracker, DeprecationWarning};
use super::error::{ClientError, GiveUpReason};
use super::http::{HttpResponse, Outcome};
use super::random::{uniform_inclusive, RandomSource, SplitMix64};
use super::ratelimit_headers::parse_rate_limit_headers;
use super::request::{build_request, ClientRequest, RequestSpec};
use super::response::{interpret, ApiResponse};
use super::retry::{RetryCause, RetryDecision, RetryPlanner};
use super::throttle::{Plan, Throttle};
use crate::model::{ApiIndex, Envelope};
use crate::UnixMillis;

/// What [`Client::on_outcome`] concluded about an attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum Handled {
    /// Send the same request again at `at` (not earlier).
    Retry {
        /// The instant (caller's clock).
        at: UnixMillis,
        /// Number of the next attempt.
        attempt: u32,
        /// Why.
        cause: RetryCause,
        /// Budget tokens spent.
        cost: u32,
    },
    /// The logical call is over.
    Finished(Result<ApiResponse, ClientError>),
}

/// One client instance. `Send + Sync`; all state is per instance.
pub struct Client {
    config: ClientConfig,
    throttle: Throttle,
    planner: RetryPlanner,
    deprecations: DeprecationTracker,
    notices: Vec<DeprecationWarning>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.config.base_url)
            .field("throttle", &self.throttle)
            .field("planner", &self.planner)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client whose random source is [`SplitMix64`] seeded with `config.seed`.
    pub fn new(config: ClientConfig) -> Result<Self, ClientError> {
        let seed = config.seed;
        Self::with_random(config, Box::new(SplitMix64::new(seed)))
    }

    /// A client drawing jitter and idempotency keys from `random`.
    pub fn with_random(
        config: ClientConfig,
        random: Box<dyn RandomSource>,
    ) -> Result<Self, ClientError> {
        config.check()?;
        Ok(Self {
            planner: RetryPlanner::new(config.retry, config.budget, random),
            config,
            throttle: Throttle::new(),
            deprecations: DeprecationTracker::new(),
            notices: Vec::new(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The throttle's models.
    pub fn throttle(&self) -> &Throttle {
        &self.throttle
    }

    /// The retry budget.
    pub fn budget(&self) -> &RetryBudget {
        self.planner.budget()
    }

    /// Builds a request (validated before any I/O).
    pub fn build(&mut self, spec: &RequestSpec) -> Result<ClientRequest, ClientError> {
        build_request(&self.config, spec, self.planner.random())
    }

    /// Learns the index's advertised limits (done automatically when an index
    /// response passes through [`Client::on_outcome`]).
    pub fn learn_index(&mut self, index: &ApiIndex) {
        self.throttle.learn_index(&index.rate_limits);
    }

    /// "Send now" or "wait until T".
    pub fn plan(&self, request: &ClientRequest, now: UnixMillis) -> Plan {
        self.throttle.plan(request, now)
    }

    /// Records that `request` was sent at `now` (call right before sending).
    pub fn on_sent(&mut self, request: &mut ClientRequest, now: UnixMillis) {
        request.attempts = request.attempts.saturating_add(1);
        request.first_sent_at.get_or_insert(now);
        self.throttle.on_sent(&request.limits, now);
    }

    /// Interprets a response to `request` without touching any state.
    pub fn interpret(
        &self,
        request: &ClientRequest,
        response: &HttpResponse,
    ) -> Result<ApiResponse, ClientError> {
        match self.config.catalogue.get(&request.operation_id) {
            Some(operation) => interpret(operation, response),
            None => Err(ClientError::UnknownOperation {
                operation: request.operation_id.clone(),
            }),
        }
    }

    /// Hands over how an attempt ended: updates the throttle, the budget and
    /// the deprecation notices, and says whether to retry or what the result is.
    pub fn on_outcome(
        &mut self,
        request: &mut ClientRequest,
        outcome: &Outcome,
        now: UnixMillis,
    ) -> Handled {
        match outcome {
            Outcome::Response(response) => {
                let parsed = parse_rate_limit_headers(&response.headers, now);
                self.throttle
                    .on_response(&request.limits, response.status, &parsed, now);
                if let Some(notice) = self
                    .deprecations
                    .observe(&request.operation_id, &response.headers)
                {
                    self.notices.push(notice);
                }
            }
            Outcome::Transport(failure) => {
                self.throttle
                    .on_transport_failure(&request.limits, failure.never_sent(), now);
            }
        }
        let attempts = request.attempts.max(1);
        match self.planner.on_outcome(request, outcome, now) {
            RetryDecision::Retry {
                at,
                attempt,
                cause,
                cost,
            } => Handled::Retry {
                at,
                attempt,
                cause,
                cost,
            },
            RetryDecision::Done => {
                let result = match outcome {
                    Outcome::Response(response) => self.interpret(request, response),
                    Outcome::Transport(failure) => {
                        Err(ClientError::Transport { failure: *failure })
                    }
                };
                if let Ok(ApiResponse::Index { index, .. }) = &result {
                    self.throttle.learn_index(&index.rate_limits);
                }
                Handled::Finished(result)
            }
            RetryDecision::GiveUp { reason } => {
                let last = match outcome {
                    Outcome::Response(response) => match self.interpret(request, response) {
                        Err(error) => error,
                        Ok(_) => ClientError::Protocol {
                            status: response.status,
                            problem: "a successful response was not accepted".into(),
                        },
                    },
                    Outcome::Transport(failure) => ClientError::Transport { failure: *failure },
                };
                let error = match reason {
                    GiveUpReason::NotRetryable { .. } => last,
                    reason => ClientError::GaveUp {
                        reason,
                        attempts,
                        last: Box::new(last),
                    },
                };
                Handled::Finished(Err(error))
            }
        }
    }

    /// Takes the deprecation notices gathered so far (each operation's
    /// notice appears once, not once per response).
    pub fn drain_notices(&mut self) -> Vec<DeprecationWarning> {
        std::mem::take(&mut self.notices)
    }

    /// Whether `operation_id` answers a single `data` object (e.g. a run).
    pub fn answers_object(&self, operation_id: &str) -> bool {
        self.config
            .catalogue
            .get(operation_id)
            .is_some_and(|op| op.envelope == Envelope::Data && !super::response::returns_list(op))
    }

    /// A uniform draw from `0..=max` from the client's random source.
    pub(crate) fn uniform(&mut self, max: u64) -> u64 {
        uniform_inclusive(self.planner.random(), max)
    }
}
