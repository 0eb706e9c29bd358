//! Webhook deliveries of the real binary on a manual clock: an endpoint
//! answering 500 twice then 200 gets three attempts of one event with the
//! same webhook-id on the documented schedule (0, 5 s, 5 min 5 s after the
//! event), each verifying with the core's `verify`; a redelivery on
//! request; the deliveries listing; the OpenAPI `webhooks` section.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use acd_core::webhooks::{Secret, Verifier};
use acd_core::UnixMillis;
use common::{Sandbox, ADA};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/// One request the endpoint received.
struct Received {
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

/// A one-thread HTTP/1.1 endpoint answering `statuses` in turn (then 200).
fn endpoint(statuses: Vec<u16>) -> (String, mpsc::Receiver<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/hooks", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut statuses = statuses.into_iter();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut headers = Vec::new();
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            loop {
                line.clear();
                reader.read_line(&mut line).unwrap();
                let trimmed = line.trim_end();
                if trimmed.is_empty() {
                    break;
                }
                let (name, value) = trimmed.split_once(':').unwrap();
                headers.push((name.trim().to_owned(), value.trim().to_owned()));
            }
            let length: usize = headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
                .map_or(0, |(_, v)| v.parse().unwrap());
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let status = statuses.next().unwrap_or(200);
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            let _ = tx.send(Received { headers, body });
        }
    });
    (url, rx)
}

fn advance(sandbox: &Sandbox, ms: u64) -> u64 {
    let moved = sandbox.post_json("/_sandbox/clock", &format!(r#"{{"advance_ms": {ms}}}"#));
    assert_eq!(moved.status, 200, "{}", moved.text());
    moved.json()["now_ms"].as_u64().unwrap()
}

fn config(url: &str, types: &str) -> String {
    format!(
        r#"{{"webhooks": {{"endpoints": [{{"url": "{url}", "secret": "{SECRET}", "event_types": {types}}}]}}}}"#
    )
}

#[test]
fn retries_on_the_schedule_with_one_id_then_redelivers() {
    // Only run.succeeded: the event under test is the run's last one.
    let (url, received) = endpoint(vec![500, 500]);
    let sandbox = Sandbox::start_with(
        Some(&config(&url, r#"["run.succeeded"]"#)),
        &["--clock", "manual"],
    );
    let start = sandbox.get("/_sandbox/clock", &[]).json()["now_ms"]
        .as_u64()
        .unwrap();
    let created = sandbox.request(
        "POST",
        "/api/v1/agents/agent-1/runs",
        &[("X-API-Key", ADA)],
        "",
    );
    assert_eq!(created.status, 200, "{}", created.text());
    // The run succeeds 3 s after its creation; then a day goes by.
    advance(&sandbox, 86_400_000);
    let verifier = Verifier::new(vec![Secret::parse(SECRET).unwrap()]).unwrap();
    let event_at = start + 3_000;
    let mut ids = Vec::new();
    for offset in [0u64, 5_000, 305_000] {
        let got = received
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap();
        let signed_at = UnixMillis::new(event_at + offset);
        let event = verifier.verify(&got.headers, &got.body, signed_at).unwrap();
        assert_eq!(event.webhook_timestamp, (event_at + offset) / 1000);
        assert_eq!(event.event_type, "run.succeeded");
        let run = event.run_event().unwrap();
        assert_eq!(run.run.id, "run_1");
        assert_eq!(run.run.status, "succeeded");
        ids.push(event.id);
    }
    assert!(ids.iter().all(|id| *id == ids[0]), "{ids:?}");
    let listing = sandbox.get("/_sandbox/webhooks/deliveries", &[]).json();
    let attempts = listing["data"].as_array().unwrap();
    assert_eq!(attempts.len(), 3, "{listing}");
    let statuses: Vec<_> = attempts
        .iter()
        .map(|a| a["status"].as_u64().unwrap())
        .collect();
    assert_eq!(statuses, [500, 500, 200]);
    let times: Vec<_> = attempts
        .iter()
        .map(|a| a["time_ms"].as_u64().unwrap() - event_at)
        .collect();
    assert_eq!(times, [0, 5_000, 305_000]);
    assert_eq!(attempts[0]["next_attempt_ms"], event_at + 5_000);
    assert_eq!(attempts[2]["next_attempt_ms"], serde_json::Value::Null);
    assert_eq!(attempts[2]["state"], "succeeded");
    assert!(attempts.iter().all(|a| a["event_id"] == ids[0].as_str()));

    // A redelivery on request: one more attempt, same id, signed now.
    let delivery = attempts[2]["delivery_id"].as_str().unwrap();
    let redelivered = sandbox.request(
        "POST",
        &format!("/_sandbox/webhooks/deliveries/{delivery}/redeliver"),
        &[("Content-Type", "application/json")],
        "",
    );
    assert_eq!(redelivered.status, 202, "{}", redelivered.text());
    let now = sandbox.get("/_sandbox/clock", &[]).json()["now_ms"]
        .as_u64()
        .unwrap();
    let got = received
        .recv_timeout(std::time::Duration::from_secs(30))
        .unwrap();
    let event = verifier
        .verify(&got.headers, &got.body, UnixMillis::new(now))
        .unwrap();
    assert_eq!(event.id, ids[0]);
    let listing = sandbox.get("/_sandbox/webhooks/deliveries", &[]).json();
    assert_eq!(listing["data"].as_array().unwrap().len(), 4, "{listing}");
    assert_eq!(listing["data"][3]["attempt"], 4);

    let unknown = sandbox.request(
        "POST",
        "/_sandbox/webhooks/deliveries/dlv_99/redeliver",
        &[("Content-Type", "application/json")],
        "",
    );
    assert_eq!(unknown.status, 404, "{}", unknown.text());
}

#[test]
fn every_lifecycle_event_is_sent_in_order() {
    let (url, received) = endpoint(vec![]);
    let sandbox = Sandbox::start_with(Some(&config(&url, "[]")), &["--clock", "manual"]);
    sandbox.request(
        "POST",
        "/api/v1/agents/failing-agent/runs",
        &[("X-API-Key", ADA)],
        "",
    );
    advance(&sandbox, 10_000);
    let verifier = Verifier::from_strs(&[SECRET]).unwrap();
    let mut types = Vec::new();
    for _ in 0..3 {
        let got = received
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap();
        let event = verifier
            .verify(&got.headers, &got.body, UnixMillis::new(u64::MAX / 2))
            .map(|e| e.event_type);
        // The signatures are of the sandbox's clock; check with the header's own time.
        let ts: u64 = got
            .headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("webhook-timestamp"))
            .unwrap()
            .1
            .parse()
            .unwrap();
        assert!(event.is_err());
        let event = verifier
            .verify(&got.headers, &got.body, UnixMillis::new(ts * 1000))
            .unwrap();
        types.push(event.event_type);
    }
    assert_eq!(types, ["run.queued", "run.running", "run.failed"]);
}

#[test]
fn the_openapi_document_has_a_webhooks_section() {
    let (url, _received) = endpoint(vec![]);
    let sandbox = Sandbox::start_with(Some(&config(&url, "[]")), &[]);
    let document = sandbox.get("/openapi.json", &[]).json();
    for kind in [
        "run.queued",
        "run.running",
        "run.succeeded",
        "run.failed",
        "run.cancelled",
    ] {
        assert_eq!(
            document["webhooks"][kind]["post"]["requestBody"]["content"]["application/json"]
                ["schema"]["$ref"],
            "#/components/schemas/WebhookRunEvent"
        );
    }
    assert_eq!(
        document["components"]["schemas"]["WebhookRunEvent"]["required"],
        serde_json::json!(["type", "timestamp", "data"])
    );
}

#[test]
fn a_webhook_flag_prints_its_generated_secret() {
    let sandbox = Sandbox::start_with(None, &["--webhook", "http://127.0.0.1:9/hooks"]);
    let banner = sandbox.banner();
    let secret = banner
        .iter()
        .find_map(|line| line.trim().strip_prefix("signing secret: "))
        .unwrap_or_else(|| panic!("{banner:?}"));
    assert!(Secret::parse(secret).is_ok(), "{secret}");
}
