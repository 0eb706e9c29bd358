//! The session contract of `docs/driver-protocol.md` ("Session"), driven
//! through the byte protocol against the core's `TestServer` in virtual
//! time by a host that does exactly what the contract asks: every transmit
//! sent as soon as it is handed out (concurrently), each outcome delivered
//! when it arrives, and a wake-up at the batch's `timeout` or the next
//! outcome, whichever is first. Expected instants are worked out by hand
//! from the 5-per-60 s table-read limit and the server's aligned windows.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{CallId, Client, Entropy, Event, Outcome};
use acd_core::testing::{Exchange, TestServer};
use acd_core::UnixMillis;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// 2023-11-14T22:13:20Z: the server's aligned 60 s window holding it ends
/// 40 s later, at `T0 + 40 s`.
const T0: u64 = 1_700_000_000_000;
const BASE: &str = "http://127.0.0.1:8080";

/// What one session gave: each call's end (its instant and event), the
/// statuses the server answered, and every "no progress" poll seen.
#[derive(Debug, Default)]
struct Run {
    ends: BTreeMap<CallId, (u64, Event)>,
    sends: Vec<(u64, String)>,
    statuses: Vec<u16>,
    stalls: Vec<u64>,
    waits: Vec<String>,
}

fn client() -> Client {
    let config = json!({"api_key": "acd_live_demo_ada", "base_url": BASE, "seed": 7});
    Client::from_config_json(config.to_string().as_bytes(), Entropy::from_seed(1)).unwrap()
}

fn server(latency_ms: u64) -> TestServer {
    let config = json!({"tables": {"orders": 3}, "latency_ms": latency_ms, "date_header": false});
    TestServer::from_json(config.to_string().as_bytes()).unwrap()
}

/// Starts `specs` at `start` and runs them to their ends as the contract's
/// host does.
fn session(client: &mut Client, server: &mut TestServer, specs: &[Value], start: u64) -> Run {
    let mut run = Run::default();
    let mut open: Vec<CallId> = specs
        .iter()
        .map(|spec| client.start_json(spec.to_string().as_bytes()).unwrap())
        .collect();
    // Outcomes on their way, by arrival: (instant, order) -> (call, exchange).
    let mut arriving: BTreeMap<(u64, u64), (CallId, Exchange)> = BTreeMap::new();
    let mut order = 0;
    let mut now = start;
    for _ in 0..10_000 {
        let batch = client.poll(UnixMillis::new(now));
        for transmit in &batch.transmits {
            let request = &transmit.request;
            let headers: String = request
                .headers
                .iter()
                .map(|(name, value)| format!("{name}: {value}\n"))
                .collect();
            let exchange = server
                .exchange(
                    &request.method,
                    &request.url,
                    &headers,
                    None,
                    UnixMillis::new(now),
                )
                .unwrap();
            run.sends.push((now - start, request.url.clone()));
            order += 1;
            arriving.insert(
                (exchange.deliver_at().as_millis(), order),
                (transmit.id, exchange),
            );
        }
        for (call, event) in batch.events {
            match &event {
                Event::Waiting { message, .. } | Event::Retrying { message, .. } => {
                    run.waits.push(message.clone())
                }
                Event::Done | Event::Failed(_) => {
                    open.retain(|id| *id != call);
                    run.ends.insert(call, (now - start, event));
                }
                _ => {}
            }
        }
        if open.is_empty() {
            break;
        }
        let next_outcome = arriving.keys().next().map(|(at, _)| *at);
        let wake = match (batch.timeout.map(UnixMillis::as_millis), next_outcome) {
            (Some(timeout), Some(outcome)) => timeout.min(outcome),
            (Some(timeout), None) => timeout,
            (None, Some(outcome)) => outcome,
            (None, None) => {
                // Calls are open, none is in flight, nothing to wait for.
                run.stalls.push(now - start);
                break;
            }
        };
        now = now.max(wake);
        while let Some(entry) = arriving.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let (call, exchange) = entry.remove();
            match exchange {
                Exchange::Response {
                    status,
                    headers,
                    body,
                    ..
                } => {
                    run.statuses.push(status);
                    let block: String = headers
                        .iter()
                        .map(|(name, value)| format!("{name}: {value}\n"))
                        .collect();
                    client
                        .respond(call, status, &block, body, UnixMillis::new(now))
                        .unwrap();
                }
                Exchange::Failure { failure, .. } => {
                    client
                        .handle(call, Outcome::Transport(failure), UnixMillis::new(now))
                        .unwrap();
                }
            }
        }
    }
    run
}

fn read() -> Value {
    json!({"type": "request", "operation": "listTableRecords", "path": {"id": "orders"}})
}

#[test]
fn seven_concurrent_reads_near_a_window_end_finish_early_in_the_next_window() {
    let (mut client, mut server) = (client(), server(100));
    // 0.5 s before the server's window ends: 5 go now, 2 once it has ended.
    let start = T0 + 39_500;
    let run = session(&mut client, &mut server, &vec![read(); 7], start);
    assert_eq!(
        run.stalls,
        Vec::<u64>::new(),
        "no poll may find no way forward"
    );
    assert_eq!(run.statuses, vec![200; 7], "no 429: {:?}", run.sends);
    assert_eq!(run.ends.len(), 7);
    for (_, event) in run.ends.values() {
        assert!(matches!(event, Event::Done), "{event:?}");
    }
    let firsts: Vec<u64> = run.sends.iter().map(|(at, _)| *at).collect();
    assert_eq!(&firsts[..5], &[0; 5], "five go at once, concurrently");
    // The other two go once the server's window has ended (0.5 s, as its
    // reset header says, rounded up to 1 s) plus at most 1 s of jitter:
    // in the next window, not a window later.
    for at in &firsts[5..] {
        assert!((500..=2_000).contains(at), "sent {at} ms after the start");
    }
    let last_end = run.ends.values().map(|(at, _)| *at).max().unwrap();
    assert!(
        last_end <= 2_100,
        "the last read ended {last_end} ms after the start"
    );
}

#[test]
fn seven_concurrent_reads_mid_window_take_one_extra_window_not_two() {
    let (mut client, mut server) = (client(), server(100));
    // 20 s into the server's window (it ends 40 s after T0).
    let start = T0 + 20_000;
    let run = session(&mut client, &mut server, &vec![read(); 7], start);
    assert_eq!(run.stalls, Vec::<u64>::new());
    assert_eq!(run.statuses, vec![200; 7]);
    let last_end = run.ends.values().map(|(at, _)| *at).max().unwrap();
    // The window ends 20 s after the start; 2 reads go then (+ jitter ≤ 1 s
    // + the answer's 100 ms).
    assert!(
        (20_000..=21_100).contains(&last_end),
        "ended at {last_end} ms"
    );
}

fn answer(client: &mut Client, call: CallId, status: u16, headers: &str, body: &str, at: u64) {
    client
        .respond(
            call,
            status,
            headers,
            body.as_bytes().to_vec(),
            UnixMillis::new(at),
        )
        .unwrap();
}

/// The `failed` event of `call` in a batch's JSON, if any.
fn failed(batch: &Value, call: CallId) -> Option<Value> {
    batch["events"]
        .as_array()?
        .iter()
        .find(|event| event["call"] == json!(call.0) && event["type"] == "failed")
        .map(|event| event["error"].clone())
}

fn poll(client: &mut Client, at: u64) -> Value {
    serde_json::from_str(&client.poll_json(UnixMillis::new(at))).unwrap()
}

#[test]
fn a_call_timeout_bounds_a_throttle_wait_before_the_first_send() {
    let mut client = client();
    // Five reads use up the table window (5 per 60 s).
    for _ in 0..5 {
        let id = client.start_json(read().to_string().as_bytes()).unwrap();
        let batch = client.poll(UnixMillis::new(T0));
        assert_eq!(batch.transmits.len(), 1);
        answer(&mut client, id, 200, "", r#"{"data":[]}"#, T0 + 10);
    }
    let mut spec = read();
    spec["options"] = json!({"timeout_ms": 1000});
    let id = client.start_json(spec.to_string().as_bytes()).unwrap();
    let batch = poll(&mut client, T0 + 20);
    assert_eq!(batch["transmits"], json!([]), "nothing more is sent");
    let error = failed(&batch, id).expect("the call fails at once, not after the wait");
    assert_eq!(error["type"], "call_timed_out");
    assert_eq!(error["category"], "timeout");
}

#[test]
fn a_long_retry_after_holds_only_requests_of_its_limits_and_a_later_one_is_refused_unsent() {
    let mut client = client();
    let connection = json!({"type": "request", "operation": "listConnectionRecords",
                            "path": {"connection_id": "crm"}, "query": [["entity_id", "contacts"]]});
    let first = client
        .start_json(connection.to_string().as_bytes())
        .unwrap();
    assert_eq!(
        poll(&mut client, T0)["transmits"].as_array().unwrap().len(),
        1
    );
    answer(
        &mut client,
        first,
        429,
        "Retry-After: 120\n",
        r#"{"detail":"slow down","status":429}"#,
        T0 + 10,
    );
    let batch = poll(&mut client, T0 + 10);
    let error = failed(&batch, first).expect("120 s is past the 60 s bound: it gives up");
    assert_eq!(error["category"], "rate_limit");
    assert_eq!(error["status"], 429, "this one was answered 429");
    assert_eq!(error["retry_at_ms"], T0 + 10 + 120_000);

    // A table read is under other limits: it goes at once.
    let table = client.start_json(read().to_string().as_bytes()).unwrap();
    let batch = poll(&mut client, T0 + 20);
    assert_eq!(batch["transmits"][0]["call"], json!(table.0));
    assert_eq!(failed(&batch, table), None);

    // Another connection read would wait past the bound: refused unsent.
    let again = client
        .start_json(connection.to_string().as_bytes())
        .unwrap();
    let batch = poll(&mut client, T0 + 30);
    assert!(batch["transmits"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["call"] != json!(again.0)));
    let error = failed(&batch, again).expect("refused before sending");
    assert_eq!(error["type"], "rate_limited_too_long");
    assert_eq!(error["category"], "rate_limit");
    assert_eq!(
        error["status"],
        json!(null),
        "never sent: not an HTTP-status error"
    );
    assert_eq!(error["sent"], false);
    assert_eq!(error["retry_at_ms"], T0 + 10 + 120_000);
    assert_eq!(error["limit"], "credential");
    assert!(error["message"].as_str().unwrap().starts_with("not sent: "));
}

#[test]
fn a_real_429_with_retry_after_2_gives_its_retry_at_when_attempts_run_out() {
    let mut client = client();
    let mut spec = read();
    spec["options"] = json!({"max_attempts": 1});
    let id = client.start_json(spec.to_string().as_bytes()).unwrap();
    poll(&mut client, T0);
    answer(
        &mut client,
        id,
        429,
        "Retry-After: 2\n",
        r#"{"detail":"slow down","status":429}"#,
        T0 + 10,
    );
    let error = failed(&poll(&mut client, T0 + 10), id).unwrap();
    assert_eq!(error["category"], "rate_limit");
    assert_eq!(error["status"], 429);
    assert_eq!(error["retry_at_ms"], T0 + 10 + 2_000);
}

#[test]
fn a_retry_after_too_large_for_64_bits_gives_up_like_the_largest_value() {
    for value in ["18446744073709551615", "99999999999999999999999999"] {
        let mut client = client();
        let id = client.start_json(read().to_string().as_bytes()).unwrap();
        poll(&mut client, T0);
        answer(
            &mut client,
            id,
            429,
            &format!("Retry-After: {value}\n"),
            r#"{"detail":"slow down","status":429}"#,
            T0 + 10,
        );
        let batch = poll(&mut client, T0 + 10);
        let error = failed(&batch, id).unwrap_or_else(|| panic!("{value}: gives up at once"));
        assert_eq!(error["reason"]["type"], "retry_after_too_long", "{value}");
        assert_eq!(error["retry_at_ms"], json!(u64::MAX), "{value}");
    }
}

#[test]
fn a_200_with_remaining_0_and_a_far_reset_waits_the_bound_then_asks_again() {
    for reset in ["61", "3600", "999999999"] {
        let mut client = client();
        let id = client.start_json(read().to_string().as_bytes()).unwrap();
        poll(&mut client, T0);
        let headers =
            format!("RateLimit-Limit: 5\nRateLimit-Remaining: 0\nRateLimit-Reset: {reset}\n");
        answer(&mut client, id, 200, &headers, r#"{"data":[]}"#, T0 + 10);
        let next = client.start_json(read().to_string().as_bytes()).unwrap();
        let batch = poll(&mut client, T0 + 20);
        assert_eq!(failed(&batch, next), None, "reset {reset}: not locked out");
        let wait = batch["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|event| event["type"] == "waiting")
            .cloned()
            .unwrap_or_else(|| panic!("reset {reset}: a wait, got {batch}"));
        let until = wait["until"].as_u64().unwrap();
        // The bound (60 s from the answer) plus at most 1 s of jitter.
        assert!(
            (T0 + 10 + 60_000..=T0 + 10 + 61_000).contains(&until),
            "{until}"
        );
        assert_eq!(
            wait["level"], "warning",
            "a wait of 10 s or more is visible"
        );
        let batch = poll(&mut client, until);
        assert_eq!(
            batch["transmits"][0]["call"],
            json!(next.0),
            "then asks again"
        );
    }
}

#[test]
fn a_retry_is_said_once_and_short_waits_are_info() {
    let mut client = client();
    let id = client.start_json(read().to_string().as_bytes()).unwrap();
    poll(&mut client, T0);
    answer(
        &mut client,
        id,
        503,
        "",
        r#"{"detail":"try later","status":503}"#,
        T0 + 10,
    );
    let batch = poll(&mut client, T0 + 10);
    let levels: Vec<(&str, &str)> = batch["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| {
            (
                event["type"].as_str().unwrap(),
                event["level"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(levels, [("retrying", "info"), ("waiting", "debug")]);
}

/// Five reads sent at `t`, two more held by the 5-per-60 s model; the five
/// answers (each `RateLimit-Limit: limit`, `RateLimit-Reset: 10`, the
/// `n`-th request's answer `RateLimit-Remaining: limit - 1 - n`) arrive at
/// `t + 50` in `order`; the next poll's wake-up, and how many then went.
fn wake_after_answers(order: &[usize], limit: u32) -> (u64, usize) {
    let mut c = client();
    let spec = br#"{"type":"table_read","table":"orders","page_size":2}"#;
    let t = T0 + 90_000;
    c.start_json(spec).unwrap();
    let mut sent: Vec<CallId> = c
        .poll(UnixMillis::new(t))
        .transmits
        .iter()
        .map(|x| x.id)
        .collect();
    for _ in 0..6 {
        c.start_json(spec).unwrap();
    }
    sent.extend(c.poll(UnixMillis::new(t)).transmits.iter().map(|x| x.id));
    assert_eq!(sent.len(), 5, "the model admits 5 per window");
    for &n in order {
        let headers = format!(
            "Content-Type: application/json\nRateLimit-Limit: {limit}\nRateLimit-Remaining: {}\nRateLimit-Reset: 10\n",
            limit - 1 - n as u32
        );
        c.respond(
            sent[n],
            200,
            &headers,
            br#"{"data":[{"id":1}]}"#.to_vec(),
            UnixMillis::new(t + 50),
        )
        .unwrap();
    }
    let batch = c.poll(UnixMillis::new(t + 50));
    (
        batch.timeout.map_or(0, |at| at.as_millis() - T0),
        batch.transmits.len(),
    )
}

#[test]
fn answers_out_of_order_keep_the_lowest_remaining_of_their_window() {
    // In order or not, the server said 0 left until 90.05 s + 10 s: the two
    // held reads wake at that reset (plus at most the backoff base of
    // jitter), not at the model's own window end (150 s), and not at once.
    for order in [[0, 1, 2, 3, 4], [0, 1, 3, 4, 2], [4, 3, 2, 1, 0]] {
        let (wake, went) = wake_after_answers(&order, 5);
        assert_eq!(went, 0, "{order:?}: the window is spent");
        assert!(
            (100_050..=101_050).contains(&wake),
            "{order:?}: wakes at {wake}"
        );
    }
}

#[test]
fn a_wait_planned_before_answers_that_free_the_limit_no_longer_holds() {
    // The server allows 10 per window, not the 5 the model assumed: the
    // two held reads go at once instead of at the model's 150 s.
    let (_, went) = wake_after_answers(&[0, 1, 3, 4, 2], 10);
    assert_eq!(went, 2);
}

/// Answers `sent` at `at` with `RateLimit-Limit: 5`, `RateLimit-Reset: 3`
/// and `RateLimit-Remaining` counting down from 4, in send order.
fn answer_short_window(c: &mut Client, sent: &[CallId], at: u64) {
    for (n, id) in sent.iter().enumerate() {
        let headers = format!(
            "Content-Type: application/json\nRateLimit-Limit: 5\nRateLimit-Remaining: {}\nRateLimit-Reset: 3\n",
            4 - n
        );
        c.respond(
            *id,
            200,
            &headers,
            br#"{"data":[]}"#.to_vec(),
            UnixMillis::new(at),
        )
        .unwrap();
    }
}

#[test]
fn a_window_the_server_reports_holds_in_every_window_not_only_the_first() {
    // The server's windows are 3 s long (its resets say so); the model
    // assumes 60 s until told. Two windows of 5 reads each: the 6th read of
    // the second window waits for that window's reported reset (its answers
    // at 3.1 s say 3 s more: 6.1 s), not for the model's 60 s window opened
    // by the second window's first send (63.05 s).
    let mut c = client();
    let spec = br#"{"type":"table_read","table":"orders","page_size":2}"#;
    let t = T0;
    for _ in 0..5 {
        c.start_json(spec).unwrap();
    }
    let first: Vec<CallId> = c
        .poll(UnixMillis::new(t))
        .transmits
        .iter()
        .map(|x| x.id)
        .collect();
    assert_eq!(first.len(), 5);
    answer_short_window(&mut c, &first, t + 50);
    c.poll(UnixMillis::new(t + 50));
    // The first window ends at 3.05 s; five more go then, and a sixth waits.
    for _ in 0..6 {
        c.start_json(spec).unwrap();
    }
    let second: Vec<CallId> = c
        .poll(UnixMillis::new(t + 3_050))
        .transmits
        .iter()
        .map(|x| x.id)
        .collect();
    assert_eq!(second.len(), 5);
    answer_short_window(&mut c, &second, t + 3_100);
    let batch = c.poll(UnixMillis::new(t + 3_100));
    let wake = batch.timeout.unwrap().as_millis() - T0;
    assert!(
        (6_100..=7_100).contains(&wake),
        "the sixth read wakes at {wake} ms"
    );
}

#[test]
fn a_server_whose_resets_slide_never_holds_the_limit() {
    // Every answer says 999 of 1000 left and a reset 60 s after it (a
    // sliding window): 200 reads one second apart each go at once.
    let mut c = client();
    let spec = br#"{"type":"table_read","table":"orders","page_size":2}"#;
    let headers = "Content-Type: application/json\nRateLimit-Limit: 1000\nRateLimit-Remaining: 999\nRateLimit-Reset: 60\n";
    for n in 0..200u64 {
        let now = T0 + n * 1_000;
        let id = c.start_json(spec).unwrap();
        let sent = c.poll(UnixMillis::new(now)).transmits;
        assert_eq!(sent.len(), 1, "read {n} was held");
        c.respond(
            id,
            200,
            headers,
            br#"{"data":[]}"#.to_vec(),
            UnixMillis::new(now + 10),
        )
        .unwrap();
        c.poll(UnixMillis::new(now + 10));
    }
}
