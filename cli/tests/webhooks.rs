//! `acd listen` and `acd webhooks trigger` as users run them: trigger →
//! listen → a handler (the forwarded request is the original, verifying
//! with the core), a delivery that does not verify answered 400 and not
//! forwarded, rotation, the exit statuses of trigger, and a real
//! acd-sandbox (`--webhook` pointing at `acd listen`, on a manual clock)
//! whose run lifecycle deliveries `acd listen` verifies.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use acd_core::webhooks::{Secret, Verifier};
use acd_core::UnixMillis;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;
use support::{acd, acd_command, FaultServer, Reply, Sandbox, ADA};

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OLD: &str = "whsec_c2VjcmV0LWtleS1vZi10aGUtbmV3LWVuZHBvaW50";

/// A running `acd listen`, killed on drop; its stdout lines arrive on `lines`.
struct Listen {
    child: Child,
    url: String,
    lines: mpsc::Receiver<String>,
}

impl Listen {
    fn start(args: &[&str]) -> Self {
        let mut child = acd_command()
            .args(["listen", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut banner = String::new();
        stderr.read_line(&mut banner).unwrap();
        let url = banner
            .split_whitespace()
            .find(|word| word.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no URL in the banner {banner:?}"))
            .trim_end_matches(',')
            .to_owned();
        let (tx, lines) = mpsc::channel();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let _ = tx.send(line.unwrap());
            }
        });
        Self { child, url, lines }
    }

    fn next_line(&self) -> String {
        self.lines.recv_timeout(Duration::from_secs(30)).unwrap()
    }
}

impl Drop for Listen {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn verifier(secret: &str) -> Verifier {
    Verifier::new(vec![Secret::parse(secret).unwrap()]).unwrap()
}

fn now() -> UnixMillis {
    UnixMillis::new(support::unix_now() * 1000)
}

#[test]
fn trigger_to_listen_forwards_the_verified_request_unchanged() {
    let handler = FaultServer::start(vec![Reply::json(200, json!({}))]);
    let listen = Listen::start(&["--secret", SECRET, "--forward-to", &handler.url]);
    let data = r#"{"run": {"id": "run_42", "status": "failed", "agent_id": "agent-1"}}"#;
    let run = acd(&[
        "webhooks",
        "trigger",
        "run.failed",
        "--url",
        &listen.url,
        "--secret",
        SECRET,
        "--data",
        data,
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // trigger names the message and the status listen answered (the handler's).
    let id = run.stdout.split_whitespace().next().unwrap().to_owned();
    assert!(id.starts_with("msg_"), "{}", run.stdout);
    assert!(
        run.stdout.trim_end().ends_with("run.failed -> 200"),
        "{}",
        run.stdout
    );
    let line = listen.next_line();
    assert_eq!(
        line,
        format!("{id} run.failed run_42 verified, forwarded: 200")
    );
    let seen = handler.seen();
    assert_eq!(seen.len(), 1);
    let headers: Vec<(String, String)> = seen[0].headers.clone();
    let event = verifier(SECRET)
        .verify(&headers, seen[0].body.as_bytes(), now())
        .unwrap();
    assert_eq!(
        (event.id.as_str(), event.event_type.as_str()),
        (id.as_str(), "run.failed")
    );
    let payload: Value = serde_json::from_str(&seen[0].body).unwrap();
    assert_eq!(
        payload["data"],
        serde_json::from_str::<Value>(data).unwrap()
    );
    assert_eq!(seen[0].header("content-type"), Some("application/json"));
}

#[test]
fn a_delivery_that_does_not_verify_is_answered_400_and_not_forwarded() {
    let handler = FaultServer::start(vec![Reply::json(200, json!({}))]);
    let listen = Listen::start(&["--secret", SECRET, "--forward-to", &handler.url]);
    let run = acd(&[
        "webhooks",
        "trigger",
        "run.succeeded",
        "--url",
        &listen.url,
        "--secret",
        OLD,
    ]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert!(run.stdout.contains("-> 400"), "{}", run.stdout);
    let line = listen.next_line();
    assert!(line.starts_with("msg_"), "{line}");
    assert!(
        line.contains(" - - rejected no_matching_signature: "),
        "{line}"
    );
    // An unsigned POST: no headers at all.
    let unsigned = ureq::post(&listen.url)
        .config()
        .http_status_as_error(false)
        .build()
        .send("{}")
        .unwrap();
    assert_eq!(unsigned.status().as_u16(), 400);
    assert!(listen
        .next_line()
        .starts_with("- - - rejected missing_header: "));
    assert_eq!(handler.count(), 0);
}

#[test]
fn listen_verifies_either_secret_of_a_rotation_without_forwarding() {
    let listen = Listen::start(&["--secret", SECRET, "--secret", OLD]);
    for secret in [OLD, SECRET] {
        let run = acd(&[
            "webhooks",
            "trigger",
            "run.queued",
            "--url",
            &listen.url,
            "--secret",
            secret,
        ]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert!(run.stdout.contains("run.queued -> 204"), "{}", run.stdout);
        let line = listen.next_line();
        assert!(line.ends_with(" run.queued run_test verified"), "{line}");
    }
}

#[test]
fn trigger_exit_statuses() {
    let failing = FaultServer::start(vec![Reply::error(500, "down")]);
    let run = acd(&[
        "webhooks",
        "trigger",
        "run.succeeded",
        "--url",
        &failing.url,
        "--secret",
        SECRET,
    ]);
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("answered 500"), "{}", run.stderr);
    // The payload is {"type", "timestamp", "data"} with the default run.
    let body: Value = serde_json::from_str(&failing.bodies()[0]).unwrap();
    assert_eq!(body["type"], "run.succeeded");
    assert_eq!(
        body["data"],
        json!({"run": {"id": "run_test", "status": "succeeded"}})
    );
    assert!(body["timestamp"].as_str().unwrap().ends_with('Z'));
    for (args, sentence) in [
        (vec!["--secret", "not-a-secret"], "whsec_"),
        (vec!["--secret", SECRET, "--data", "[1]"], "JSON object"),
        (vec!["--secret", SECRET, "--data", "{"], "not JSON"),
    ] {
        let mut all = vec!["webhooks", "trigger", "run.failed", "--url", &failing.url];
        all.extend_from_slice(&args);
        let run = acd(&all);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(sentence), "{}", run.stderr);
    }
    assert_eq!(failing.count(), 1, "nothing is sent on a usage error");
    let run = acd(&["listen", "--port", "0", "--secret", "whsec_!!"]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("bad") || run.stderr.contains("base64"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_sandbox_delivers_run_events_that_listen_verifies_and_forwards() {
    let handler = FaultServer::start(vec![Reply::json(200, json!({}))]);
    let listen = Listen::start(&["--secret", SECRET, "--forward-to", &handler.url]);
    let sandbox = Sandbox::start_with(
        &json!({}),
        &[
            "--clock",
            "manual",
            "--webhook",
            &listen.url,
            "--webhook-secret",
            SECRET,
        ],
    );
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .new_agent();
    let created = agent
        .post(format!("{}/api/v1/agents/agent-1/runs", sandbox.url))
        .header("X-API-Key", ADA)
        .send_empty()
        .unwrap();
    assert_eq!(created.status().as_u16(), 200);
    // The run ends seconds later, in the sandbox's (manual) time.
    let moved = agent
        .post(format!("{}/_sandbox/clock", sandbox.url))
        .header("Content-Type", "application/json")
        .send(r#"{"advance_ms": 60000}"#)
        .unwrap();
    assert_eq!(moved.status().as_u16(), 200);
    let mut lines = Vec::new();
    while !lines
        .iter()
        .any(|line: &String| line.contains("run.succeeded"))
    {
        lines.push(listen.next_line());
    }
    assert!(
        lines[0].contains(" run.queued run_1 verified, forwarded: 200"),
        "{lines:?}"
    );
    assert!(
        lines.iter().all(
            |line| line.starts_with("msg_") && line.contains(" run_1 verified, forwarded: 200")
        ),
        "{lines:?}"
    );
    assert_eq!(handler.count(), lines.len());
}
