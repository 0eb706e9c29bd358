//! [`Client`]: the client role's driver. It owns its calls (single requests,
//! pagers, run pollers) and every rule around them — throttle, retries,
//! budget, deprecation notices — behind one sans-IO loop:
//!
//! 1. [`Client::start`] validates and builds a call's first request (before
//!    any I/O; see `start.rs`);
//! 2. [`Client::poll_transmit`] hands out the next request to send now;
//! 3. [`Client::handle`] takes how that attempt ended;
//! 4. [`Client::poll_event`] drains what happened, in order;
//! 5. [`Client::poll_timeout`] says when to call `poll_transmit` again.
//!
//! The caller owns the transport and the clock; time is always an argument.

use super::budget::RetryBudget;
use super::calls::{CallId, CallState, Kind, Wait};
use super::config::ClientConfig;
use super::deprecation::DeprecationTracker;
use super::error::{ClientError, GiveUpReason};
use super::event::{Event, LimitInfo, LimitOrigin};
use super::http::{url_origin, Outcome};
use super::notice::retrying_message;
use super::random::{uniform_inclusive, Entropy, KeyStream};
use super::ratelimit_headers::parse_rate_limit_headers;
use super::request::{build_request, ClientRequest, RequestSpec};
use super::response::{check_body_size, interpret, ApiResponse};
use super::retry::{RetryCause, RetryDecision, RetryPlanner};
use super::server_wait::ServerWait;
use super::throttle::{LimitSource, Plan, Throttle, WaitReason};
use crate::time::ceil_seconds;
use crate::UnixMillis;
use litemap::LiteMap;
use std::collections::VecDeque;
use std::sync::Arc;

/// The next request to send, and the call it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transmit {
    /// The call; hand the outcome to [`Client::handle`] with this id.
    pub id: CallId,
    /// The request (immutable wire data).
    pub request: ClientRequest,
    /// When this exchange must be abandoned (the call's `timeout_ms` from
    /// its first send), reported with [`super::TransportFailure::Timeout`].
    pub timeout_at: Option<UnixMillis>,
}

/// One client instance: configuration, throttle, retry planner, deprecation
/// tracker and its live calls. `Send + Sync`; all state is per instance.
pub struct Client {
    pub(super) config: ClientConfig,
    pub(super) throttle: Throttle,
    pub(super) planner: RetryPlanner,
    pub(super) keys: KeyStream,
    deprecations: DeprecationTracker,
    pub(super) calls: LiteMap<CallId, CallState>,
    /// Cancelled calls whose request is still in flight: their outcome only
    /// updates the throttle.
    orphans: LiteMap<CallId, Arc<ClientRequest>>,
    pub(super) next_id: u64,
    pub(super) events: VecDeque<(CallId, Event)>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.config.base_url)
            .field("calls", &self.calls.len())
            .field("throttle", &self.throttle)
            .field("planner", &self.planner)
            .finish_non_exhaustive()
    }
}

impl Client {
    /// A client. `config.seed`, when set, wins (deterministic: tests,
    /// vectors, the simulation); otherwise `entropy` seeds the jitter and,
    /// independently, the idempotency keys. Edges pass OS entropy
    /// (`Entropy::from_os()` with the `os-entropy` feature, or
    /// `crypto.getRandomValues` in a browser).
    pub fn new(config: ClientConfig, entropy: Entropy) -> Result<Client, ClientError> {
        config.check()?;
        let entropy = match config.seed {
            Some(seed) => Entropy::from_seed(seed),
            None => entropy,
        };
        Ok(Self {
            planner: RetryPlanner::new(
                config.retry,
                config.budget,
                Box::new(entropy.jitter_stream()),
            ),
            keys: entropy.key_stream(),
            throttle: Throttle::with_max_wait_ms(config.retry.max_retry_after_ms),
            config,
            deprecations: DeprecationTracker::new(),
            calls: LiteMap::new_vec(),
            orphans: LiteMap::new_vec(),
            next_id: 0,
            events: VecDeque::new(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The throttle's models of every limit.
    pub fn throttle(&self) -> &Throttle {
        &self.throttle
    }

    /// The retry budget.
    pub fn budget(&self) -> &RetryBudget {
        self.planner.budget()
    }

    /// Builds `spec` into a request without starting a call (advanced use:
    /// a caller that sends and retries on its own). An automatic
    /// `Idempotency-Key` comes from this client's one key stream, the same
    /// the calls it starts draw from, so no two requests of a client share
    /// a key whichever way they were built.
    pub fn build(&mut self, spec: &RequestSpec) -> Result<ClientRequest, ClientError> {
        build_request(&self.config, spec, &mut self.keys)
    }

    /// Drops call `id`; nothing more is emitted for it (events not yet
    /// drained included). An outcome still in flight may be handed over and
    /// only updates the throttle.
    pub fn cancel(&mut self, id: CallId) {
        if let Some(call) = self.calls.remove(&id) {
            if call.in_flight {
                self.orphans.insert(id, call.request);
            }
        }
        self.events.retain(|(call, _)| *call != id);
    }

    /// Whether no call is live.
    pub fn is_idle(&self) -> bool {
        self.calls.is_empty()
    }

    /// Drains the next event, in order.
    pub fn poll_event(&mut self) -> Option<(CallId, Event)> {
        self.events.pop_front()
    }

    /// The earliest instant at which [`Client::poll_transmit`] may have
    /// something new (`None`: every live call awaits an outcome, or none is
    /// live). An instant in the past means "now".
    pub fn poll_timeout(&self) -> Option<UnixMillis> {
        self.calls
            .values()
            .filter(|call| !call.in_flight)
            .map(|call| call.wake_at)
            .min()
    }

    /// The next request to send now, if any; the send is recorded at `now`.
    /// Call it repeatedly until `None`.
    pub fn poll_transmit(&mut self, now: impl Into<UnixMillis>) -> Option<Transmit> {
        let now = now.into();
        let ids: Vec<CallId> = self
            .calls
            .iter()
            .filter(|(_, call)| !call.in_flight)
            .map(|(id, _)| *id)
            .collect();
        ids.into_iter().find_map(|id| self.try_send(id, now))
    }

    fn limit_info(&self, request: &ClientRequest, key: &str) -> Option<LimitInfo> {
        if let Some(model) = self.throttle.model(key) {
            let origin = match (model.source, model.window_announced) {
                (LimitSource::Assumed, _) => LimitOrigin::Assumed,
                (_, true) => LimitOrigin::ServerWindow,
                (_, false) => LimitOrigin::ServerCount,
            };
            return Some(LimitInfo {
                name: model.name.clone(),
                requests: u64::from(model.limit),
                window_seconds: ceil_seconds(model.window_ms),
                origin,
            });
        }
        let reference = request.limits.iter().find(|limit| limit.key == key)?;
        Some(LimitInfo {
            name: reference.name.clone(),
            requests: u64::from(reference.quota.requests),
            window_seconds: ceil_seconds(reference.quota.window()),
            origin: LimitOrigin::Assumed,
        })
    }

    fn try_send(&mut self, id: CallId, now: UnixMillis) -> Option<Transmit> {
        // The call's timeout counts from the first time it could have gone.
        self.calls.get_mut(&id)?.started_at.get_or_insert(now);
        let call = self.calls.get(&id)?;
        let firm = now < call.not_before;
        // A quota wait on a limit with sends in flight is provisional: their
        // answers tell when the server's window really ends, so it is said
        // only once they are in.
        let mut provisional = false;
        let wait = if firm {
            Some(Wait {
                until: call.not_before,
                limit: call.not_before_limit.clone(),
                reason: call.not_before_reason,
            })
        } else if !self.config.proactive_throttle {
            None
        } else {
            match self.throttle.plan(&call.request, now) {
                Plan::WaitUntil { at, limit, reason } => {
                    if let Some(error) = self.server_wait_too_long(&call.request, &limit, now) {
                        self.end_failed(id, error);
                        return None;
                    }
                    provisional = reason == WaitReason::Quota
                        && self
                            .throttle
                            .model(&limit)
                            .is_some_and(|model| model.in_flight > 0);
                    let limit = self.limit_info(&call.request, &limit);
                    // Up to the backoff base (never above the cap), drawn once
                    // per attempt, so instances told the same instant spread.
                    let backoff = self.config.retry.backoff;
                    let ceiling = backoff.base_ms.min(backoff.cap_ms);
                    let call = self.calls.get_mut(&id)?;
                    let planner = &mut self.planner;
                    let jitter = *call
                        .throttle_jitter
                        .get_or_insert_with(|| uniform_inclusive(planner.random(), ceiling));
                    let wait = Wait {
                        until: at.saturating_add(jitter),
                        limit,
                        reason,
                    };
                    call.throttle_wait = Some(wait.clone());
                    Some(wait)
                }
                // The planned instant has come: the jitter drawn on top of
                // it still holds the call. A wait whose instant is still
                // ahead while the plan says "now" was planned before answers
                // that freed the limit: it no longer holds.
                _ => {
                    let jitter = call.throttle_jitter.unwrap_or(0);
                    call.throttle_wait
                        .clone()
                        .filter(|wait| wait.until > now && wait.until.saturating_sub(jitter) <= now)
                }
            }
        };
        let call = self.calls.get_mut(&id)?;
        // The call's own timeout: a wait that would end past it, or a send
        // at or after it, ends the call now.
        if let Some(deadline) = call.deadline() {
            let ready_at = wait.as_ref().map_or(now, |wait| wait.until);
            if ready_at >= deadline {
                let timeout_ms = call.options.timeout_ms.unwrap_or_default();
                self.end_failed(id, ClientError::CallTimedOut { timeout_ms });
                return None;
            }
        }
        match wait {
            Some(wait) => {
                if !firm {
                    call.throttled_since.get_or_insert(now);
                }
                if provisional {
                    call.wake_at = wait.until;
                } else {
                    self.announce_wait(id, wait, now);
                }
                None
            }
            None => {
                call.on_sent(now);
                self.throttle.on_sent(&call.request.limits, now);
                Some(Transmit {
                    id,
                    request: ClientRequest::clone(&call.request),
                    timeout_at: call.deadline(),
                })
            }
        }
    }

    fn observe(&mut self, id: CallId, request: &ClientRequest, outcome: &Outcome, now: UnixMillis) {
        match outcome {
            Outcome::Response(response) => {
                let parsed = parse_rate_limit_headers(&response.headers, now);
                self.throttle
                    .on_response(&request.limits, response.status, &parsed, now);
                if let Some(notice) = self
                    .deprecations
                    .observe(&request.operation_id, &response.headers)
                {
                    self.events.push_back((id, Event::Deprecation(notice)));
                }
            }
            Outcome::Transport(failure) => {
                self.throttle
                    .on_transport_failure(&request.limits, failure.never_sent(), now);
            }
        }
    }

    /// How the attempt sent for `id` ended. `Err` only for misuse (an
    /// unknown id, or nothing in flight), never for API errors: those arrive
    /// as [`Event::Failed`].
    pub fn handle(
        &mut self,
        id: CallId,
        outcome: Outcome,
        now: impl Into<UnixMillis>,
    ) -> Result<(), ClientError> {
        let now = now.into();
        if let Some(request) = self.orphans.remove(&id) {
            self.observe(id, &request, &outcome, now);
            self.events.retain(|(call, _)| *call != id);
            return Ok(());
        }
        let call = self
            .calls
            .get_mut(&id)
            .ok_or(ClientError::UnknownCall { call: id.0 })?;
        if !call.in_flight {
            return Err(ClientError::NothingInFlight { call: id.0 });
        }
        call.in_flight = false;
        let request = Arc::clone(&call.request);
        self.observe(id, &request, &outcome, now);
        let Some(call) = self.calls.get_mut(&id) else {
            return Ok(());
        };
        let attempts = call.attempt.attempts.max(1);
        match self
            .planner
            .on_outcome(&request, &mut call.attempt, &outcome, now)
        {
            RetryDecision::Retry {
                at, attempt, cause, ..
            } => {
                let throttled = matches!(cause, RetryCause::Throttled { .. });
                if let (true, Kind::Poller(poller)) = (throttled, &mut call.kind) {
                    poller.on_throttled();
                }
                let reason = match cause {
                    RetryCause::Throttled { retry_after: true } => WaitReason::RetryAfter,
                    _ => WaitReason::Backoff { attempt },
                };
                call.not_before = at;
                call.not_before_reason = reason;
                let limit = if throttled {
                    self.refusing_limit(&request, now)
                } else {
                    None
                };
                let Some(call) = self.calls.get_mut(&id) else {
                    return Ok(());
                };
                call.not_before_limit = limit.clone();
                if call.deadline().is_some_and(|deadline| at >= deadline) {
                    let timeout_ms = call.options.timeout_ms.unwrap_or_default();
                    self.end_failed(id, ClientError::CallTimedOut { timeout_ms });
                    return Ok(());
                }
                let max_attempts = call
                    .options
                    .max_attempts
                    .unwrap_or(self.planner.policy().max_attempts);
                let (status, failure) = match &outcome {
                    Outcome::Response(response) => (Some(response.status), None),
                    Outcome::Transport(failure) => (None, Some(*failure)),
                };
                let message = retrying_message(
                    &request.operation_id,
                    attempts,
                    max_attempts,
                    status,
                    failure,
                    now,
                    at,
                );
                self.events.push_back((
                    id,
                    Event::Retrying {
                        attempt,
                        max_attempts,
                        at,
                        status,
                        failure,
                        message,
                    },
                ));
                self.announce_wait(
                    id,
                    Wait {
                        until: at,
                        limit,
                        reason,
                    },
                    now,
                );
            }
            RetryDecision::Done => {
                let result = match &outcome {
                    Outcome::Response(response) => self.interpret_at(&request, response, now),
                    Outcome::Transport(failure) => Err(ClientError::Transport {
                        failure: *failure,
                        origin: url_origin(&request.url),
                    }),
                };
                if let Ok(ApiResponse::Index { index, .. }) = &result {
                    self.throttle.learn_index(&index.rate_limits);
                }
                match result {
                    Ok(answer) => {
                        let headers = match &outcome {
                            Outcome::Response(response) => response.headers.as_slice(),
                            Outcome::Transport(_) => &[],
                        };
                        self.succeeded(id, answer, headers, now);
                    }
                    Err(error) => self.end_failed(id, error),
                }
            }
            RetryDecision::GiveUp { reason } => {
                let last = match &outcome {
                    Outcome::Response(response) => match self.interpret_at(&request, response, now)
                    {
                        Err(error) => error,
                        Ok(_) => ClientError::Protocol {
                            status: response.status,
                            problem: "a successful response was not accepted".into(),
                        },
                    },
                    Outcome::Transport(failure) => ClientError::Transport {
                        failure: *failure,
                        origin: url_origin(&request.url),
                    },
                };
                let last = with_retry_at(last, &outcome, now);
                let error = match reason {
                    GiveUpReason::NotRetryable { .. } => last,
                    reason => ClientError::GaveUp {
                        reason,
                        attempts,
                        last: Box::new(last),
                    },
                };
                self.end_failed(id, error);
            }
        }
        Ok(())
    }

    /// [`Client::interpret`], a 429's error carrying when the server said
    /// to come back.
    fn interpret_at(
        &self,
        request: &ClientRequest,
        response: &super::http::HttpResponse,
        now: UnixMillis,
    ) -> Result<ApiResponse, ClientError> {
        let mut result = self.interpret(request, response);
        if let Err(ClientError::Api {
            status: 429,
            retry_at,
            ..
        }) = &mut result
        {
            *retry_at = parse_rate_limit_headers(&response.headers, now).refused_until();
        }
        result
    }

    fn interpret(
        &self,
        request: &ClientRequest,
        response: &super::http::HttpResponse,
    ) -> Result<ApiResponse, ClientError> {
        check_body_size(response, self.config.max_body_bytes)?;
        match self.config.catalogue.get(&request.operation_id) {
            Some(operation) => interpret(operation, response),
            None => Err(ClientError::UnknownOperation {
                operation: request.operation_id.clone(),
            }),
        }
    }

    /// The error that ends a call at once when limit `key` is held by a time
    /// the server named further ahead than the bound (the throttle keeps
    /// only the bound; the server's own time is not waited for).
    fn server_wait_too_long(
        &self,
        request: &ClientRequest,
        key: &str,
        now: UnixMillis,
    ) -> Option<ClientError> {
        let until = self.throttle.server_until(&request.limits, key)?;
        let wait = ServerWait::new(until, now, self.throttle.max_wait_ms());
        if !wait.is_too_long() {
            return None;
        }
        let named = match self.throttle.model(key) {
            Some(_) => key,
            None => request
                .limits
                .last()
                .map_or(key, |limit| limit.key.as_str()),
        };
        let limit = self
            .limit_info(request, named)
            .map_or_else(|| key.to_owned(), |info| info.name);
        Some(ClientError::RateLimitedTooLong {
            limit,
            retry_at: until,
            wait_ms: wait.wait_ms,
            max_wait_ms: wait.max_wait_ms,
        })
    }

    /// The limit that refused the request: the one blocked longest.
    /// When the answer named none, the request's most specific limit (its
    /// last: an operation's own limit comes after the base one) is named.
    fn refusing_limit(&self, request: &ClientRequest, now: UnixMillis) -> Option<LimitInfo> {
        let key = request
            .limits
            .iter()
            .filter_map(|limit| self.throttle.model(&limit.key))
            .filter(|model| model.blocked_until > now)
            .max_by_key(|model| model.blocked_until)
            .map(|model| model.key.clone())
            .or_else(|| request.limits.last().map(|limit| limit.key.clone()))?;
        self.limit_info(request, &key)
    }
}

/// `error` with the time a 429 said to come back (its `Retry-After` or
/// rate-limit headers), so every rate-limit error carries it.
fn with_retry_at(error: ClientError, outcome: &Outcome, now: UnixMillis) -> ClientError {
    match (error, outcome) {
        (
            ClientError::Api {
                status: 429,
                detail,
                extra,
                retry_at: None,
            },
            Outcome::Response(response),
        ) => ClientError::Api {
            status: 429,
            detail,
            extra,
            retry_at: super::ratelimit_headers::parse_rate_limit_headers(&response.headers, now)
                .refused_until(),
        },
        (error, _) => error,
    }
}
