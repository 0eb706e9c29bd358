//! The request log against the real binary: it never holds up a request,
//! even when nobody reads stderr, and no credential reaches it, however it
//! is written in the path or the query.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Sandbox, ADA, NO_LIMITS};

/// Requests sent to a sandbox whose stderr nobody reads (the pipe holds
/// about 64 KiB, the writer's queue 1,024 lines: far fewer than this).
const REQUESTS: usize = 3_000;
/// Fresh connections among them, as many requests on each.
const CONNECTIONS: usize = 100;

#[test]
fn an_unread_stderr_costs_log_lines_never_requests() {
    let sandbox = Sandbox::start_unread_stderr(Some(NO_LIMITS), &[]);
    let mut answered = 0;
    for _ in 0..CONNECTIONS {
        let mut conn = sandbox.connect();
        for _ in 0..REQUESTS / CONNECTIONS {
            let response = conn.get("/api/v1/tables/orders?limit=1", &[("X-API-Key", ADA)]);
            assert_eq!(response.status, 200);
            answered += 1;
        }
    }
    assert_eq!(answered, REQUESTS);
    let (exit, stderr) = sandbox.stop_with("TERM");
    assert!(exit.success(), "{exit:?}");
    let logged = stderr
        .lines()
        .filter(|line| line.starts_with("GET /api/v1/tables/orders?limit 200 "))
        .count();
    let total: Vec<usize> = stderr
        .lines()
        .filter_map(|line| {
            line.strip_prefix("acd-sandbox: ")?
                .strip_suffix(" log lines were dropped in all: stderr was not read fast enough")?
                .parse()
                .ok()
        })
        .collect();
    assert_eq!(total.len(), 1, "one total at shutdown: {total:?}");
    assert!(total[0] > 0);
    // Every request is either a line or counted as dropped.
    assert_eq!(logged + total[0], REQUESTS);
}

#[test]
fn credentials_are_redacted_in_every_form_and_other_text_survives() {
    let sandbox = Sandbox::start();
    for target in [
        "/api/v1/tables/%61cd_live_demo_ada",
        "/api/v1/tables/key=acd_live_demo_ada",
        "/api/v1/tables/orders?token_acd_live_demo_ada",
        "/api/v1/tables/orders?x%3Dacd_oat_demo_ada_read=1&limit=2",
        "/api/v1/tables/%2561cd_live_demo_ada",
        "/api/v1/tables/orders-acd_live_x",
        "/api/v1/tables/plain%20name?order_by=total",
    ] {
        sandbox.get(target, &[]);
    }
    let (_, stderr) = sandbox.stop_with("TERM");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| !line.starts_with("acd-sandbox:"))
        .map(|line| line.rsplit_once(' ').unwrap().0)
        .collect();
    assert_eq!(
        lines,
        [
            "GET /api/v1/tables/<redacted> 401 remaining=99",
            "GET /api/v1/tables/<redacted> 401 remaining=98",
            "GET /api/v1/tables/orders?<redacted> 401 remaining=97",
            "GET /api/v1/tables/orders?<redacted>&limit 401 remaining=96",
            "GET /api/v1/tables/<redacted> 401 remaining=95",
            "GET /api/v1/tables/<redacted> 401 remaining=94",
            "GET /api/v1/tables/plain%20name?order_by 401 remaining=93",
        ]
    );
    for secret in ["live_demo", "oat_demo", "cd_live"] {
        assert!(!stderr.contains(secret), "{stderr}");
    }
}
