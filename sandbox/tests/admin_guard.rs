//! The admin routes cannot be driven from a web page: a request a browser
//! form or a page could send is refused, preflights get no grant, answers
//! carry no CORS header; the documented way (a JSON POST from a script)
//! still works.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Response, Sandbox};

const PAGE: &str = "http://evil.example";

fn now_ms(sandbox: &Sandbox) -> u64 {
    sandbox.get("/_sandbox/clock", &[]).json()["now_ms"]
        .as_u64()
        .unwrap()
}

fn assert_no_cors(response: &Response) {
    for (name, _) in &response.headers {
        assert!(!name.starts_with("access-control-"), "{response:?}");
    }
}

#[test]
fn what_a_browser_form_sends_is_refused_and_changes_nothing() {
    let sandbox = Sandbox::start_with(None, &["--clock", "manual"]);
    let before = now_ms(&sandbox);
    for (target, content_type, body) in [
        (
            "/_sandbox/clock",
            "application/x-www-form-urlencoded",
            "advance_ms=60000",
        ),
        ("/_sandbox/clock", "text/plain", r#"{"advance_ms": 60000}"#),
        (
            "/_sandbox/clock",
            "multipart/form-data; boundary=x",
            "--x--",
        ),
        ("/_sandbox/reset", "application/x-www-form-urlencoded", ""),
        ("/_sandbox/reset", "text/plain", ""),
    ] {
        let from_page = sandbox.request(
            "POST",
            target,
            &[("Content-Type", content_type), ("Origin", PAGE)],
            body,
        );
        assert_eq!(from_page.status, 403, "{target} {content_type}");
        assert_eq!(from_page.json()["status"], 403);
        assert!(
            from_page.json()["detail"]
                .as_str()
                .unwrap()
                .contains("do not answer web pages"),
            "{from_page:?}"
        );
        assert_no_cors(&from_page);
        // The same without Origin (a page's request never lacks it, but
        // the content type alone is refused too).
        let no_origin = sandbox.request("POST", target, &[("Content-Type", content_type)], body);
        assert_eq!(no_origin.status, 415, "{target} {content_type}");
        assert!(
            no_origin.json()["detail"]
                .as_str()
                .unwrap()
                .contains("Content-Type: application/json"),
            "{no_origin:?}"
        );
        assert_no_cors(&no_origin);
    }
    // No content type at all is refused as well.
    let bare = sandbox.request("POST", "/_sandbox/clock", &[], r#"{"advance_ms": 1}"#);
    assert_eq!(bare.status, 415);
    // Even a JSON POST is refused when a page sends it (same origin by DNS
    // rebinding, say): it carries Origin.
    let json_from_page = sandbox.request(
        "POST",
        "/_sandbox/clock",
        &[("Content-Type", "application/json"), ("Origin", PAGE)],
        r#"{"advance_ms": 60000}"#,
    );
    assert_eq!(json_from_page.status, 403);
    assert_eq!(now_ms(&sandbox), before, "the clock moved");
}

#[test]
fn admin_preflights_and_answers_grant_no_cors() {
    let sandbox = Sandbox::start_with(None, &["--admin"]);
    for target in ["/_sandbox/clock", "/_sandbox/reset"] {
        let preflight = sandbox.request(
            "OPTIONS",
            target,
            &[
                ("Origin", PAGE),
                ("Access-Control-Request-Method", "POST"),
                ("Access-Control-Request-Headers", "content-type"),
            ],
            "",
        );
        assert_eq!(preflight.status, 204, "{target}");
        assert_no_cors(&preflight);
    }
    assert_no_cors(&sandbox.get("/_sandbox/clock", &[]));
    // The API keeps its CORS grant.
    let api = sandbox.get("/api/v1", &[("Origin", PAGE)]);
    assert_eq!(api.header("access-control-allow-origin"), Some("*"));
    let api_preflight = sandbox.request(
        "OPTIONS",
        "/api/v1/tables/orders",
        &[("Origin", PAGE), ("Access-Control-Request-Method", "GET")],
        "",
    );
    assert_eq!(
        api_preflight.header("access-control-allow-origin"),
        Some("*")
    );
}

#[test]
fn the_documented_json_post_still_works() {
    let sandbox = Sandbox::start_with(None, &["--clock", "manual"]);
    let before = now_ms(&sandbox);
    let moved = sandbox.request(
        "POST",
        "/_sandbox/clock",
        &[("Content-Type", "application/json; charset=utf-8")],
        r#"{"advance_ms": 60000}"#,
    );
    assert_eq!(moved.status, 200);
    assert_eq!(moved.json()["now_ms"].as_u64(), Some(before + 60_000));
    let reset = sandbox.post_json("/_sandbox/reset", "");
    assert_eq!(reset.status, 200);
    assert_eq!(
        reset.json(),
        serde_json::json!({"cleared": ["rate_limits", "runs"]})
    );
}
