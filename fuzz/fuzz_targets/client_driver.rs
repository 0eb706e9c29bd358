//! The client driver against a server whose every answer the fuzzer writes:
//! statuses, every rate-limit header dialect, `Retry-After`, `Date`,
//! `Deprecation`, `Sunset`, and the times the answers arrive.
//!
//! Input: the first line is the start time (Unix ms, any `u64`); then one
//! answer per paragraph (separated by an empty line): a first line
//! `STATUS DELAY_MS` and header lines. `DELAY_MS` (optional, default 20) is
//! how far the clock moves between the send and the answer, negative to set
//! it back; `T` instead of a status is a transport timeout, `C` a connect
//! failure. Bodies follow from the call an answer goes to (a record page, a
//! running run, an empty list). Once the answers run out every request is
//! answered 404, so every call ends.
//!
//! Invariants, asserted: no panic; no wait further ahead than
//! `max_retry_after_ms` plus the backoff cap from the latest time the client
//! was told (the driver's `Waiting` events and `poll_timeout`); the driver never spins
//! (a due call sends or moves its wake-up later); every call ends with
//! exactly one `Done` or `Failed`, nothing after it.
#![no_main]

use acd_core::client::{
    CallId, CallSpec, Client, ClientConfig, ClientCredential, Entropy, Event, HttpResponse, Outcome,
    PollOptions, RequestSpec, TablePagerOptions, TransportFailure,
};
use acd_core::UnixMillis;
use libfuzzer_sys::fuzz_target;
use std::collections::BTreeMap;

/// One scripted answer.
struct Answer {
    status: Option<u16>,
    failure: Option<TransportFailure>,
    /// Milliseconds the clock moves between the send and the answer; a
    /// negative value sets the clock back (a wall clock corrected).
    delay_ms: i64,
    headers: Vec<(String, String)>,
}

fn answers(bytes: &[u8]) -> (u64, Vec<Answer>) {
    let (first, rest) = match bytes.iter().position(|&b| b == b'\n') {
        Some(at) => (&bytes[..at], &bytes[at + 1..]),
        None => (bytes, &bytes[bytes.len()..]),
    };
    let start = acd_fuzz::decimal(first).unwrap_or(1_700_000_000_000);
    let mut out = Vec::new();
    for chunk in split_paragraphs(rest).into_iter().take(64) {
        let message = acd_fuzz::message(chunk);
        let first = String::from_utf8_lossy(message.first);
        let mut words = first.split_whitespace();
        let (status, failure) = match words.next().unwrap_or("200") {
            "T" => (None, Some(TransportFailure::Timeout)),
            "C" => (None, Some(TransportFailure::Connect)),
            other => (Some(other.parse::<u16>().unwrap_or(200)), None),
        };
        let delay_ms = words
            .next()
            .and_then(|word| word.parse::<i64>().ok())
            .unwrap_or(20);
        out.push(Answer {
            status,
            failure,
            delay_ms,
            headers: acd_fuzz::text_headers(&message.headers),
        });
    }
    (start, out)
}

/// Paragraphs: runs of lines separated by an empty line.
fn split_paragraphs(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while at + 1 < bytes.len() {
        if bytes[at] == b'\n' && bytes[at + 1] == b'\n' {
            out.push(&bytes[start..at]);
            start = at + 2;
            at = start;
        } else {
            at += 1;
        }
    }
    if start < bytes.len() {
        out.push(&bytes[start..]);
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Single,
    Pager,
    Poller,
}

fn body(kind: Kind) -> &'static str {
    match kind {
        Kind::Single => r#"{"data":[]}"#,
        Kind::Pager => r#"{"data":[{"id":1}]}"#,
        Kind::Poller => r#"{"data":{"id":"run-1","status":"running"}}"#,
    }
}

fuzz_target!(|bytes: &[u8]| {
    let (start, script) = answers(bytes);
    let config = ClientConfig {
        seed: Some(7),
        ..ClientConfig::default()
    }
    .with_credential(ClientCredential::api_key(
        "main",
        "acd_live_demo_ada",
        "ada",
    ));
    let policy = config.retry;
    let bound = policy
        .max_retry_after_ms
        .saturating_add(policy.backoff.cap_ms);
    let Ok(mut client) = Client::new(config, Entropy::from_seed(0)) else {
        return;
    };
    let mut kinds: BTreeMap<CallId, Kind> = BTreeMap::new();
    let pager = TablePagerOptions {
        page_size: 1,
        ..TablePagerOptions::default()
    };
    if let Ok(id) = client.start(RequestSpec::list_table_records("orders")) {
        kinds.insert(id, Kind::Single);
    }
    if let Ok(id) = client.start(CallSpec::table_pages("orders", pager)) {
        kinds.insert(id, Kind::Pager);
    }
    if let Ok(id) = client.start(CallSpec::run_poll("run-1", PollOptions::default())) {
        kinds.insert(id, Kind::Poller);
    }
    let mut finals: BTreeMap<CallId, u32> = BTreeMap::new();
    let mut script = script.into_iter();
    let mut now = UnixMillis::new(start);
    // The latest time the client was told: waits are bounded from it.
    let mut latest = now;
    let mut idle_turns = 0;
    for _ in 0..2_000 {
        let mut sent = false;
        while let Some(transmit) = client.poll_transmit(now) {
            sent = true;
            let kind = kinds.get(&transmit.id).copied().unwrap_or(Kind::Single);
            let outcome = match script.next() {
                Some(answer) => {
                    now = if answer.delay_ms >= 0 {
                        now.saturating_add(answer.delay_ms.unsigned_abs())
                    } else {
                        UnixMillis::new(
                            u64::from(now).saturating_sub(answer.delay_ms.unsigned_abs()),
                        )
                    };
                    latest = latest.max(now);
                    match (answer.failure, answer.status) {
                        (Some(failure), _) => Outcome::Transport(failure),
                        (None, status) => {
                            let mut response = HttpResponse::new(status.unwrap_or(200), body(kind));
                            response.headers = answer.headers;
                            Outcome::Response(response)
                        }
                    }
                }
                None => {
                    Outcome::Response(HttpResponse::new(404, r#"{"detail":"gone","status":404}"#))
                }
            };
            assert!(client.handle(transmit.id, outcome, now).is_ok());
            drain(&mut client, latest, bound, &mut finals);
        }
        drain(&mut client, latest, bound, &mut finals);
        if client.is_idle() {
            break;
        }
        let Some(next) = client.poll_timeout() else {
            panic!("live calls, none in flight, and no wake-up");
        };
        assert!(
            u64::from(next) <= u64::from(latest).saturating_add(bound),
            "poll_timeout {next} is more than {bound} ms after {latest}"
        );
        if next <= now && !sent {
            idle_turns += 1;
            assert!(
                idle_turns < 3,
                "the driver spins: due at {next}, now {now}, nothing sent"
            );
        } else {
            idle_turns = 0;
        }
        now = now.max(next);
        latest = latest.max(now);
    }
    assert!(client.is_idle(), "every call ends once the answers run out");
    for id in kinds.keys() {
        assert_eq!(finals.get(id), Some(&1), "{id} ends exactly once");
    }
});

/// Drains the events; `latest` is the latest time the client was told.
fn drain(client: &mut Client, latest: UnixMillis, bound: u64, finals: &mut BTreeMap<CallId, u32>) {
    while let Some((id, event)) = client.poll_event() {
        assert!(
            !finals.contains_key(&id),
            "{id} had an event after its final one: {event:?}"
        );
        match event {
            Event::Waiting { until, .. } => assert!(
                u64::from(until) <= u64::from(latest).saturating_add(bound),
                "{id} plans a wait until {until}, more than {bound} ms after {latest}"
            ),
            Event::Done | Event::Failed(_) => {
                *finals.entry(id).or_insert(0) += 1;
            }
            _ => {}
        }
    }
}
