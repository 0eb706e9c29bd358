//! HTTPS_PROXY, HTTP_PROXY and NO_PROXY, against a recording CONNECT proxy
//! on loopback.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::json;
use support::{acd_env, FaultServer, RecordingProxy, Reply, ADA};

fn read(base_url: &str, env: &[(&str, &str)]) -> support::Run {
    acd_env(
        &[
            "tables",
            "read",
            "t",
            "--base-url",
            base_url,
            "--api-key",
            ADA,
            "--max-attempts",
            "1",
        ],
        env,
    )
}

#[test]
fn http_proxy_carries_http_requests_through_a_tunnel() {
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))]);
    let proxy = RecordingProxy::start();
    let run = read(&server.url, &[("HTTP_PROXY", &proxy.url)]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "{\"id\":1}\n");
    let authority = server.url.trim_start_matches("http://");
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].line, format!("CONNECT {authority} HTTP/1.1"));
    // The credential travels inside the tunnel, not to the proxy.
    assert_eq!(seen[0].header("x-api-key"), None);
    assert_eq!(server.seen()[0].header("x-api-key"), Some(ADA));
}

#[test]
fn no_proxy_and_the_other_scheme_s_variable_go_direct() {
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))]);
    let proxy = RecordingProxy::start();
    for env in [
        vec![
            ("HTTP_PROXY", proxy.url.as_str()),
            ("NO_PROXY", "example.com,127.0.0.1"),
        ],
        vec![("http_proxy", proxy.url.as_str()), ("no_proxy", "*")],
        vec![("HTTPS_PROXY", proxy.url.as_str())],
        vec![("HTTP_PROXY", ""), ("ALL_PROXY", "")],
    ] {
        let run = read(&server.url, &env);
        assert_eq!(run.code, Some(0), "{env:?}: {}", run.stderr);
    }
    assert_eq!(proxy.seen().len(), 0);
    assert_eq!(server.count(), 4);
}

#[test]
fn https_proxy_is_used_for_https_base_urls() {
    let proxy = RecordingProxy::start();
    // The tunnel leads to a plain-HTTP listener, so TLS fails after it:
    // what matters is that the proxy was asked for the API's host.
    let server = FaultServer::start(vec![Reply::page(json!([]))]);
    let authority = server.url.trim_start_matches("http://").to_owned();
    let base = format!("https://{authority}");
    let run = read(
        &base,
        &[
            ("HTTPS_PROXY", &proxy.url),
            ("HTTP_PROXY", "http://127.0.0.1:9"),
        ],
    );
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1, "{}", run.stderr);
    assert_eq!(seen[0].line, format!("CONNECT {authority} HTTP/1.1"));
}

#[test]
fn a_bad_proxy_variable_is_named_and_nothing_is_sent() {
    let server = FaultServer::start(vec![Reply::page(json!([]))]);
    for (name, value) in [
        ("HTTP_PROXY", "socks5://127.0.0.1:1080"),
        ("ALL_PROXY", "http://"),
    ] {
        let run = read(&server.url, &[(name, value)]);
        assert_eq!(run.code, Some(2), "{name}: {}", run.stderr);
        assert!(run.stderr.contains(name), "{}", run.stderr);
    }
    assert_eq!(server.count(), 0);
}
