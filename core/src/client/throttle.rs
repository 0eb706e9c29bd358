//! Proactive throttling: a model of every limit the client's requests count
//! against, so that [`Throttle::plan`] can say "send now" or "wait until T"
//! before the server would have to answer 429.
//!
//! Each limit key (see [`LimitRef`]) starts from what the catalogue and
//! configuration say (e.g. 5 per 60 s per user for table reads, 100 per 60 s
//! per credential), learns from the index's `rate_limits`, counts the
//! client's own sends, and reconciles with every response's headers. The gate
//! reports only the tightest limit per response, so headers are attributed
//! to one key: by policy name, else by the reported limit, else the key the
//! client believes tightest (the gate's own rule).
//!
//! Before the server has told when a window ends, the model opens a window
//! at the first send. That is conservative for an epoch-aligned fixed window
//! (the server's window containing that send ends no later) and for GCRA.
//!
//! Every instant and window length a server supplies (resets, `Retry-After`,
//! `w=`, the index's windows) is kept no further ahead than the throttle's
//! bound, [`Throttle::max_wait_ms`] (the client's
//! `RetryPolicy::max_retry_after_ms`), so no block, window end or window the
//! model keeps plans a longer wait (see `server_wait`).
//!
//! A 429 blocks the refusing limit until the server's time, and that limit's
//! window is taken to end then: the model never adds its own window on top
//! of the server's answer.

use super::ratelimit_headers::RateLimitHeaders;
use super::request::{ClientRequest, LimitRef};
use super::retry::DEFAULT_MAX_RETRY_AFTER_MS;
use super::server_wait::{bound_window_ms, ServerWait};
use crate::model::index::RateLimits;
use crate::model::Quota;
use crate::UnixMillis;
use litemap::LiteMap;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// Models kept before idle ones (window over, nothing in flight, no block)
/// are dropped; a dropped model starts again from its assumed quota.
pub const MAX_MODELS: usize = 1_024;

/// Where the model of a limit got its size from.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimitSource {
    /// The catalogue or the client configuration.
    Assumed,
    /// The API index's `rate_limits`.
    Index,
    /// A response's headers.
    Headers,
}

/// The client's model of one limit for one subject.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitModel {
    /// The state key.
    pub key: String,
    /// The limit's name.
    pub name: String,
    /// Requests per window.
    pub limit: u32,
    /// Window length in ms.
    pub window_ms: u64,
    /// Requests left in the current window (sends in flight already taken).
    pub remaining: u32,
    /// End of the current window; `None` until a send opens one.
    pub window_end: Option<UnixMillis>,
    /// No send before this instant (from a 429's `Retry-After`).
    pub blocked_until: UnixMillis,
    /// Sends without an answer yet.
    pub in_flight: u32,
    /// Where `limit` and `window_ms` come from.
    pub source: LimitSource,
    /// Whether the server gave `window_ms` (the index, or a header's
    /// window such as the policy's `w=`); headers that give only the count
    /// leave the assumed window in place.
    #[serde(default)]
    pub window_announced: bool,
    /// The server's own time for this limit (a reset, or a 429's retry
    /// time) when it lay further ahead than the throttle's bound. The model
    /// keeps the bound instead; a call that would wait for this limit ends
    /// at once, naming this time ([`super::ClientError::RateLimitedTooLong`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_until: Option<UnixMillis>,
    /// The end of the current window as the server's headers gave it
    /// (`None` until an answer reports it, and once that window ended):
    /// what answers arriving out of order are compared with.
    #[serde(skip)]
    reported_end: Option<UnixMillis>,
}

impl LimitModel {
    fn new(reference: &LimitRef, quota: Quota, source: LimitSource) -> Self {
        Self {
            key: reference.key.clone(),
            name: reference.name.clone(),
            limit: quota.requests,
            window_ms: quota.window(),
            remaining: quota.requests,
            window_end: None,
            blocked_until: UnixMillis::ZERO,
            in_flight: 0,
            source,
            window_announced: source == LimitSource::Index,
            server_until: None,
            reported_end: None,
        }
    }

    /// Requests left at `at`, counting a window that has ended as full. A
    /// limit of 0 admits one probe per window: only a request can learn
    /// that the server admits again, so the model never holds a call
    /// forever.
    pub fn remaining_at(&self, at: impl Into<UnixMillis>) -> u32 {
        let at = at.into();
        match self.window_end {
            Some(end) if at >= end => self.limit.max(1),
            _ => self.remaining,
        }
    }

    /// The first instant at or after `now` at which one more send fits.
    pub fn ready_at(&self, now: impl Into<UnixMillis>) -> UnixMillis {
        let start = now.into().max(self.blocked_until);
        if self.remaining_at(start) > 0 {
            return start;
        }
        match self.window_end {
            Some(end) if end > start => end,
            // Nothing sent under this model yet (a limit of 0 never used):
            // one probe now.
            _ => start,
        }
    }

    fn roll(&mut self, now: UnixMillis) {
        if self.window_end.is_some_and(|end| now >= end) {
            self.remaining = self.limit.max(1);
            self.window_end = None;
            self.server_until = None;
            self.reported_end = None;
        }
    }
}

/// How far apart two answers of one window may report its reset: resets
/// are whole seconds, so answers of one fixed window, in whatever order they
/// arrive, report resets within a second of each other plus their latency.
const SAME_WINDOW_MS: u64 = 2_000;

/// Which of the model's windows a response's reset belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReportedWindow {
    /// The window the server's headers already reported (its reset within
    /// [`SAME_WINDOW_MS`] of that one's).
    Current,
    /// A window that ended before the reported one: a late answer.
    Earlier,
    /// A window the model knows nothing of yet from the server (or a
    /// server whose windows slide: each answer's reset later than the last).
    Next,
}

impl ReportedWindow {
    fn of(model: &LimitModel, reset_at: UnixMillis) -> Self {
        match model.reported_end {
            Some(end) if reset_at.saturating_add(SAME_WINDOW_MS) < end => Self::Earlier,
            Some(end) if reset_at <= end.saturating_add(SAME_WINDOW_MS) => Self::Current,
            _ => Self::Next,
        }
    }
}

/// Why a send (or a call) has to wait.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitReason {
    /// The limit's window is used up.
    Quota,
    /// The server said when to come back (`Retry-After`).
    RetryAfter,
    /// A failed attempt is retried after a backoff.
    Backoff {
        /// The number of the attempt that waits (2 for the first retry).
        attempt: u32,
    },
    /// A run poller waits for its next poll.
    PollInterval,
}

/// The throttle's answer for one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Plan {
    /// Every limit has room: send now.
    SendNow,
    /// Wait until `at`, because of limit `limit`.
    WaitUntil {
        /// The instant (caller's clock).
        at: UnixMillis,
        /// The key of the limit that needs the longest wait.
        limit: String,
        /// Why.
        reason: WaitReason,
    },
}

/// Models of every limit seen, keyed by [`LimitRef::key`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throttle {
    models: LiteMap<String, LimitModel>,
    learned: LiteMap<String, Quota>,
    /// 429s whose refusing limit the answer did not name, by the set of
    /// limits the refused request counts against ([`unattributed_key`]).
    #[serde(default)]
    unattributed: LiteMap<String, Hold>,
    #[serde(default = "default_max_wait_ms")]
    max_wait_ms: u64,
}

fn default_max_wait_ms() -> u64 {
    DEFAULT_MAX_RETRY_AFTER_MS
}

impl Default for Throttle {
    fn default() -> Self {
        Self::with_max_wait_ms(DEFAULT_MAX_RETRY_AFTER_MS)
    }
}

impl Throttle {
    /// An empty throttle whose bound is the default `max_retry_after_ms`
    /// (60 s).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty throttle that keeps no server-supplied instant or window
    /// further ahead than `max_wait_ms` (the client passes its
    /// `RetryPolicy::max_retry_after_ms`).
    pub fn with_max_wait_ms(max_wait_ms: u64) -> Self {
        Self {
            models: LiteMap::new_vec(),
            learned: LiteMap::new_vec(),
            unattributed: LiteMap::new_vec(),
            max_wait_ms,
        }
    }

    /// The bound on what the model keeps from a server.
    pub fn max_wait_ms(&self) -> u64 {
        self.max_wait_ms
    }

    /// The models, by key.
    pub fn models(&self) -> impl Iterator<Item = &LimitModel> {
        self.models.values()
    }

    /// The model of `key`, if the client has used it.
    pub fn model(&self, key: &str) -> Option<&LimitModel> {
        self.models.get(key)
    }

    fn fresh(&self, reference: &LimitRef) -> LimitModel {
        match self.learned.get(&reference.name) {
            Some(quota) => LimitModel::new(reference, *quota, LimitSource::Index),
            None => LimitModel::new(reference, reference.quota, LimitSource::Assumed),
        }
    }

    /// The model of `reference`, made from what is known when the client
    /// has not used it yet. The key is copied only then: this runs several
    /// times per request. (`None` cannot happen: the model is there.)
    fn entry(&mut self, reference: &LimitRef) -> Option<&mut LimitModel> {
        if !self.models.contains_key(reference.key.as_str()) {
            let fresh = self.fresh(reference);
            self.models.insert(reference.key.clone(), fresh);
        }
        self.models.get_mut(reference.key.as_str())
    }

    /// Learns the index's advertised limit (`scope` names the limit; the
    /// per-credential one when absent) for limits the headers have not
    /// described yet.
    pub fn learn_index(&mut self, limits: &RateLimits) {
        let name = limits
            .scope
            .clone()
            .unwrap_or_else(|| crate::model::limits::CREDENTIAL_LIMIT_NAME.into());
        let window_ms = u64::try_from(limits.window_seconds.max(1))
            .unwrap_or(u64::MAX / 1_000)
            .saturating_mul(1_000);
        let quota = Quota {
            requests: u32::try_from(limits.requests.max(0)).unwrap_or(u32::MAX),
            window_ms: bound_window_ms(window_ms, self.max_wait_ms),
        };
        for (_, model) in self.models.iter_mut() {
            if model.name == name && model.source == LimitSource::Assumed {
                let used = model.limit.saturating_sub(model.remaining);
                model.limit = quota.requests;
                model.window_ms = quota.window();
                model.remaining = quota.requests.saturating_sub(used);
                model.source = LimitSource::Index;
                model.window_announced = true;
            }
        }
        self.learned.insert(name, quota);
    }

    /// "Send now" or "wait until T" for `request` at `now`.
    pub fn plan(&self, request: &ClientRequest, now: impl Into<UnixMillis>) -> Plan {
        self.plan_limits(&request.limits, now)
    }

    /// [`Throttle::plan`] for a list of limits.
    pub fn plan_limits(&self, limits: &[LimitRef], now: impl Into<UnixMillis>) -> Plan {
        let now = now.into();
        let mut wait: Option<(UnixMillis, &LimitRef, WaitReason)> = None;
        for reference in limits {
            let (at, blocked_until) = match self.models.get(&reference.key) {
                Some(model) => (model.ready_at(now), model.blocked_until),
                // Never used: a full window (or, for a limit of 0, the
                // probe the model admits).
                None => (now, UnixMillis::ZERO),
            };
            if at > now && wait.is_none_or(|(longest, _, _)| at > longest) {
                let reason = if at == blocked_until {
                    WaitReason::RetryAfter
                } else {
                    WaitReason::Quota
                };
                wait = Some((at, reference, reason));
            }
        }
        let mut plan = match wait {
            None => Plan::SendNow,
            Some((at, reference, reason)) => Plan::WaitUntil {
                at,
                limit: reference.key.clone(),
                reason,
            },
        };
        let hold = if self.unattributed.is_empty() {
            None
        } else {
            self.unattributed.get(&unattributed_key(limits))
        };
        if let Some(hold) = hold {
            let later = match &plan {
                Plan::SendNow => hold.blocked_until > now,
                // The server's word names the wait when it ends no sooner.
                Plan::WaitUntil { at, .. } => hold.blocked_until >= *at,
            };
            // Named by the request's most specific limit (its last).
            if let (true, Some(last)) = (later, limits.last()) {
                plan = Plan::WaitUntil {
                    at: hold.blocked_until,
                    limit: last.key.clone(),
                    reason: WaitReason::RetryAfter,
                };
            }
        }
        plan
    }

    /// The server's own time behind a wait of a request with `limits` on
    /// limit `key` (that limit's, else a refusal's that named no limit)
    /// when it lies further ahead than the bound.
    pub fn server_until(&self, limits: &[LimitRef], key: &str) -> Option<UnixMillis> {
        let own = self.models.get(key).and_then(|model| model.server_until);
        own.or_else(|| {
            if self.unattributed.is_empty() {
                return None;
            }
            self.unattributed
                .get(&unattributed_key(limits))?
                .server_until
        })
    }

    /// Counts a send of a request with `limits` at `now`.
    pub fn on_sent(&mut self, limits: &[LimitRef], now: impl Into<UnixMillis>) {
        let now = now.into();
        if self.models.len() >= MAX_MODELS {
            self.models.retain(|_, model| {
                model.in_flight > 0
                    || model.blocked_until > now
                    || model.window_end.is_some_and(|end| end > now)
            });
        }
        self.unattributed.retain(|_, hold| hold.blocked_until > now);
        for reference in limits {
            let Some(model) = self.entry(reference) else {
                continue;
            };
            model.roll(now);
            model.server_until = None;
            if model.window_end.is_none() {
                model.window_end = Some(now.saturating_add(model.window_ms));
            }
            model.remaining = model.remaining.saturating_sub(1);
            model.in_flight = model.in_flight.saturating_add(1);
        }
    }

    /// Reconciles with a response (`status`, parsed headers) at `now`.
    pub fn on_response(
        &mut self,
        limits: &[LimitRef],
        status: u16,
        headers: &RateLimitHeaders,
        now: impl Into<UnixMillis>,
    ) {
        let now = now.into();
        let max_wait_ms = self.max_wait_ms;
        let bounded = |at: UnixMillis| ServerWait::new(at, now, max_wait_ms).bounded();
        let too_long = |at: UnixMillis| ServerWait::new(at, now, max_wait_ms).is_too_long();
        for reference in limits {
            let Some(model) = self.entry(reference) else {
                continue;
            };
            model.in_flight = model.in_flight.saturating_sub(1);
            model.roll(now);
        }
        let mut refused: Option<usize> = None;
        for observation in &headers.observations {
            let Some((index, reference)) = self
                .attribute(limits, observation, now)
                .and_then(|index| Some((index, limits.get(index)?)))
            else {
                continue;
            };
            let Some(model) = self.entry(reference) else {
                continue;
            };
            if let Some(limit) = observation.limit {
                model.limit = limit;
            }
            if let Some(window_ms) = observation.window_ms {
                model.window_ms = bound_window_ms(window_ms, max_wait_ms);
                model.window_announced = true;
            }
            let reset_at = bounded(observation.reset_at);
            let reported = observation.remaining.saturating_sub(model.in_flight);
            match ReportedWindow::of(model, reset_at) {
                // Answers of one window can arrive in any order: the
                // server's count only falls within a window, so the lowest
                // report holds (a late, higher one is stale).
                // The latest of the window's resets holds (the safe side),
                // within SAME_WINDOW_MS of the first one reported: a window
                // cannot slide on, it rolls and the next answer starts anew.
                ReportedWindow::Current => {
                    model.remaining = model.remaining.min(reported);
                    model.window_end = model.window_end.max(Some(reset_at));
                }
                // An answer of a window that has already given way to the
                // next one says nothing of the current one.
                ReportedWindow::Earlier => {}
                ReportedWindow::Next => {
                    model.remaining = reported;
                    model.window_end = Some(reset_at);
                    model.reported_end = Some(reset_at);
                }
            }
            // Only a refusal's time holds calls off without asking: a reset
            // on an admitted answer is advice, kept at the bound, after
            // which the server is asked again.
            model.server_until =
                (status == 429 && too_long(observation.reset_at)).then_some(observation.reset_at);
            model.source = LimitSource::Headers;
            model.roll(now);
            refused.get_or_insert(index);
        }
        if status == 429 {
            let server_until = headers.refused_until().filter(|at| too_long(*at));
            if let Some(until) = headers.refused_until().map(bounded) {
                match refused {
                    // The refusing limit admits again at `until`: its window
                    // is spent until then.
                    Some(index) => {
                        if let Some(model) = limits.get(index).and_then(|r| self.entry(r)) {
                            model.blocked_until = model.blocked_until.max(until);
                            model.remaining = 0;
                            model.window_end = Some(until);
                            model.server_until = server_until;
                        }
                    }
                    // Not known which limit refused: the refusal holds
                    // only requests that count against exactly these
                    // limits (a request under another limit goes at once
                    // and meets the server's own answer).
                    None => {
                        // A limit the model believes spent past `until`
                        // admits again then: the server's word decides, the
                        // model's own window is not added on top.
                        for reference in limits {
                            if let Some(model) = self.entry(reference) {
                                if model.remaining_at(until) == 0 {
                                    model.window_end = Some(until);
                                }
                            }
                        }
                        let key = unattributed_key(limits);
                        let hold = self.unattributed.entry(key).or_default();
                        hold.blocked_until = hold.blocked_until.max(until);
                        hold.server_until = server_until;
                    }
                }
            }
        }
    }

    /// Reconciles with a transport failure: a connect failure never reached
    /// the server, so its reservation is given back.
    pub fn on_transport_failure(
        &mut self,
        limits: &[LimitRef],
        never_sent: bool,
        now: impl Into<UnixMillis>,
    ) {
        let now = now.into();
        for reference in limits {
            let Some(model) = self.entry(reference) else {
                continue;
            };
            model.in_flight = model.in_flight.saturating_sub(1);
            model.roll(now);
            if never_sent && model.window_end.is_some() {
                model.remaining = model.remaining.saturating_add(1).min(model.limit);
            }
        }
    }

    /// Which of `limits` an observation describes.
    fn attribute(
        &self,
        limits: &[LimitRef],
        observation: &super::ratelimit_headers::LimitObservation,
        now: UnixMillis,
    ) -> Option<usize> {
        if let Some(policy) = &observation.policy {
            if let Some(index) = limits.iter().position(|r| &r.name == policy) {
                return Some(index);
            }
        }
        let models: Vec<Cow<'_, LimitModel>> = limits
            .iter()
            .map(|r| match self.models.get(r.key.as_str()) {
                Some(model) => Cow::Borrowed(model),
                None => Cow::Owned(self.fresh(r)),
            })
            .collect();
        let all: Vec<(usize, &LimitModel)> =
            models.iter().map(|model| &**model).enumerate().collect();
        let matching: Vec<(usize, &LimitModel)> = all
            .iter()
            .copied()
            .filter(|(_, model)| observation.limit == Some(model.limit))
            .collect();
        if matching.len() == 1 {
            return matching.first().map(|&(index, _)| index);
        }
        let pool = if matching.is_empty() { all } else { matching };
        // The gate reports the tightest: least remaining, then latest reset.
        pool.into_iter()
            .min_by_key(|&(_, model)| {
                (
                    model.remaining_at(now),
                    std::cmp::Reverse(model.window_end.unwrap_or(UnixMillis::ZERO)),
                )
            })
            .map(|(index, _)| index)
    }
}

/// A refusal's hold on requests of one set of limits, when the answer did
/// not name the limit that refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hold {
    /// No such request before this instant (kept no further than the bound).
    pub blocked_until: UnixMillis,
    /// The server's own time, when further ahead than the bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_until: Option<UnixMillis>,
}

/// The key of a refusal on a set of limits that named none: `refused:`
/// and their keys, joined by `+` (never a limit's own key).
pub fn unattributed_key(limits: &[LimitRef]) -> String {
    let keys: Vec<&str> = limits.iter().map(|limit| limit.key.as_str()).collect();
    format!("refused:{}", keys.join("+"))
}
