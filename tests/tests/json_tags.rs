//! One tag member name across the core's JSON: every tagged union names its
//! variant in `type`, and a tagged union inside another sits under a member
//! of its own, so no object carries two tags. Expected JSON written by hand.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::client::{
    ApiResponse, ClientError, Deprecated, GiveUpReason, Plan, RetryCause, RetryDecision,
    TransportFailure, WaitReason,
};
use acd_core::limit::{LimitStatus, StackDecision, Unavailability};
use acd_core::UnixMillis;
use serde::Serialize;
use serde_json::{json, Value};

/// `value`'s JSON, checked to hold no object with a member twice (a serde
/// tag flattened into another tagged object would repeat `type`).
fn written(value: &impl Serialize) -> Value {
    let text = serde_json::to_string(value).unwrap();
    let parsed: Value = serde_json::from_str(&text).unwrap();
    // Re-serialising the parsed value drops repeated members; the text
    // must come back byte for byte.
    assert_eq!(
        serde_json::to_string(&parsed).unwrap().len(),
        text.len(),
        "{text}"
    );
    parsed
}

#[test]
fn client_errors_and_the_reasons_inside_them() {
    let error = ClientError::GaveUp {
        reason: GiveUpReason::MaxAttempts { attempts: 5 },
        attempts: 5,
        last: Box::new(ClientError::Transport {
            failure: TransportFailure::Timeout,
            origin: None,
        }),
    };
    assert_eq!(
        written(&error),
        json!({"type": "gave_up", "attempts": 5,
               "reason": {"type": "max_attempts", "attempts": 5},
               "last": {"type": "transport", "failure": "timeout"}})
    );
    let back: ClientError = serde_json::from_value(written(&error)).unwrap();
    assert_eq!(back, error);
    assert_eq!(
        written(&ClientError::UnknownOperation {
            operation: "x".into()
        }),
        json!({"type": "unknown_operation", "operation": "x"})
    );
}

#[test]
fn retry_decisions_carry_their_cause_and_reason_under_members() {
    let retry = RetryDecision::Retry {
        at: UnixMillis::from(1_000u64),
        attempt: 2,
        cost: 5,
        cause: RetryCause::ServerError { status: 503 },
    };
    assert_eq!(
        written(&retry),
        json!({"type": "retry", "at": 1000, "attempt": 2, "cost": 5,
               "cause": {"type": "server_error", "status": 503}})
    );
    let give_up = RetryDecision::GiveUp {
        reason: GiveUpReason::NotRetryable { status: 404 },
    };
    assert_eq!(
        written(&give_up),
        json!({"type": "give_up", "reason": {"type": "not_retryable", "status": 404}})
    );
    assert_eq!(written(&RetryDecision::Done), json!({"type": "done"}));
}

#[test]
fn throttle_plans() {
    assert_eq!(written(&Plan::SendNow), json!({"type": "send_now"}));
    assert_eq!(
        written(&Plan::WaitUntil {
            at: UnixMillis::from(60_000u64),
            limit: "user_table_reads:ada".into(),
            reason: WaitReason::Quota,
        }),
        json!({"type": "wait_until", "at": 60000, "limit": "user_table_reads:ada", "reason": "quota"})
    );
}

#[test]
fn responses_and_deprecation_forms() {
    let body = r#"{"data":{"id":"run_1"}}"#;
    let response = acd_core::client::interpret(
        acd_core::model::Catalogue::for_clients()
            .get("getRun")
            .unwrap(),
        &acd_core::client::HttpResponse::new(200, body),
    )
    .unwrap();
    assert!(matches!(response, ApiResponse::Object { .. }));
    assert_eq!(
        written(&response),
        json!({"type": "object", "status": 200, "value": {"id": "run_1"}})
    );
    assert_eq!(
        written(&Deprecated::At {
            unix_seconds: 1_700_000_000
        }),
        json!({"type": "at", "unix_seconds": 1_700_000_000u64})
    );
    assert_eq!(written(&Deprecated::Yes), json!({"type": "yes"}));
}

#[test]
fn limiter_decisions() {
    let status = LimitStatus {
        index: 0,
        limit: 5,
        remaining: 0,
        reset_at: UnixMillis::from(60_000u64),
    };
    assert_eq!(
        written(&StackDecision::Refused {
            refusing: status,
            retry_at: UnixMillis::from(60_000u64),
        }),
        json!({"type": "refused", "retry_at": 60000,
               "refusing": {"index": 0, "limit": 5, "remaining": 0, "reset_at": 60000}})
    );
    assert_eq!(
        written(&StackDecision::Admitted { tightest: None }),
        json!({"type": "admitted", "tightest": null})
    );
    assert_eq!(
        written(&Unavailability::TableFull { index: 1 }),
        json!({"type": "table_full", "index": 1})
    );
    assert_eq!(
        written(&Unavailability::StoreDown),
        json!({"type": "store_down"})
    );
}
