//! A full limiter table (issue 12, item 7(d)): the in-memory limiter keeps
//! room per limit name, reports a full table through `try_acquire`, and the
//! gate answers 503 with its own detail and `Retry-After`, not a 429 that
//! blames a limit.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::gate::demo::ADA_KEY;
use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, GateResponse};
use acd_core::limit::{
    InMemoryLimiter, LimitCheck, LimiterConfig, LimiterUnavailable, Quota, RateLimiter,
    StackDecision, Unavailability,
};
use acd_core::UnixMillis;
use std::sync::Arc;

/// 1_700_000_000_000 is 20 s into a 60 s window (it ends 40 s later).
const NOW: UnixMillis = UnixMillis::new(1_700_000_000_000);

fn check<'a>(name: &'a str, subject: &'a str) -> LimitCheck<'a> {
    LimitCheck {
        name,
        quota: Quota::per_seconds(100, 60),
        subject,
    }
}

fn one_key_per_limit() -> InMemoryLimiter {
    InMemoryLimiter::with_config(LimiterConfig {
        shards: 1,
        ..LimiterConfig::with_max_keys(1)
    })
}

#[test]
fn a_full_table_is_reported_not_refused_as_a_limit() {
    let limiter = one_key_per_limit();
    assert!(matches!(
        limiter.try_acquire(&[check("client_ip", "192.0.2.1")], NOW),
        Ok(StackDecision::Admitted { .. })
    ));
    let full = limiter.try_acquire(&[check("client_ip", "192.0.2.2")], NOW);
    assert_eq!(
        full,
        Err(LimiterUnavailable {
            // The soonest room: the end of 192.0.2.1's window.
            retry_at: NOW.saturating_add(40_000),
            reason: Unavailability::TableFull { index: 0 },
        })
    );
    // Nothing was stored for the subject that found no room.
    assert_eq!(limiter.state("client_ip", "192.0.2.2"), None);
}

#[test]
fn a_flood_of_per_ip_subjects_cannot_lock_out_credentials() {
    let limiter = InMemoryLimiter::<acd_core::limit::FixedWindow>::with_config(
        LimiterConfig::with_max_keys(64),
    );
    let ips: Vec<String> = (0..1_000).map(|i| format!("198.51.100.{i}")).collect();
    let mut full = 0;
    for ip in &ips {
        if limiter.try_acquire(&[check("client_ip", ip)], NOW).is_err() {
            full += 1;
        }
    }
    assert!(full >= 1_000 - 64, "{full} refusals for room");
    // Every credential still gets in: its table has its own room.
    for key in ["key-ada", "key-bob", "key-cy"] {
        assert!(matches!(
            limiter.try_acquire(&[check("credential", key)], NOW),
            Ok(StackDecision::Admitted { .. })
        ));
    }
}

fn respond(gate: &Gate, request: &GateRequest) -> GateResponse {
    match gate.decide(request, NOW) {
        Decision::Reply(response) => response,
        Decision::FetchResource(admitted) => {
            admitted.respond(acd_core::gate::ResourceAnswer::Found(b"[]".to_vec()))
        }
    }
}

#[test]
fn the_gate_answers_503_with_its_own_detail_when_the_table_is_full() {
    let gate = Gate::new(
        GateConfig::default(),
        Arc::new(acd_core::gate::demo::credentials()),
        Arc::new(one_key_per_limit()),
    )
    .unwrap();
    assert_eq!(
        respond(&gate, &GateRequest::get("/api/v1", "192.0.2.1")).status,
        200
    );
    let response = respond(&gate, &GateRequest::get("/api/v1", "192.0.2.2"));
    assert_eq!(response.status, 503);
    assert_eq!(response.header("Retry-After"), Some("40"));
    let body: serde_json::Value = serde_json::from_slice(&response.body).unwrap();
    assert_eq!(body["status"], 503);
    assert_eq!(
        body["detail"],
        "Rate limits cannot be checked right now (the limiter is tracking as many clients \
         as it can hold); retry in 40 s."
    );
    // The credential limit has its own room: Ada is served from that IP.
    let read =
        GateRequest::get("/api/v1/tables/orders", "192.0.2.2").with_header("X-API-Key", ADA_KEY);
    assert_eq!(respond(&gate, &read).status, 200);
}

#[test]
fn limiter_config_is_checked() {
    use acd_core::limit::{KeyedLimiter, LimiterConfigError, MAX_SHARDS};
    assert_eq!(
        LimiterConfig::with_max_keys(0).check(),
        Err(LimiterConfigError::NoKeys)
    );
    let many = LimiterConfig {
        shards: MAX_SHARDS + 1,
        ..LimiterConfig::default()
    };
    assert_eq!(
        many.check(),
        Err(LimiterConfigError::TooManyShards {
            shards: MAX_SHARDS + 1
        })
    );
    assert!(many
        .check()
        .unwrap_err()
        .to_string()
        .contains("at most 1024"));
    assert!(
        InMemoryLimiter::<acd_core::limit::FixedWindow>::try_with_config(
            LimiterConfig::with_max_keys(0)
        )
        .is_err()
    );
    assert!(KeyedLimiter::<u64>::try_new(LimiterConfig::default()).is_ok());
    // Unchecked, a huge shard count is capped instead of allocated.
    let capped = KeyedLimiter::<u64>::new(LimiterConfig {
        shards: usize::MAX,
        ..LimiterConfig::default()
    });
    assert_eq!(capped.shard_count(), MAX_SHARDS);
}

#[test]
fn the_hash_seed_is_an_argument_and_placement_repeats() {
    use acd_core::limit::{Algorithm, FixedWindow, KeyedLimiter};
    // With a fixed seed, which keys a full table refuses repeats exactly.
    let refused = |seed: u64| -> Vec<u64> {
        let limiter: KeyedLimiter<u64> = KeyedLimiter::new(LimiterConfig {
            shards: 4,
            hash_seed: seed,
            ..LimiterConfig::with_max_keys(64)
        });
        let rule = FixedWindow::rule(Quota::per_seconds(1, 60));
        (0..200)
            .filter(|key| !limiter.check(key, &rule, NOW).admitted)
            .collect()
    };
    assert_eq!(refused(7), refused(7));
    assert_ne!(refused(7), refused(8));
}
