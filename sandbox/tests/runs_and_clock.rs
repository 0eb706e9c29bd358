//! Agent runs, the manual clock and the admin routes, against the real
//! binary: lifecycles stepped through in milliseconds, the per-agent limit
//! on top of the credential limit, a whole rate-limit window driven by
//! `POST /_sandbox/clock`, and `POST /_sandbox/reset`.
// A test crate: its helpers may unwrap and panic like the tests themselves.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Response, Sandbox, ADA};
use serde_json::json;

const BOB: &str = "acd_live_demo_bob";
const RECORDS: &str = "/api/v1/connections/crm/records?entity_id=contacts";

fn manual(config: Option<&str>) -> Sandbox {
    Sandbox::start_with(config, &["--clock", "manual"])
}

fn now_ms(sandbox: &Sandbox) -> u64 {
    let clock = sandbox.get("/_sandbox/clock", &[]).json();
    assert_eq!(clock["clock"], "manual");
    clock["now_ms"].as_u64().unwrap()
}

fn advance(sandbox: &Sandbox, ms: u64) -> u64 {
    let moved = sandbox.post_json("/_sandbox/clock", &format!(r#"{{"advance_ms": {ms}}}"#));
    assert_eq!(moved.status, 200, "{}", moved.text());
    moved.json()["now_ms"].as_u64().unwrap()
}

/// Moves the manual clock to the start of the next aligned 60 s window, so
/// that what follows shares one window of every 60 s limit.
fn to_next_minute(sandbox: &Sandbox) {
    let now = now_ms(sandbox);
    advance(sandbox, 60_000 - now % 60_000);
}

fn create(sandbox: &Sandbox, agent: &str, key: &str) -> Response {
    sandbox.request(
        "POST",
        &format!("/api/v1/agents/{agent}/runs"),
        &[("X-API-Key", key)],
        "",
    )
}

fn status_of(sandbox: &Sandbox, run: &str, key: &str) -> String {
    let response = sandbox.get(&format!("/api/v1/runs/{run}"), &[("X-API-Key", key)]);
    assert_eq!(response.status, 200, "{}", response.text());
    response.json()["data"]["status"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn runs_follow_the_default_lifecycle_as_the_manual_clock_moves() {
    let sandbox = manual(None);
    let start = now_ms(&sandbox);
    let created = create(&sandbox, "agent-1", ADA);
    assert_eq!(created.status, 200, "{}", created.text());
    assert_eq!(
        created.json(),
        json!({"data": {"id": "run_1", "agent_id": "agent-1", "status": "queued",
                        "created_at_ms": start, "updated_at_ms": start}})
    );
    assert_eq!(status_of(&sandbox, "run_1", ADA), "queued");
    advance(&sandbox, 999);
    assert_eq!(status_of(&sandbox, "run_1", ADA), "queued");
    advance(&sandbox, 1);
    assert_eq!(status_of(&sandbox, "run_1", ADA), "running");
    advance(&sandbox, 2_000);
    let done = sandbox
        .get("/api/v1/runs/run_1", &[("X-API-Key", ADA)])
        .json();
    assert_eq!(done["data"]["status"], "succeeded");
    assert_eq!(done["data"]["updated_at_ms"], start + 3_000);

    // The configurable failing agent, and someone else's run.
    let failing = create(&sandbox, "failing-agent", ADA).json();
    assert_eq!(failing["data"]["id"], "run_2");
    advance(&sandbox, 3_000);
    assert_eq!(status_of(&sandbox, "run_2", ADA), "failed");
    let bobs_view = sandbox.get("/api/v1/runs/run_1", &[("X-API-Key", BOB)]);
    assert_eq!(bobs_view.status, 404);
    let unknown = sandbox.get("/api/v1/runs/run_99", &[("X-API-Key", ADA)]);
    assert_eq!(unknown.status, 404);
}

#[test]
fn lifecycles_come_from_the_config() {
    let sandbox = manual(Some(
        r#"{"runs": {"lifecycle": [{"status": "pending", "duration_ms": 10}, {"status": "cancelled"}],
                     "agents": {"slow": [{"status": "queued", "duration_ms": 60000}, {"status": "succeeded"}]}}}"#,
    ));
    create(&sandbox, "quick", ADA);
    create(&sandbox, "slow", ADA);
    assert_eq!(status_of(&sandbox, "run_1", ADA), "pending");
    advance(&sandbox, 10);
    assert_eq!(status_of(&sandbox, "run_1", ADA), "cancelled");
    assert_eq!(status_of(&sandbox, "run_2", ADA), "queued");
    advance(&sandbox, 59_990);
    assert_eq!(status_of(&sandbox, "run_2", ADA), "succeeded");
}

#[test]
fn the_per_agent_limit_is_30_per_60_s_on_top_of_the_credential_limit() {
    let sandbox = manual(None);
    to_next_minute(&sandbox);
    for n in 1..=30u64 {
        let created = create(&sandbox, "a1", ADA);
        assert_eq!(created.status, 200, "run {n}: {}", created.text());
        // The tightest limit is the agent's (30 per 60 s), not the key's (100).
        assert_eq!(created.int("RateLimit-Limit"), 30);
        assert_eq!(created.int("RateLimit-Remaining"), 30 - n);
    }
    let refused = create(&sandbox, "a1", ADA);
    assert_eq!(refused.status, 429);
    assert_eq!(refused.json()["limit"], "agent_runs");
    assert_eq!(refused.int("Retry-After"), 60);
    // Another agent is not refused; the credential limit still counts.
    let other = create(&sandbox, "a2", ADA);
    assert_eq!(other.status, 200);
    assert_eq!(other.int("RateLimit-Remaining"), 29);
    let index = sandbox.get_as_ada("/api/v1/tables/orders");
    assert_eq!(index.status, 200);
    advance(&sandbox, 60_000);
    assert_eq!(create(&sandbox, "a1", ADA).status, 200);
}

#[test]
fn the_per_agent_limit_keys_on_the_decoded_agent_id() {
    let sandbox = manual(Some(
        r#"{"extra_limits": {"agent_runs": {"requests": 2, "window_ms": 60000}}}"#,
    ));
    to_next_minute(&sandbox);
    let first = create(&sandbox, "a1", ADA);
    assert_eq!(first.status, 200);
    let encoded = create(&sandbox, "a%31", ADA);
    assert_eq!(encoded.status, 200);
    assert_eq!(encoded.json()["data"]["agent_id"], "a1");
    assert_eq!(encoded.int("RateLimit-Remaining"), 0);
    let third = create(&sandbox, "a1", ADA);
    assert_eq!(third.status, 429, "{}", third.text());
}

#[test]
fn a_manual_clock_drives_a_whole_window_in_milliseconds() {
    let sandbox = manual(Some(
        r#"{"limits": {"credential": {"requests": 3, "window_ms": 60000},
                       "client_ip": {"requests": 100, "window_ms": 60000}}}"#,
    ));
    to_next_minute(&sandbox);
    advance(&sandbox, 15_000);
    for remaining in [2, 1, 0] {
        let response = sandbox.get_as_ada(RECORDS);
        assert_eq!(response.status, 200);
        assert_eq!(response.int("RateLimit-Remaining"), remaining);
        assert_eq!(response.int("RateLimit-Reset"), 45);
    }
    let refused = sandbox.get_as_ada(RECORDS);
    assert_eq!(refused.status, 429);
    assert_eq!(refused.int("Retry-After"), 45);
    advance(&sandbox, 44_999);
    assert_eq!(sandbox.get_as_ada(RECORDS).status, 429);
    assert_eq!(sandbox.get_as_ada(RECORDS).int("Retry-After"), 1);
    advance(&sandbox, 1);
    let admitted = sandbox.get_as_ada(RECORDS);
    assert_eq!(admitted.status, 200);
    assert_eq!(admitted.int("RateLimit-Remaining"), 2);
    assert_eq!(admitted.int("RateLimit-Reset"), 60);
}

#[test]
fn reset_clears_the_limits_and_the_runs() {
    let sandbox = manual(Some(
        r#"{"limits": {"credential": {"requests": 2, "window_ms": 60000},
                       "client_ip": {"requests": 100, "window_ms": 60000}}}"#,
    ));
    to_next_minute(&sandbox);
    assert_eq!(create(&sandbox, "agent-1", ADA).status, 200);
    assert_eq!(sandbox.get_as_ada(RECORDS).status, 200);
    assert_eq!(sandbox.get_as_ada(RECORDS).status, 429);
    let reset = sandbox.post_json("/_sandbox/reset", "");
    assert_eq!(reset.status, 200);
    assert_eq!(reset.json(), json!({"cleared": ["rate_limits", "runs"]}));
    let after = sandbox.get_as_ada(RECORDS);
    assert_eq!(after.status, 200);
    assert_eq!(after.int("RateLimit-Remaining"), 1);
    let gone = sandbox.get("/api/v1/runs/run_1", &[("X-API-Key", ADA)]);
    assert_eq!(gone.status, 404);
}

#[test]
fn admin_routes_are_off_by_default_and_check_what_they_are_given() {
    let plain = Sandbox::start();
    for (method, path) in [
        ("POST", "/_sandbox/reset"),
        ("POST", "/_sandbox/clock"),
        ("GET", "/_sandbox/clock"),
    ] {
        let response = plain.request(method, path, &[], "");
        assert_eq!(response.status, 404, "{method} {path}");
        assert_eq!(response.json()["status"], 404);
    }
    let admin = Sandbox::start_with(None, &["--admin"]);
    let clock = admin.get("/_sandbox/clock", &[]).json();
    assert_eq!(clock["clock"], "system");
    let refused = admin.post_json("/_sandbox/clock", r#"{"advance_ms": 5}"#);
    assert_eq!(refused.status, 409);
    assert_eq!(
        refused.json(),
        json!({"detail": "The sandbox runs on the system clock; start it with --clock manual to move time.", "status": 409})
    );
    assert_eq!(admin.post_json("/_sandbox/reset", "").status, 200);

    let sandbox = manual(None);
    let before = now_ms(&sandbox);
    for body in [
        "",
        "{}",
        r#"{"advance_ms": 1, "now_ms": 2}"#,
        r#"{"advance_ms": -1}"#,
        r#"{"later": 1}"#,
    ] {
        let response = sandbox.post_json("/_sandbox/clock", body);
        assert_eq!(response.status, 400, "{body}");
        assert_eq!(response.json()["status"], 400, "{body}");
    }
    assert_eq!(now_ms(&sandbox), before);
    let set = sandbox.post_json("/_sandbox/clock", r#"{"now_ms": 1700000000000}"#);
    assert_eq!(
        set.json(),
        json!({"clock": "manual", "now_ms": 1_700_000_000_000u64})
    );
    let openapi = sandbox.get("/openapi.json", &[]).json();
    assert!(openapi["paths"].get("/_sandbox/clock").is_none());
    assert!(openapi["paths"].get("/_sandbox/reset").is_none());
    let banner = sandbox.banner().join("\n");
    assert!(banner.contains("Clock: manual"), "{banner}");
}
