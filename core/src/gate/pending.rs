//! Step 5 as a value: the limits a request must pass, handed to the caller
//! so that any store (in-process, remote, async) can check them, and the
//! rest of the decision, which needs only the store's answer and `now`.

use super::admitted::Admitted;
use super::bodies::{error_response, limiter_unavailable, too_many};
use super::headers::Headers;
use super::pipeline::Decision;
use crate::limit::{LimitCheck, LimiterUnavailable, RateLimiter, StackDecision};
use crate::model::limits::AppliedLimit;
use crate::model::operation::DeprecationNotice;
use crate::model::{ErrorBody, ParamProblem};
use crate::UnixMillis;

/// A request whose rate limits are still to be checked.
///
/// Owns everything it needs (no lifetimes), so it can cross threads,
/// `await` points and language bindings. Check [`PendingLimits::checks`]
/// all-or-none in any store, then call [`PendingLimits::resume`] with the
/// store's answer; [`PendingLimits::run`] does both with an in-process
/// [`RateLimiter`].
///
/// ```
/// use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, ResourceAnswer};
/// use acd_core::limit::{self, LimitAlgorithm, LimiterConfig};
///
/// let gate = Gate::demo(GateConfig::default()).unwrap();
/// // Any store works here: a Redis round trip awaited in an async server,
/// // a call into another process… This one is the in-process limiter.
/// let store = limit::in_memory(LimitAlgorithm::FixedWindow, LimiterConfig::default());
/// let now = acd_core::UnixMillis::new(1_700_000_000_000);
/// let request = GateRequest::get("/api/v1/tables/orders", "203.0.113.7")
///     .with_header("X-API-Key", "acd_live_demo_ada");
///
/// let pending = gate.prepare(&request, now);
/// let names: Vec<&str> = pending.limits().iter().map(|l| l.name.as_str()).collect();
/// assert_eq!(names, ["credential", "user_table_reads"]);
/// let answer = store.try_acquire(&pending.checks(), now); // e.g. `.await` on a remote store
/// let response = match pending.resume(answer, now) {
///     Decision::Reply(response) => response,
///     Decision::FetchResource(admitted) => admitted.respond(ResourceAnswer::Found(b"[]".to_vec())),
/// };
/// assert_eq!(response.status, 200);
/// assert_eq!(response.header("RateLimit-Remaining"), Some("4"));
/// ```
#[derive(Debug, Clone)]
pub struct PendingLimits {
    pub(crate) limits: Vec<AppliedLimit>,
    pub(crate) deprecation: Option<DeprecationNotice>,
    pub(crate) then: Then,
}

/// What follows the limits once they admit the request.
#[derive(Debug, Clone)]
pub(crate) enum Then {
    /// The request already failed (404, 405, 401, 403, 400 of an ambiguous
    /// credential, 500): answer `body` with `headers` plus the limit headers.
    Answer { headers: Headers, body: ErrorBody },
    /// Steps 1–4 passed; step 6 found `problems` (400 when not empty).
    Admit {
        problems: Vec<ParamProblem>,
        admitted: Box<Admitted>,
        /// The payload the gate serves itself (the index), if any.
        own_payload: Option<Vec<u8>>,
    },
}

impl PendingLimits {
    /// The limits to check, all or none, in order: the base limit (per
    /// credential or per client IP), then the operation's extra limits.
    pub fn limits(&self) -> &[AppliedLimit] {
        &self.limits
    }

    /// The operation a request that passed routing and authentication is
    /// for (`None` when it already failed: unknown path, 401, 403, ...).
    pub fn operation_id(&self) -> Option<&str> {
        match &self.then {
            Then::Admit { admitted, .. } => Some(admitted.operation_id()),
            Then::Answer { .. } => None,
        }
    }

    /// The limits in the borrowed form [`RateLimiter`] takes.
    pub fn checks(&self) -> Vec<LimitCheck<'_>> {
        self.limits.iter().map(AppliedLimit::check).collect()
    }

    /// Runs the checks against an in-process limiter and resumes.
    pub fn run(self, limiter: &dyn RateLimiter, now: impl Into<UnixMillis>) -> Decision {
        let now = now.into();
        let answer = limiter.try_acquire(&self.checks(), now);
        self.resume(answer, now)
    }

    /// Finishes the decision with the store's answer to [`Self::checks`]
    /// at `now`: a refusal is a 429 (nothing was charged); a store that
    /// cannot decide gives a 503 with `Retry-After`; otherwise the request
    /// goes on to its error or to the caller's resource look-up.
    pub fn resume(
        self,
        answer: Result<StackDecision, LimiterUnavailable>,
        now: impl Into<UnixMillis>,
    ) -> Decision {
        let now = now.into();
        let deprecation = self.deprecation.as_ref();
        let decision = match answer {
            Ok(decision) => decision,
            Err(unavailable) => {
                let quota = self.limits.first().map(|limit| limit.quota.requests);
                return Decision::Reply(limiter_unavailable(unavailable, quota, deprecation, now));
            }
        };
        if let StackDecision::Refused { .. } = decision {
            let mut headers = Headers::json();
            headers.rate_limit(&decision, now);
            headers.deprecation(deprecation);
            return Decision::Reply(too_many(headers, &decision, &self.limits, now));
        }
        match self.then {
            Then::Answer { mut headers, body } => {
                headers.rate_limit(&decision, now);
                headers.deprecation(deprecation);
                Decision::Reply(error_response(headers, body))
            }
            Then::Admit {
                problems,
                mut admitted,
                own_payload,
            } => {
                let mut headers = Headers::json();
                headers.rate_limit(&decision, now);
                headers.deprecation(deprecation);
                if !problems.is_empty() {
                    return Decision::Reply(error_response(
                        headers,
                        ErrorBody::invalid_params(&problems),
                    ));
                }
                admitted.headers = headers.0;
                match own_payload {
                    Some(payload) => Decision::Reply(
                        admitted.respond(super::admitted::ResourceAnswer::Found(payload)),
                    ),
                    None => Decision::FetchResource(admitted),
                }
            }
        }
    }
}
