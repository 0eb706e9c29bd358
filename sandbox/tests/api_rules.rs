//! End to end over real HTTP: every status, header and envelope rule of the
//! three operations, as the gate decides them and the sandbox serves them.
// A test crate: its helpers may unwrap and panic like the tests themselves.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use acd_core::gate::GateConfig;
use common::{unix_seconds, wait_for_fresh_window, Sandbox, ADA, NO_LIMITS};
use serde_json::json;

const EXPOSED: &str = "RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, \
     x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, WWW-Authenticate, Allow, \
     Deprecation, Sunset, Link";

fn assert_rate_headers(response: &common::Response, limit: u64, remaining: u64) {
    assert_eq!(response.int("RateLimit-Limit"), limit);
    assert_eq!(response.int("RateLimit-Remaining"), remaining);
    let reset = response.int("RateLimit-Reset");
    assert!((1..=60).contains(&reset), "RateLimit-Reset {reset}");
    assert_eq!(response.header("x-ratelimit-limit"), None);
    assert_eq!(response.header("Retry-After"), None);
}

#[test]
fn index_is_public_bare_json_with_rate_limit_headers() {
    let sandbox = Sandbox::start();
    let response = sandbox.get("/api/v1", &[]);
    assert_eq!(response.status, 200);
    assert_eq!(response.header("Content-Type"), Some("application/json"));
    assert_rate_headers(&response, 100, 99);
    assert_eq!(response.header("Access-Control-Allow-Origin"), Some("*"));
    assert_eq!(
        response.header("Access-Control-Expose-Headers"),
        Some(EXPOSED)
    );
    let mut config = GateConfig {
        base_url: sandbox.base(),
        stable_egress_url: Some(format!("{}/egress", sandbox.base())),
        ..GateConfig::default()
    };
    config
        .catalogue
        .add(acd_core::model::Catalogue::create_agent_run())
        .unwrap();
    config
        .catalogue
        .add(acd_core::model::Catalogue::get_run())
        .unwrap();
    assert_eq!(response.body, config.build_index().unwrap().to_bytes());
    assert_eq!(
        response.json()["resources"]["runs"],
        format!("{}/api/v1/runs/{{run_id}}", sandbox.base())
    );
    assert_eq!(
        response.json()["openapi_url"],
        format!("{}/openapi.json", sandbox.base())
    );
}

#[test]
fn table_reads_wrap_records_in_data_and_page_as_asked() {
    let sandbox = Sandbox::with_config(NO_LIMITS);
    let response =
        sandbox.get_as_ada("/api/v1/tables/orders?order_by=total&direction=desc&limit=2");
    assert_eq!(response.status, 200);
    assert_eq!(
        response.text(),
        r#"{"data":[{"created_at":"2024-01-12","customer":"Hooli","id":5,"status":"shipped","total":980},{"created_at":"2024-01-18","customer":"Soylent","id":7,"status":"shipped","total":560}]}"#
    );
    let ids = |target: &str| -> Vec<u64> {
        let response = sandbox.get_as_ada(target);
        assert_eq!(response.status, 200, "{target}");
        response.json()["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|row| row["id"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(ids("/api/v1/tables/orders"), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(ids("/api/v1/tables/orders?offset=6"), [7, 8]);
    assert_eq!(
        ids("/api/v1/tables/orders?order_by=total&after=300"),
        [3, 7, 5]
    );
    assert_eq!(
        ids("/api/v1/tables/orders?order_by=customer&after=Hooli&limit=2"),
        [3, 7]
    );
    assert_eq!(
        ids("/api/v1/tables/orders?order_by=created_at&direction=desc&offset=1&limit=2"),
        [7, 6]
    );
    assert_eq!(
        ids("/api/v1/tables/orders?after=zzz"),
        [1, 2, 3, 4, 5, 6, 7, 8]
    );
    let token = sandbox.get(
        "/api/v1/tables/orders?limit=1",
        &[("Authorization", "Bearer acd_oat_demo_ada_tables")],
    );
    assert_eq!(token.status, 200);
    assert_eq!(token.json()["data"][0]["id"], 1);
}

#[test]
fn connection_reads_are_top_level_arrays_also_under_stable_egress() {
    let sandbox = Sandbox::start();
    let paris = r#"[{"city":"Paris","id":"c1","name":"Alice Martin","vip":true},{"city":"Paris","id":"c3","name":"Chloé Durand","vip":false}]"#;
    let filter = "filter=%7B%22city%22%3A%22Paris%22%7D";
    for (target, headers) in [
        (
            format!("/api/v1/connections/crm/records?entity_id=contacts&{filter}"),
            vec![],
        ),
        (
            format!("/api/v1/connections/crm/records?entity_id=contacts&{filter}"),
            vec![("X-Stable-Egress", "true")],
        ),
        (
            format!("/egress/v1/connections/crm/records?entity_id=contacts&{filter}"),
            vec![],
        ),
    ] {
        let mut all = vec![("X-API-Key", ADA)];
        all.extend(headers);
        let response = sandbox.get(&target, &all);
        assert_eq!(response.status, 200, "{target}");
        assert_eq!(response.text(), paris);
        assert_eq!(response.int("RateLimit-Limit"), 100);
    }
    let page =
        sandbox.get_as_ada("/api/v1/connections/crm/records?entity_id=contacts&offset=1&limit=2");
    let ids: Vec<_> = page
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(ids, [json!("c2"), json!("c3")]);
    let won =
        "/api/v1/connections/crm/records?entity_id=deals&filter=%7B%22stage%22%3A%22won%22%7D";
    assert_eq!(
        sandbox.get_as_ada(won).text(),
        r#"[{"amount":5000,"contact_id":"c1","id":"d1","stage":"won"}]"#
    );
    // Connection records take the API key form only: X-API-Key, not a bearer.
    let bearer = sandbox.get(won, &[("Authorization", "Bearer acd_live_demo_ada")]);
    assert_eq!(bearer.status, 401);
}

#[test]
fn invalid_parameters_are_400_with_every_problem() {
    let sandbox = Sandbox::start();
    let response =
        sandbox.get_as_ada("/api/v1/connections/crm/records?limit=501&offset=-1&bogus=1");
    assert_eq!(response.status, 400);
    assert_eq!(response.header("Content-Type"), Some("application/json"));
    assert_eq!(response.int("RateLimit-Remaining"), 99);
    assert_eq!(
        response.json(),
        json!({
            "detail": "The request has 4 invalid parameters: bogus is not a parameter of this operation; accepted: entity_id, offset, limit, filter; entity_id is required; offset must be an integer from 0 to 9007199254740991 written in plain decimal digits (no sign, spaces, leading zeros, decimals or exponents); got \"-1\"; and 1 more (see errors).",
            "status": 400,
            "errors": [
                {"parameter": "bogus", "problem": "is not a parameter of this operation; accepted: entity_id, offset, limit, filter"},
                {"parameter": "entity_id", "problem": "is required"},
                {"parameter": "offset", "problem": "must be an integer from 0 to 9007199254740991 written in plain decimal digits (no sign, spaces, leading zeros, decimals or exponents); got \"-1\""},
                {"parameter": "limit", "problem": "must be an integer from 1 to 500; got \"501\""}
            ]
        })
    );
    let filter =
        sandbox.get_as_ada("/api/v1/connections/crm/records?entity_id=contacts&filter=%5B1%5D");
    assert_eq!(filter.status, 400);
    assert_eq!(
        filter.json(),
        json!({
            "detail": "The request has 1 invalid parameter: filter must be a JSON object of field to exact value, such as {\"city\":\"Paris\"}; got an array.",
            "status": 400,
            "errors": [{"parameter": "filter", "problem": "must be a JSON object of field to exact value, such as {\"city\":\"Paris\"}; got an array"}]
        })
    );
    let egress = sandbox.get(
        "/api/v1/connections/crm/records?entity_id=contacts",
        &[("X-API-Key", ADA), ("X-Stable-Egress", "yes")],
    );
    assert_eq!(egress.status, 400);
    assert_eq!(
        egress.json()["errors"],
        json!([{"parameter": "X-Stable-Egress", "problem": "must be true or false"}])
    );
    let both = sandbox.get(
        "/api/v1/tables/orders",
        &[
            ("X-API-Key", ADA),
            ("Authorization", "Bearer acd_live_demo_ada"),
        ],
    );
    assert_eq!(both.status, 400);
    assert_eq!(
        both.json(),
        json!({"detail": "Send exactly one credential: either one X-API-Key header or one Authorization: Bearer header, not both or several.", "status": 400})
    );
    let index = sandbox.get("/api/v1?x=1", &[]);
    assert_eq!(index.status, 400);
    assert_eq!(
        index.json()["errors"],
        json!([{"parameter": "x", "problem": "is not a parameter of this operation; this operation takes no query parameters"}])
    );
}

#[test]
fn credentials_missing_invalid_expired_or_unsupported_are_401() {
    let sandbox = Sandbox::start();
    let missing = sandbox.get("/api/v1/tables/orders", &[]);
    assert_eq!(missing.status, 401);
    assert_eq!(
        missing.header("WWW-Authenticate"),
        Some("Bearer realm=\"acd\"")
    );
    assert_eq!(
        missing.json(),
        json!({"detail": "This operation needs a credential: send X-API-Key: <key>, or Authorization: Bearer <key or OAuth token>.", "status": 401})
    );
    assert_rate_headers(&missing, 100, 99);
    let challenge = Some("Bearer realm=\"acd\", error=\"invalid_token\"");
    for (headers, detail) in [
        (
            [("X-API-Key", "acd_live_nobody")],
            "The credential is not recognised; check that it was copied whole and not revoked.",
        ),
        (
            [("X-API-Key", "acd_live_demo_expired")],
            "The credential expired at 1000000000000 (Unix ms); issue a new one.",
        ),
        (
            [("Authorization", "Bearer something_else")],
            "The bearer credential is neither an API key (prefix \"acd_live_\") nor an OAuth token (prefix \"acd_oat_\").",
        ),
    ] {
        let response = sandbox.get("/api/v1/tables/orders", &headers);
        assert_eq!(response.status, 401, "{headers:?}");
        assert_eq!(response.header("WWW-Authenticate"), challenge);
        assert_eq!(response.json(), json!({"detail": detail, "status": 401}));
    }
    let token = sandbox.get(
        "/api/v1/connections/crm/records?entity_id=contacts",
        &[("Authorization", "Bearer acd_oat_demo_ada_tables")],
    );
    assert_eq!(token.status, 401);
    assert_eq!(token.header("WWW-Authenticate"), challenge);
    assert_eq!(
        token.json(),
        json!({"detail": "This operation accepts API keys only, not OAuth tokens.", "status": 401})
    );
}

#[test]
fn a_token_without_the_scope_is_403() {
    let sandbox = Sandbox::start();
    let response = sandbox.get(
        "/api/v1/tables/orders",
        &[("Authorization", "Bearer acd_oat_demo_ada_noscope")],
    );
    assert_eq!(response.status, 403);
    assert_eq!(
        response.header("WWW-Authenticate"),
        Some("Bearer realm=\"acd\", error=\"insufficient_scope\", scope=\"tables:read\"")
    );
    assert_eq!(
        response.json(),
        json!({"detail": "The OAuth token lacks the scope \"tables:read\" this operation needs; request a token that includes it.", "status": 403})
    );
    assert_rate_headers(&response, 100, 99);
}

#[test]
fn invisible_or_unknown_resources_are_404() {
    let sandbox = Sandbox::start();
    for (target, detail) in [
        (
            "/api/v1/tables/invoices",
            "No table \"invoices\" exists that this credential can see.",
        ),
        (
            "/api/v1/tables/nope",
            "No table \"nope\" exists that this credential can see.",
        ),
        (
            "/api/v1/connections/erp/records?entity_id=parts",
            "No connection \"erp\" exists that this credential can see.",
        ),
        (
            "/api/v1/connections/crm/records?entity_id=nope",
            "Connection \"crm\" has no entity \"nope\"; its entities are: contacts, deals.",
        ),
    ] {
        let response = sandbox.get_as_ada(target);
        assert_eq!(response.status, 404, "{target}");
        assert_eq!(response.json(), json!({"detail": detail, "status": 404}));
        assert!(response.header("RateLimit-Limit").is_some());
    }
    let bob = sandbox.get(
        "/api/v1/tables/invoices",
        &[("X-API-Key", "acd_live_demo_bob")],
    );
    assert_eq!(bob.status, 200);
    assert_eq!(bob.json()["data"][0]["id"], "INV-1");
    for (target, detail) in [
        (
            "/api/v2/tables/orders",
            "API version v2 is not served; the supported version is v1 at /api/v1.",
        ),
        (
            "/nowhere",
            "No operation is served at \"/nowhere\". The API is under /api/v1.",
        ),
        (
            "/api/v1/agents",
            "No operation is served at \"/api/v1/agents\". See the index at /api/v1 for what is.",
        ),
    ] {
        let response = sandbox.get(target, &[]);
        assert_eq!(response.status, 404, "{target}");
        assert_eq!(response.json(), json!({"detail": detail, "status": 404}));
        assert!(response.header("RateLimit-Remaining").is_some());
    }
}

#[test]
fn other_methods_are_405_with_allow() {
    let sandbox = Sandbox::start();
    let mut conn = sandbox.connect();
    conn.send(
        b"DELETE /api/v1/tables/orders HTTP/1.1\r\nHost: x\r\nX-API-Key: acd_live_demo_ada\r\n\r\n",
    );
    let response = conn.read_response().unwrap();
    assert_eq!(response.status, 405);
    assert_eq!(response.header("Allow"), Some("GET"));
    assert_eq!(
        response.json(),
        json!({"detail": "Method DELETE is not allowed on \"/api/v1/tables/orders\"; use GET.", "status": 405})
    );
    conn.send(b"OPTIONS /api/v1 HTTP/1.1\r\nHost: x\r\n\r\n");
    let options = conn.read_response().unwrap();
    assert_eq!(options.status, 405);
    assert_eq!(options.header("Allow"), Some("GET"));
}

#[test]
fn the_sixth_table_read_in_a_minute_is_429_with_retry_after_and_legacy_headers() {
    let sandbox = Sandbox::start();
    let probe = sandbox.get("/api/v1", &[]);
    wait_for_fresh_window(probe.int("RateLimit-Reset"), 10);
    for n in 0..5 {
        let response = sandbox.get_as_ada("/api/v1/tables/orders?limit=1");
        assert_eq!(response.status, 200);
        assert_eq!(response.int("RateLimit-Limit"), 5);
        assert_eq!(response.int("RateLimit-Remaining"), 4 - n);
    }
    let before = unix_seconds();
    // Ada's second key shares her per-user limit.
    let refused = sandbox.get(
        "/api/v1/tables/orders?limit=1",
        &[("X-API-Key", "acd_live_demo_ada_ci")],
    );
    let after = unix_seconds();
    assert_eq!(refused.status, 429);
    assert_eq!(refused.header("Content-Type"), Some("application/json"));
    let retry_after = refused.int("Retry-After");
    assert!((1..=60).contains(&retry_after));
    assert_eq!(refused.int("RateLimit-Reset"), retry_after);
    assert_eq!(refused.int("RateLimit-Limit"), 5);
    assert_eq!(refused.int("RateLimit-Remaining"), 0);
    assert_eq!(refused.int("x-ratelimit-limit"), 5);
    assert_eq!(refused.int("x-ratelimit-remaining"), 0);
    let reset_at = refused.int("x-ratelimit-reset");
    assert_eq!(reset_at % 60, 0, "windows are aligned to whole minutes");
    let server_now = reset_at - retry_after;
    assert!(
        (before..=after).contains(&server_now),
        "{before} <= {server_now} <= {after}"
    );
    assert_eq!(
        refused.json(),
        json!({
            "detail": format!("Rate limit exceeded: the user_table_reads limit allows 5 requests per 60 s; retry in {retry_after} s."),
            "status": 429,
            "limit": "user_table_reads"
        })
    );
    // A refused request counts nowhere; Bob's reads are his own.
    let bob = sandbox.get(
        "/api/v1/tables/invoices",
        &[("X-API-Key", "acd_live_demo_bob")],
    );
    assert_eq!(bob.status, 200);
    assert_eq!(bob.int("RateLimit-Remaining"), 4);
    let connections = sandbox.get_as_ada("/api/v1/connections/crm/records?entity_id=deals");
    assert_eq!(connections.status, 200);
    assert_eq!(connections.int("RateLimit-Remaining"), 94);
}

#[test]
fn the_index_is_limited_per_client_ip() {
    let sandbox = Sandbox::start();
    let mut conn = sandbox.connect();
    let probe = conn.get("/api/v1", &[]);
    wait_for_fresh_window(probe.int("RateLimit-Reset"), 10);
    let start = if probe.int("RateLimit-Reset") < 10 {
        0
    } else {
        1
    };
    for n in start..100 {
        let response = conn.get("/api/v1", &[]);
        assert_eq!(response.status, 200);
        assert_eq!(response.int("RateLimit-Remaining"), 99 - n);
    }
    let refused = conn.get("/api/v1", &[]);
    assert_eq!(refused.status, 429);
    assert_eq!(refused.int("x-ratelimit-limit"), 100);
    assert_eq!(refused.json()["limit"], "client_ip");
    assert_eq!(refused.int("Retry-After"), refused.int("RateLimit-Reset"));
}
