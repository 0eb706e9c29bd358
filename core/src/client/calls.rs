//! The driver's bookkeeping of one call: its kind (single request, pager,
//! run poller), the request of its current attempt, the attempt state the
//! retry planner reads, and the wait it is in.

use super::event::LimitInfo;
use super::paging::PagerState;
use super::polling::PollerState;
use super::request::ClientRequest;
use super::retry::AttemptState;
use super::throttle::WaitReason;
use super::wire::CallOptions;
use crate::UnixMillis;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Opaque id of one logical call (single request, table pager, connection
/// pager, run poller). `Display` shows `call-7`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CallId(pub u64);

impl std::fmt::Display for CallId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "call-{}", self.0)
    }
}

/// What a call does with a successful answer.
#[derive(Debug, Clone)]
pub(crate) enum Kind {
    /// One request: its response, then done.
    Single,
    /// Pages until a short page.
    Pager(PagerState),
    /// Polls a run until a terminal status.
    Poller(PollerState),
}

/// A wait a call is in, and whether the caller has been told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Wait {
    pub(crate) until: UnixMillis,
    pub(crate) limit: Option<LimitInfo>,
    pub(crate) reason: WaitReason,
}

/// One live call.
#[derive(Debug, Clone)]
pub(crate) struct CallState {
    pub(crate) kind: Kind,
    /// The request of the current attempt (the current page or poll),
    /// shared so that handling its outcome needs no copy.
    pub(crate) request: Arc<ClientRequest>,
    pub(crate) attempt: AttemptState,
    pub(crate) in_flight: bool,
    /// No send before this (retry backoff, Retry-After, poll interval).
    pub(crate) not_before: UnixMillis,
    /// Why `not_before` was set.
    pub(crate) not_before_reason: WaitReason,
    /// The limit behind `not_before`, if one (a 429's refusing limit).
    pub(crate) not_before_limit: Option<LimitInfo>,
    /// The jitter added to the throttle's waits of this attempt (drawn once).
    pub(crate) throttle_jitter: Option<u64>,
    /// The throttle's last wait, jitter included.
    pub(crate) throttle_wait: Option<Wait>,
    /// When the current throttle wait began (to extend the deadline).
    pub(crate) throttled_since: Option<UnixMillis>,
    /// The last wait announced to the caller.
    pub(crate) announced: Option<Wait>,
    /// When `poll_transmit` may next have something for this call.
    pub(crate) wake_at: UnixMillis,
    /// The caller's options for every request of the call.
    pub(crate) options: CallOptions,
    /// When the call's first request was first sent.
    pub(crate) first_sent_at: Option<UnixMillis>,
    /// When the host first polled the call (its timeout counts from there,
    /// so a throttle wait before the first send counts too).
    pub(crate) started_at: Option<UnixMillis>,
}

impl CallState {
    /// A call about to send its first attempt of `request`.
    pub(crate) fn new(kind: Kind, request: ClientRequest, options: CallOptions) -> Self {
        Self {
            kind,
            request: Arc::new(request),
            attempt: AttemptState {
                max_attempts: options.max_attempts,
                ..AttemptState::default()
            },
            in_flight: false,
            not_before: UnixMillis::ZERO,
            not_before_reason: WaitReason::Quota,
            not_before_limit: None,
            throttle_jitter: None,
            throttle_wait: None,
            throttled_since: None,
            announced: None,
            wake_at: UnixMillis::ZERO,
            options,
            first_sent_at: None,
            started_at: None,
        }
    }

    /// When the call must be over: its start (the first poll that saw it)
    /// plus its `timeout_ms`.
    pub(crate) fn deadline(&self) -> Option<UnixMillis> {
        let timeout = self.options.timeout_ms?;
        Some(self.started_at?.saturating_add(timeout))
    }

    /// Moves on to a new logical request (the next page or poll), which
    /// may not be sent before `not_before`.
    pub(crate) fn next_request(
        &mut self,
        request: impl Into<Arc<ClientRequest>>,
        not_before: UnixMillis,
        reason: WaitReason,
    ) {
        self.request = request.into();
        self.attempt = AttemptState {
            max_attempts: self.options.max_attempts,
            ..AttemptState::default()
        };
        self.not_before = not_before;
        self.not_before_reason = reason;
        self.not_before_limit = None;
        self.throttle_jitter = None;
        self.throttle_wait = None;
        self.throttled_since = None;
        self.wake_at = not_before;
    }

    /// Records a send at `now`.
    pub(crate) fn on_sent(&mut self, now: UnixMillis) {
        if let Some(since) = self.throttled_since.take() {
            self.attempt.throttled_ms = self
                .attempt
                .throttled_ms
                .saturating_add(now.saturating_since(since));
        }
        self.attempt.attempts = self.attempt.attempts.saturating_add(1);
        self.attempt.first_sent_at.get_or_insert(now);
        self.first_sent_at.get_or_insert(now);
        self.throttle_jitter = None;
        self.throttle_wait = None;
        self.announced = None;
        self.in_flight = true;
        if let Kind::Poller(poller) = &mut self.kind {
            poller.on_sent(now);
        }
    }

    /// Whether `wait` is news to the caller (then it is remembered): a
    /// wait for another reason or limit, or one that ends later than the
    /// one said. A wait that only got shorter (the server's headers told of
    /// an earlier reset) is not said again: each wait is said once.
    pub(crate) fn announce(&mut self, wait: &Wait) -> bool {
        self.wake_at = wait.until;
        if let Some(said) = &self.announced {
            let same = said.reason == wait.reason
                && said.limit.as_ref().map(|limit| &limit.name)
                    == wait.limit.as_ref().map(|limit| &limit.name);
            if same && wait.until <= said.until {
                return false;
            }
        }
        self.announced = Some(wait.clone());
        true
    }
}
