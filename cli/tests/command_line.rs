//! The command line itself: global options before and after the
//! subcommand, environment fallbacks (a flag wins), exit status 2 for bad
//! command lines with nothing sent, and shell completions.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::json;
use support::{acd, acd_env, FaultServer, Reply, ADA};

fn one_page() -> FaultServer {
    FaultServer::start(vec![Reply::page(json!([{"id": 1}]))])
}

#[test]
fn global_options_work_before_and_after_the_subcommand() {
    let server = one_page();
    let before = acd(&[
        "--base-url",
        &server.url,
        "--api-key",
        ADA,
        "tables",
        "read",
        "t",
    ]);
    let after = acd(&[
        "tables",
        "read",
        "t",
        "--base-url",
        &server.url,
        "--api-key",
        ADA,
    ]);
    let middle = acd(&[
        "tables",
        "--api-key",
        ADA,
        "read",
        "--base-url",
        &server.url,
        "t",
    ]);
    for run in [&before, &after, &middle] {
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert_eq!(run.stdout, "{\"id\":1}\n");
    }
    assert_eq!(server.count(), 3);
    assert!(server
        .seen()
        .iter()
        .all(|seen| seen.target() == "/api/v1/tables/t"));
}

#[test]
fn environment_variables_are_fallbacks_and_flags_win() {
    let server = one_page();
    let from_env = acd_env(
        &["tables", "read", "t"],
        &[("ACD_BASE_URL", &server.url), ("ACD_API_KEY", ADA)],
    );
    assert_eq!(from_env.code, Some(0), "{}", from_env.stderr);
    assert_eq!(server.seen()[0].header("x-api-key"), Some(ADA));
    let flag_wins = acd_env(
        &[
            "tables",
            "read",
            "t",
            "--api-key",
            "acd_live_other",
            "--base-url",
            &server.url,
        ],
        &[("ACD_BASE_URL", "http://127.0.0.1:9"), ("ACD_API_KEY", ADA)],
    );
    assert_eq!(flag_wins.code, Some(0), "{}", flag_wins.stderr);
    assert_eq!(server.seen()[1].header("x-api-key"), Some("acd_live_other"));
    let token = acd_env(
        &["tables", "read", "t", "--base-url", &server.url],
        &[("ACD_TOKEN", "acd_oat_demo_ada_tables")],
    );
    assert_eq!(token.code, Some(0), "{}", token.stderr);
    assert_eq!(
        server.seen()[2].header("authorization"),
        Some("Bearer acd_oat_demo_ada_tables")
    );
}

#[test]
fn bad_command_lines_exit_2_and_send_nothing() {
    let server = one_page();
    let url = server.url.as_str();
    let cases: Vec<Vec<&str>> = vec![
        // both credentials
        vec![
            "tables",
            "read",
            "t",
            "--base-url",
            url,
            "--api-key",
            ADA,
            "--token",
            "acd_oat_x",
        ],
        // unparsable base URLs
        vec![
            "tables",
            "read",
            "t",
            "--base-url",
            "not a url",
            "--api-key",
            ADA,
        ],
        vec![
            "tables",
            "read",
            "t",
            "--base-url",
            "ftp://example.com",
            "--api-key",
            ADA,
        ],
        // a filter that is not JSON
        vec![
            "connections",
            "read",
            "crm",
            "--entity",
            "contacts",
            "--filter",
            "{city:",
            "--base-url",
            url,
            "--api-key",
            ADA,
        ],
        // no credential for an operation that needs one
        vec!["tables", "read", "t", "--base-url", url],
        vec![
            "connections",
            "read",
            "crm",
            "--entity",
            "contacts",
            "--base-url",
            url,
        ],
        // a page size the API's rules refuse, found before sending
        vec![
            "tables",
            "read",
            "t",
            "--limit",
            "0",
            "--base-url",
            url,
            "--api-key",
            ADA,
        ],
        vec![
            "tables",
            "read",
            "t",
            "--all",
            "--page-size",
            "5001",
            "--base-url",
            url,
            "--api-key",
            ADA,
        ],
        // unknown option, missing argument, bad format
        vec!["tables", "read", "t", "--nope", "--base-url", url],
        vec!["tables", "read", "--base-url", url],
        vec!["tables", "read", "t", "--format", "xml", "--base-url", url],
        vec![
            "--max-attempts",
            "0",
            "tables",
            "read",
            "t",
            "--base-url",
            url,
            "--api-key",
            ADA,
        ],
    ];
    for args in cases {
        let run = acd(&args);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}");
        assert!(!run.stderr.is_empty(), "{args:?}");
    }
    assert_eq!(server.count(), 0);
}

#[test]
fn the_index_needs_no_credential() {
    let server = FaultServer::start(vec![Reply::json(200, json!({"name": "x"}))]);
    let run = acd(&["index", "--base-url", &server.url, "-q"]);
    assert_eq!(server.count(), 1);
    assert_eq!(server.seen()[0].target(), "/api/v1");
    assert!(server.seen()[0].header("x-api-key").is_none());
    // This index breaks the spec (fields missing): exit 1, stdout empty.
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stdout.is_empty());
}

#[test]
fn completions_for_three_shells() {
    for shell in ["bash", "zsh", "fish"] {
        let run = acd(&["completions", shell]);
        assert_eq!(run.code, Some(0), "{shell}: {}", run.stderr);
        assert!(run.stdout.contains("acd"), "{shell}");
        assert!(run.stdout.contains("page-size"), "{shell}");
    }
    assert_eq!(acd(&["completions", "tcsh"]).code, Some(2));
}

#[test]
fn help_and_version_exit_0_on_stdout() {
    let help = acd(&["--help"]);
    assert_eq!(help.code, Some(0));
    assert!(help.stdout.contains("tables"));
    let version = acd(&["--version"]);
    assert_eq!(version.code, Some(0));
    assert!(version.stdout.starts_with("acd "));
}

#[test]
fn quiet_hides_wait_lines() {
    let server = FaultServer::start(vec![
        Reply::error(429, "Slow down.").header("Retry-After", "1"),
        Reply::page(json!([])),
    ]);
    let run = acd(&[
        "-q",
        "tables",
        "read",
        "t",
        "--base-url",
        &server.url,
        "--api-key",
        ADA,
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stderr, "");
    assert_eq!(server.count(), 2);
}
