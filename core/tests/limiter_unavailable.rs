//! The gate's answer when its limiter cannot decide
//! ([`RateLimiter::try_acquire`] returns [`LimiterUnavailable`], e.g. an
//! external store is down and the policy is to fail closed): 503 with
//! `Retry-After`, no rate-limit headers, nothing charged; and the default
//! `try_acquire` of every in-process limiter simply decides.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::gate::demo::ADA_KEY;
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, GateResponse};
use acd_core::limit::{
    InMemoryLimiter, LimitCheck, LimiterUnavailable, RateLimiter, StackDecision,
};
use acd_core::UnixMillis;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

const NOW: UnixMillis = UnixMillis::new(1_700_000_000_000);

/// An in-memory limiter behind a switch: while `down`, it cannot decide.
#[derive(Default)]
struct Switchable {
    down: AtomicBool,
    inner: InMemoryLimiter,
    asked: AtomicUsize,
}

impl RateLimiter for Switchable {
    fn acquire(&self, checks: &[LimitCheck<'_>], now: UnixMillis) -> StackDecision {
        self.inner.acquire(checks, now)
    }

    fn try_acquire(
        &self,
        checks: &[LimitCheck<'_>],
        now: UnixMillis,
    ) -> Result<StackDecision, LimiterUnavailable> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        if self.down.load(Ordering::SeqCst) {
            return Err(LimiterUnavailable::store_down(now.saturating_add(1_500)));
        }
        self.inner.try_acquire(checks, now)
    }
}

fn gate_with(limiter: Arc<Switchable>) -> Gate {
    Gate::new(
        GateConfig::default(),
        Arc::new(acd_core::gate::demo::credentials()),
        limiter,
    )
    .unwrap()
}

fn respond(gate: &Gate, request: &GateRequest) -> GateResponse {
    match gate.decide(request, NOW) {
        Decision::Reply(response) => response,
        Decision::FetchResource(admitted) => {
            admitted.respond(acd_core::gate::ResourceAnswer::Found(b"[]".to_vec()))
        }
    }
}

fn table_read() -> GateRequest {
    GateRequest::get("/api/v1/tables/orders", "203.0.113.7").with_header("X-API-Key", ADA_KEY)
}

fn assert_unavailable(response: &GateResponse) {
    assert_eq!(response.status, 503);
    // Every response carries RateLimit-*: the base limit (100 per 60 s for
    // both the credential and the client IP) shown as spent until the retry.
    let headers: Vec<(&str, &str)> = response
        .headers
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    assert_eq!(
        headers,
        [
            ("Content-Type", "application/json"),
            ("RateLimit-Limit", "100"),
            ("RateLimit-Remaining", "0"),
            ("RateLimit-Reset", "2"),
            ("Retry-After", "2"),
        ]
    );
    let body: serde_json::Value = serde_json::from_slice(&response.body).unwrap();
    assert_eq!(body["status"], 503);
    let detail = body["detail"].as_str().unwrap();
    assert!(detail.contains("retry in 2 s"), "{detail}");
}

#[test]
fn a_limiter_that_cannot_decide_gives_503_with_retry_after() {
    let limiter = Arc::new(Switchable::default());
    let gate = gate_with(limiter.clone());
    limiter.down.store(true, Ordering::SeqCst);
    assert_unavailable(&respond(&gate, &table_read()));
    // Requests that end early (here 404) are counted too, so they also wait.
    let unknown = GateRequest::get("/api/v1/nowhere", "203.0.113.7");
    assert_unavailable(&respond(&gate, &unknown));
    // The index (public, per client IP) as well.
    assert_unavailable(&respond(&gate, &GateRequest::get("/api/v1", "203.0.113.7")));
    assert_eq!(limiter.asked.load(Ordering::SeqCst), 3);
}

#[test]
fn nothing_is_charged_while_unavailable() {
    let limiter = Arc::new(Switchable::default());
    let gate = gate_with(limiter.clone());
    limiter.down.store(true, Ordering::SeqCst);
    for _ in 0..10 {
        assert_eq!(respond(&gate, &table_read()).status, 503);
    }
    limiter.down.store(false, Ordering::SeqCst);
    // Ada's table-read limit is 5 per 60 s: all five are still there.
    for remaining in (0..5).rev() {
        let response = respond(&gate, &table_read());
        assert_eq!(response.status, 200);
        assert_eq!(
            response.header("RateLimit-Remaining"),
            Some(remaining.to_string().as_str())
        );
    }
    assert_eq!(respond(&gate, &table_read()).status, 429);
}

#[test]
fn the_default_try_acquire_decides_like_acquire() {
    let one = InMemoryLimiter::new();
    let two = InMemoryLimiter::new();
    let check = LimitCheck {
        name: "credential",
        quota: acd_core::limit::Quota::per_seconds(2, 60),
        subject: "key-ada",
    };
    for at in 0..4 {
        let now = NOW.saturating_add(at);
        assert_eq!(
            one.try_acquire(&[check], now),
            Ok(two.acquire(&[check], now))
        );
    }
}
