//! What a `gh` user expects: one JSON document indented on a terminal and
//! one line when piped, `runs create` printing the bare run, `-q EXPR`
//! answered with a hint to use `--jq`, a closed stdout (`acd ... | head`)
//! ending the command at once even in a wait, and each subcommand's help
//! listing its own options before the global ones.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::json;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{acd, as_ada, FaultServer, Reply, ACD, ADA};

fn created(id: &str) -> Reply {
    Reply::json(201, json!({"data": {"id": id, "status": "queued"}}))
}

#[test]
fn runs_create_prints_the_bare_run_not_its_envelope() {
    let server = FaultServer::start(vec![created("run_1")]);
    let run = as_ada(&server.url, &["runs", "create", "agent-1"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "{\"id\":\"run_1\",\"status\":\"queued\"}\n");
}

/// `acd args... --base-url URL --api-key ADA` on a pseudo-terminal (util-linux
/// `script`): what the terminal showed, `\r\n` line ends made `\n`.
fn on_a_terminal(url: &str, args: &[&str]) -> String {
    let quoted: Vec<String> = [ACD]
        .iter()
        .chain(args)
        .chain(&["--base-url", url, "--api-key", ADA])
        .map(|arg| format!("'{arg}'"))
        .collect();
    let output = Command::new("script")
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .env_remove("ACD_BASE_URL")
        .env_remove("ACD_API_KEY")
        .stdin(Stdio::null())
        .output()
        .expect("util-linux `script` runs a command on a pseudo-terminal");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .replace("\r\n", "\n")
}

#[test]
fn a_run_is_indented_on_a_terminal_and_one_line_when_piped() {
    let server = FaultServer::start(vec![created("run_1"), created("run_2")]);
    let shown = on_a_terminal(&server.url, &["runs", "create", "agent-1"]);
    assert!(
        shown.contains("{\n  \"id\": \"run_1\",\n  \"status\": \"queued\"\n}\n"),
        "{shown:?}"
    );
    let piped = as_ada(&server.url, &["runs", "create", "agent-1"]);
    assert_eq!(piped.stdout, "{\"id\":\"run_2\",\"status\":\"queued\"}\n");
}

#[test]
fn api_bodies_are_indented_on_a_terminal_and_kept_as_received_when_piped() {
    let body = json!({"data": [{"id": 1}]});
    let server = FaultServer::start(vec![Reply::json(200, body.clone()), Reply::json(200, body)]);
    let shown = on_a_terminal(&server.url, &["api", "GET", "tables/t"]);
    assert!(
        shown.contains("{\n  \"data\": [\n    {\n      \"id\": 1\n    }\n  ]\n}\n"),
        "{shown:?}"
    );
    let piped = as_ada(&server.url, &["api", "GET", "tables/t"]);
    assert_eq!(piped.stdout, "{\"data\":[{\"id\":1}]}\n");
}

#[test]
fn q_with_a_jq_expression_is_answered_with_a_hint_to_use_jq() {
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}]))]);
    for args in [
        &["api", "GET", "tables/t", "-q", ".id"][..],
        &["api", "GET", "tables/t", "-q.data"][..],
        &["runs", "wait", "run_1", "-q", ".status"][..],
    ] {
        let run = as_ada(&server.url, args);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("unknown option -q: did you mean --jq?"),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert_eq!(server.count(), 0, "nothing is sent");
    // -q alone is still --quiet.
    let quiet = as_ada(&server.url, &["-q", "tables", "read", "t"]);
    assert_eq!(quiet.code, Some(0), "{}", quiet.stderr);
    assert_eq!(quiet.stdout, "{\"id\":1}\n");
}

#[test]
fn a_closed_stdout_ends_the_command_in_the_middle_of_a_quota_wait() {
    // Page 1 spends the window for 30 s; the reader takes two records and
    // goes away (`acd ... | head -2`): the command ends then, not in 30 s.
    let server = FaultServer::start(vec![Reply::page(json!([{"id": 1}, {"id": 2}]))
        .header("RateLimit-Limit", "1")
        .header("RateLimit-Remaining", "0")
        .header("RateLimit-Reset", "30")]);
    let mut child = support::spawn(&[
        "tables",
        "read",
        "t",
        "--all",
        "--page-size",
        "2",
        "--deadline",
        "120",
        "--base-url",
        &server.url,
        "--api-key",
        ADA,
    ]);
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "{\"id\":1}");
    assert_eq!(lines.next().unwrap().unwrap(), "{\"id\":2}");
    let closed_at = Instant::now();
    drop(lines);
    let status = child.wait().unwrap();
    assert!(
        closed_at.elapsed() < Duration::from_secs(15),
        "it slept the 30 s wait with nobody reading"
    );
    assert_eq!(status.code(), Some(0));
    assert_eq!(server.count(), 1, "the second page is never sent");
}

#[test]
fn a_closed_stdout_ends_a_run_wait_between_polls() {
    let running = Reply::json(200, json!({"data": {"id": "run_1", "status": "running"}}));
    let server = FaultServer::start(vec![running]);
    let mut child = support::spawn(&[
        "runs",
        "wait",
        "run_1",
        "--interval",
        "30",
        "--base-url",
        &server.url,
        "--api-key",
        ADA,
    ]);
    server.wait_for(1);
    let closed_at = Instant::now();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    assert!(
        closed_at.elapsed() < Duration::from_secs(15),
        "it kept polling with nobody reading"
    );
    assert_eq!(status.code(), Some(0));
    assert_eq!(server.count(), 1);
}

#[test]
fn a_subcommands_help_lists_its_own_options_before_the_global_ones() {
    for (args, own) in [
        (&["runs", "create", "--help"][..], "--data"),
        (&["tables", "read", "--help"][..], "--order-by"),
        (&["api", "--help"][..], "--jq"),
    ] {
        let help = acd(args);
        assert_eq!(help.code, Some(0), "{}", help.stderr);
        let text = &help.stdout;
        let own_at = text.find(own).unwrap();
        let heading = text
            .find("\nGlobal options:\n")
            .unwrap_or_else(|| panic!("{args:?}: no Global options heading:\n{text}"));
        let global_at = text.find("--base-url").unwrap();
        assert!(own_at < heading && heading < global_at, "{args:?}:\n{text}");
        assert!(
            text.find("\nOptions:\n").unwrap() < own_at,
            "{args:?}:\n{text}"
        );
    }
}
