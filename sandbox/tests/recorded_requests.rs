//! `GET`/`DELETE /_sandbox/requests` against the real binary: what a client
//! sent, with credentials as their kind and fingerprint, filtered by path
//! and index, in a ring of the last N.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Sandbox, ADA};
use serde_json::{json, Value};

/// `printf %s acd_live_demo_ada | sha256sum | cut -c1-8`
const ADA_FINGERPRINT: &str = "sha256:c153deb4";
/// `printf %s acd_oat_demo_ada_read | sha256sum | cut -c1-8`
const TOKEN_FINGERPRINT: &str = "sha256:c626ef56";

fn listing(sandbox: &Sandbox, query: &str) -> Value {
    let response = sandbox.get(&format!("/_sandbox/requests{query}"), &[]);
    assert_eq!(response.status, 200, "{}", response.text());
    assert!(!response.text().contains("demo_ada"), "{}", response.text());
    response.json()
}

fn indexes(listing: &Value) -> Vec<u64> {
    listing["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["index"].as_u64().unwrap())
        .collect()
}

#[test]
fn recorded_requests_show_what_was_sent_without_secrets() {
    let sandbox = Sandbox::start_with(None, &["--clock", "manual", "--recorded-requests", "3"]);
    let now = sandbox.get("/_sandbox/clock", &[]).json()["now_ms"]
        .as_u64()
        .unwrap();
    assert_eq!(
        listing(&sandbox, ""),
        json!({"requests": [], "next": 0, "capacity": 3, "evicted": 0})
    );
    assert_eq!(
        sandbox
            .get("/api/v1/tables/orders?limit=2", &[("X-API-Key", ADA)])
            .status,
        200
    );
    assert_eq!(
        sandbox
            .get("/api/v1", &[("Accept", "application/json")])
            .status,
        200
    );
    let bearer = sandbox.get(
        "/api/v1/tables/orders",
        &[("Authorization", "Bearer acd_oat_demo_ada_read")],
    );
    let all = listing(&sandbox, "");
    assert_eq!(indexes(&all), [0, 1, 2]);
    assert_eq!(
        all["requests"][0],
        json!({"index": 0, "method": "GET", "path": "/api/v1/tables/orders", "query": "limit=2",
               "headers": [{"name": "host", "value": "127.0.0.1"},
                           {"name": "x-api-key",
                            "credential": {"kind": "api_key", "fingerprint": ADA_FINGERPRINT}}],
               "status": 200, "time_ms": now})
    );
    assert_eq!(all["requests"][1]["query"], Value::Null);
    assert_eq!(all["requests"][1]["path"], "/api/v1");
    assert_eq!(
        all["requests"][2]["headers"][1],
        json!({"name": "authorization", "scheme": "Bearer",
               "credential": {"kind": "oauth2", "fingerprint": TOKEN_FINGERPRINT}})
    );
    assert_eq!(all["requests"][2]["status"], bearer.status);
    // Filters: a path pattern, and from an index on.
    assert_eq!(
        indexes(&listing(&sandbox, "?path=/api/v1/tables/*")),
        [0, 2]
    );
    assert_eq!(indexes(&listing(&sandbox, "?path=%2Fapi%2Fv1")), [1]);
    assert_eq!(indexes(&listing(&sandbox, "?since=2")), [2]);
    assert_eq!(
        indexes(&listing(&sandbox, "?since=1&path=/api/v1/tables/orders")),
        [2]
    );
    // A ring of the last 3: a fourth request forgets the first.
    sandbox.get("/api/v1/tables/nope", &[("X-API-Key", ADA)]);
    let ring = listing(&sandbox, "");
    assert_eq!(indexes(&ring), [1, 2, 3]);
    assert_eq!(
        (ring["next"].as_u64(), ring["evicted"].as_u64()),
        (Some(4), Some(1))
    );
    assert_eq!(ring["requests"][2]["status"], 404);
    // DELETE forgets them; indexes go on.
    let cleared = sandbox.request("DELETE", "/_sandbox/requests", &[], "");
    assert_eq!(cleared.status, 200);
    assert_eq!(cleared.json(), json!({"cleared": 3}));
    sandbox.get("/api/v1", &[]);
    assert_eq!(indexes(&listing(&sandbox, "")), [4]);
    assert_eq!(indexes(&listing(&sandbox, "?since=5")), Vec::<u64>::new());
}

#[test]
fn bad_filters_are_a_400_naming_them() {
    let sandbox = Sandbox::start_with(None, &["--admin"]);
    for (query, named) in [("?since=soon", "since=\"soon\""), ("?user=ada", "\"user\"")] {
        let refused = sandbox.get(&format!("/_sandbox/requests{query}"), &[]);
        assert_eq!(refused.status, 400, "{query}");
        let detail = refused.json()["detail"].as_str().unwrap().to_owned();
        assert!(detail.contains(named), "{detail}");
        assert!(detail.contains("path=PATTERN"), "{detail}");
    }
}

#[test]
fn without_the_admin_routes_nothing_is_recorded_or_shown() {
    let sandbox = Sandbox::start();
    sandbox.get_as_ada("/api/v1/tables/orders");
    assert_eq!(sandbox.get("/_sandbox/requests", &[]).status, 404);
    let off = Sandbox::start_with(None, &["--admin", "--recorded-requests", "0"]);
    off.get_as_ada("/api/v1/tables/orders");
    assert_eq!(
        listing(&off, ""),
        json!({"requests": [], "next": 0, "capacity": 0, "evicted": 0})
    );
}
