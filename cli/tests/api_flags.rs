//! `acd api` with the flags of `gh api`: -H, -i, -f/-F, --input, --jq,
//! --paginate, and paths outside the version root; and `acd runs create`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::{json, Value};
use support::{acd, FaultServer, Reply, Sandbox, ADA};

fn api(server: &str, args: &[&str]) -> support::Run {
    let mut all = vec!["api"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--base-url", server, "--api-key", ADA]);
    acd(&all)
}

#[test]
fn headers_are_sent_and_credential_headers_refused() {
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))]);
    let run = api(
        &server.url,
        &[
            "GET",
            "/api/v1/tables/t",
            "-H",
            "Prefer: code=503",
            "--header",
            "X-Trace: a:b",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let seen = &server.seen()[0];
    assert_eq!(seen.header("prefer"), Some("code=503"));
    assert_eq!(seen.header("x-trace"), Some("a:b"));
    assert_eq!(seen.header("x-api-key"), Some(ADA));
    for header in [
        "X-API-Key: acd_live_other",
        "authorization: Bearer x",
        "Cookie: a=b",
    ] {
        let run = api(&server.url, &["GET", "/api/v1/tables/t", "-H", header]);
        assert_eq!(run.code, Some(2), "{header}: {}", run.stderr);
        assert!(run.stderr.contains("--api-key"), "{}", run.stderr);
        assert!(!run.stderr.contains("acd_live_other"), "{}", run.stderr);
    }
    assert_eq!(server.count(), 1, "nothing is sent for a refused header");
}

#[test]
fn include_shows_the_status_and_headers_before_the_body_but_no_secret() {
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))
        .header("RateLimit-Remaining", "4")
        .header("Set-Cookie", "session=SECRETCOOKIE")]);
    let run = api(&server.url, &["GET", "tables/t", "-i"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.starts_with("HTTP/1.1 200\r\n"), "{}", run.stdout);
    assert!(
        run.stdout.contains("ratelimit-remaining: 4\r\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\r\n\r\n{\"data\":[{\"id\":1}]}\n"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("SECRETCOOKIE"), "{}", run.stdout);
    assert!(!run.stdout.contains(ADA), "{}", run.stdout);
}

#[test]
fn fields_are_the_query_of_a_get_and_the_json_body_otherwise() {
    let server = FaultServer::start(vec![Reply::json(200, json!({"data": {"id": "r1"}}))]);
    let run = api(
        &server.url,
        &["GET", "tables/t", "-f", "order_by=name", "-F", "limit=2"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        server.seen()[0].target(),
        "/api/v1/tables/t?order_by=name&limit=2"
    );
    let file = std::env::temp_dir().join(format!("acd-cli-field-{}", std::process::id()));
    std::fs::write(&file, "from a file").unwrap();
    let at_file = format!("note=@{}", file.display());
    let run = api(
        &server.url,
        &[
            "POST",
            "agents/a1/runs",
            "-f",
            "s=1",
            "-F",
            "n=1.5",
            "-F",
            "t=true",
            "-F",
            "z=null",
            "-F",
            &at_file,
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let body: Value = serde_json::from_str(&server.bodies()[1]).unwrap();
    assert_eq!(
        body,
        json!({"s": "1", "n": 1.5, "t": true, "z": null, "note": "from a file"})
    );
    // --input: the file as the body, as is.
    std::fs::write(&file, "{\"input\": [1, 2]}").unwrap();
    let run = api(
        &server.url,
        &["POST", "agents/a1/runs", "--input", file.to_str().unwrap()],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(server.bodies()[2], "{\"input\": [1, 2]}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn jq_filters_the_output_and_a_bad_expression_sends_nothing() {
    let server = FaultServer::start(vec![Reply::page(
        json!([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]),
    )]);
    let run = api(&server.url, &["GET", "tables/t", "--jq", ".data[].name"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "a\nb\n");
    let run = api(
        &server.url,
        &["GET", "tables/t", "--jq", ".data | map(.id)"],
    );
    assert_eq!(run.stdout, "[1,2]\n");
    let bad = api(&server.url, &["GET", "tables/t", "--jq", ".[ "]);
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    assert!(bad.stderr.contains("--jq"), "{}", bad.stderr);
    assert_eq!(server.count(), 2);
}

#[test]
fn paths_outside_the_version_root_are_sent_as_given() {
    let server = FaultServer::start(vec![Reply::json(200, json!({"openapi": "3.1.0"}))]);
    let run = api(&server.url, &["GET", "/openapi.json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(server.seen()[0].target(), "/openapi.json");
    assert_eq!(run.stdout, "{\"openapi\":\"3.1.0\"}\n");
    // Under the root, and relative to it, still work.
    api(&server.url, &["GET", "/api/v1/tables/t"]);
    api(&server.url, &["GET", "tables/t"]);
    let targets: Vec<String> = server
        .seen()
        .iter()
        .map(|s| s.target().to_owned())
        .collect();
    assert_eq!(
        targets,
        ["/openapi.json", "/api/v1/tables/t", "/api/v1/tables/t"]
    );
}

#[test]
fn paginate_reads_every_record_once_through_the_pager() {
    let records: Vec<Value> = (1..=7).map(|id| json!({"id": id})).collect();
    let sandbox = Sandbox::start(&support::sandbox_config(&[("orders", records)], 100, 60));
    let run = api(
        &sandbox.url,
        &["GET", "tables/orders?limit=3", "--paginate"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let ids: Vec<i64> = run
        .records()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [1, 2, 3, 4, 5, 6, 7]);
    let run = api(
        &sandbox.url,
        &[
            "GET",
            "tables/orders",
            "-F",
            "limit=5",
            "--paginate",
            "--jq",
            ".id",
        ],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "1\n2\n3\n4\n5\n6\n7\n");
    let refused = api(&sandbox.url, &["GET", "/openapi.json", "--paginate"]);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    // The sandbox serves its OpenAPI document outside the version root.
    let spec = api(
        &sandbox.url,
        &[
            "GET",
            "/openapi.json",
            "--jq",
            ".openapi | startswith(\"3\")",
        ],
    );
    assert_eq!(spec.code, Some(0), "{}", spec.stderr);
    assert_eq!(spec.stdout, "true\n");
}

#[test]
fn runs_create_prints_the_run_and_with_wait_follows_it_to_its_end() {
    let run_in = |status: &str| Reply::json(200, json!({"data": {"id": "r9", "status": status}}));
    let server = FaultServer::start(vec![
        Reply::json(201, json!({"data": {"id": "r9", "status": "queued"}})),
        run_in("running"),
        run_in("succeeded"),
    ]);
    let created = acd(&[
        "runs",
        "create",
        "a1",
        "--base-url",
        &server.url,
        "--api-key",
        ADA,
    ]);
    assert_eq!(created.code, Some(0), "{}", created.stderr);
    assert_eq!(
        server.seen()[0].line,
        "POST /api/v1/agents/a1/runs HTTP/1.1"
    );
    // The bare run, as `runs wait` and `--wait` print it (not `{"data": ...}`).
    let body: Value = serde_json::from_str(&created.stdout).unwrap();
    assert_eq!(body["id"], "r9");

    let server = FaultServer::start(vec![
        Reply::json(201, json!({"data": {"id": "r9", "status": "queued"}})),
        run_in("running"),
        run_in("failed"),
    ]);
    let waited = acd(&[
        "runs",
        "create",
        "a1",
        "--wait",
        "--interval",
        "0.05",
        "--base-url",
        &server.url,
        "--api-key",
        ADA,
    ]);
    assert_eq!(waited.code, Some(1), "{}", waited.stderr);
    let targets: Vec<String> = server
        .seen()
        .iter()
        .map(|s| s.target().to_owned())
        .collect();
    assert_eq!(
        targets,
        [
            "/api/v1/agents/a1/runs",
            "/api/v1/runs/r9",
            "/api/v1/runs/r9"
        ]
    );
    assert_eq!(waited.stdout, "{\"id\":\"r9\",\"status\":\"failed\"}\n");
    assert!(
        waited.stderr.contains("run status: failed"),
        "{}",
        waited.stderr
    );
}

#[test]
fn runs_create_against_the_sandbox_waits_to_succeeded() {
    let sandbox = Sandbox::start(&support::sandbox_config(&[], 100, 60));
    let run = support::acd_real(&[
        "runs",
        "create",
        "agent-1",
        "--wait",
        "--base-url",
        &sandbox.url,
        "--api-key",
        ADA,
        "--deadline",
        "30",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let last: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(last["status"], "succeeded");
}

#[test]
fn include_on_an_api_error_prints_its_head_and_body_and_exits_1() {
    let server = FaultServer::start(vec![Reply::error(404, "No table \"t\".")]);
    let run = api(&server.url, &["GET", "tables/t", "-i"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.starts_with("HTTP/1.1 404\r\n"), "{}", run.stdout);
    assert!(
        run.stdout
            .ends_with("\r\n\r\n{\"detail\":\"No table \\\"t\\\".\",\"status\":404}\n"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stderr.trim_end(),
        "error: the API answered 404: No table \"t\"."
    );
}

#[test]
fn input_from_stdin_is_the_body() {
    use std::io::Write;
    let server = FaultServer::start(vec![Reply::json(201, json!({"data": {"id": "r1"}}))]);
    let mut child = support::acd_command()
        .args([
            "api",
            "POST",
            "agents/a1/runs",
            "--input",
            "-",
            "--base-url",
            &server.url,
            "--api-key",
            ADA,
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"{\"input\":\"x\"}")
        .unwrap();
    let run = support::collect(child);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(server.bodies()[0], "{\"input\":\"x\"}");
}

#[test]
fn a_path_with_cr_lf_or_a_space_is_refused_with_exit_2_and_not_sent() {
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))]);
    for path in [
        "tables/t\r\nX-Injected: 1",
        "tables/t\nx",
        "tables/a b",
        "/api/v1/tables/t?x=a b",
    ] {
        let run = api(&server.url, &["GET", path]);
        assert_eq!(run.code, Some(2), "{path:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("is not a usable path") && run.stderr.contains("percent-encode"),
            "{path:?}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("could not connect"), "{}", run.stderr);
    }
    assert_eq!(server.count(), 0);
}

#[test]
fn a_header_the_core_owns_is_refused_with_exit_2_and_the_cores_sentence() {
    // Issue 48 item 5: -H goes through the call's headers, so the core's
    // owned-header rule applies (no request editing after it built it).
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))]);
    for (header, name) in [
        ("Accept: text/html", "Accept"),
        ("content-type: text/plain", "content-type"),
        ("Idempotency-Key: k-1", "Idempotency-Key"),
        ("X-Stable-Egress: true", "X-Stable-Egress"),
    ] {
        let run = api(&server.url, &["GET", "tables/t", "-H", header]);
        assert_eq!(run.code, Some(2), "{header}: {}", run.stderr);
        let line = run.stderr.trim_end();
        assert!(
            line.starts_with(&format!(
                "error: the call's header \"{name}\" cannot be sent: "
            )),
            "{line}"
        );
    }
    assert_eq!(server.count(), 0, "nothing is sent for a refused header");
    // A header the core does not own is sent after the core's own, and
    // the core's Accept stays the only one.
    let run = api(&server.url, &["GET", "tables/t", "-H", "Prefer: code=200"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(server.seen()[0].header("accept"), Some("application/json"));
    assert_eq!(server.seen()[0].header("prefer"), Some("code=200"));
}
