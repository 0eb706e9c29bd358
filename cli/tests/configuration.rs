//! Configuration from flags and `ACD_*` variables: an empty variable counts
//! as unset, and every configuration error names the flag or variable the
//! bad value came from (and never shows a secret).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::json;
use support::{acd_env, FaultServer, Reply, ADA};

#[test]
fn empty_variables_count_as_unset() {
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))]);
    // An empty ACD_API_KEY next to a real token: only the token counts.
    let run = acd_env(
        &["tables", "read", "t", "--base-url", &server.url],
        &[("ACD_API_KEY", ""), ("ACD_TOKEN", "acd_oat_demo_ada")],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        server.seen()[0].header("authorization"),
        Some("Bearer acd_oat_demo_ada")
    );
    assert_eq!(server.seen()[0].header("x-api-key"), None);
    // An empty ACD_TOKEN next to a real key: only the key counts.
    let run = acd_env(
        &["tables", "read", "t", "--base-url", &server.url],
        &[("ACD_API_KEY", ADA), ("ACD_TOKEN", "")],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(server.seen()[1].header("x-api-key"), Some(ADA));
    // An empty key alone: no credential, so the table read is refused
    // before anything is sent, naming the way to give one.
    let run = acd_env(
        &["tables", "read", "t", "--base-url", &server.url],
        &[("ACD_API_KEY", "")],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(server.count(), 2, "nothing is sent");
    assert!(run.stderr.contains("needs a credential"), "{}", run.stderr);
}

#[test]
fn an_empty_base_url_variable_means_the_default() {
    // The default base URL is used: whatever answers there (or nothing),
    // the command is not refused as a bad configuration.
    let run = acd_env(&["index", "--max-attempts", "1"], &[("ACD_BASE_URL", "")]);
    assert_ne!(run.code, Some(2), "{}", run.stderr);
    assert!(!run.stderr.contains("is not a URL"), "{}", run.stderr);
}

#[test]
fn configuration_errors_name_the_flag_or_the_variable() {
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: &[Case] = &[
        (&["index"], &[("ACD_BASE_URL", "nope")], "ACD_BASE_URL"),
        (&["index", "--base-url", "nope"], &[], "--base-url"),
        (
            &["tables", "read", "t"],
            &[("ACD_API_KEY", "has space")],
            "ACD_API_KEY",
        ),
        (
            &["tables", "read", "t", "--api-key", "has space"],
            &[],
            "--api-key",
        ),
        (
            &["tables", "read", "t"],
            &[("ACD_TOKEN", "bad\"quote")],
            "ACD_TOKEN",
        ),
        (
            &["tables", "read", "t", "--api-key", ADA, "--token", "x"],
            &[],
            "--api-key and --token: give the client an API key or an OAuth token, not both",
        ),
        (
            &["tables", "read", "t"],
            &[("ACD_API_KEY", ADA), ("ACD_TOKEN", "x")],
            "ACD_API_KEY and ACD_TOKEN are both set",
        ),
        (&["index", "--max-attempts", "0"], &[], "--max-attempts"),
    ];
    for (args, env, named) in cases {
        let run = acd_env(args, env);
        assert_eq!(run.code, Some(2), "{args:?} {env:?}: {}", run.stderr);
        let line = run.stderr.trim_end();
        assert!(line.starts_with("error: "), "{line}");
        assert!(line.contains(named), "{args:?} {env:?}: {line}");
        assert!(!line.contains("has space"), "the secret is shown: {line}");
        assert!(!line.contains("bad\"quote"), "the secret is shown: {line}");
    }
}

#[test]
fn the_base_url_follows_the_core_rule() {
    // One trailing slash is removed (the core's rule, the same in every
    // language); the request goes to /api/v1 under the base URL, and the
    // User-Agent is the core's.
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))]);
    let slashed = format!("{}/", server.url);
    let run = acd_env(
        &["tables", "read", "t", "--base-url", &slashed],
        &[("ACD_API_KEY", ADA)],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(server.seen()[0].target(), "/api/v1/tables/t");
    assert_eq!(
        server.seen()[0].header("user-agent"),
        Some(acd_core::client::USER_AGENT)
    );
    // Anything but http(s) is refused before sending, naming the flag and
    // the URL without its user info.
    let run = acd_env(
        &["index", "--base-url", "ftp://ada:s3cret@files.example.com"],
        &[],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(
        run.stderr.trim_end(),
        "error: --base-url: \"ftp://files.example.com\" must start with http:// or https://"
    );
}

#[test]
fn a_flag_wins_over_the_variables_as_the_core_reads_them() {
    // The variables are the config's `env`, used only where the command
    // line gives nothing: a --token next to ACD_API_KEY is the credential.
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))]);
    let run = acd_env(
        &[
            "tables",
            "read",
            "t",
            "--base-url",
            &server.url,
            "--token",
            "acd_oat_demo_ada",
        ],
        &[("ACD_API_KEY", ADA), ("ACD_BASE_URL", "nope")],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        server.seen()[0].header("authorization"),
        Some("Bearer acd_oat_demo_ada")
    );
    assert_eq!(server.seen()[0].header("x-api-key"), None);
}
