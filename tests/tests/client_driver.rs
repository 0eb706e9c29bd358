//! The client driver step by step, with hand-made responses: single calls
//! (retries, give-ups, budget), pagers (modes, short pages, keyset errors,
//! validation before I/O), run pollers (deadline, malformed runs), waits,
//! cancellation, misuse, and the event order every call keeps.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{
    CallId, CallSpec, Client, ClientConfig, ClientCredential, ClientError, Entropy, ErrorCategory,
    Event, GiveUpReason, HttpResponse, LimitInfo, LimitOrigin, Outcome, PagingMode, PollOptions,
    RequestSpec, TablePagerOptions, Transmit, WaitReason, MAX_MODELS,
};
use acd_core::gate::demo::ADA_KEY;
use acd_core::model::Catalogue;
use acd_core::{Seconds, UnixMillis};
use acd_tests::client_support::{self, events, respond, NOW};

fn client() -> Client {
    client_support::client().expect("a valid configuration")
}

fn send(client: &mut Client, now: u64) -> Transmit {
    client_support::send(client, now).expect("a request to send")
}

#[test]
fn a_call_waits_for_retry_after_then_succeeds_and_refunds_the_budget() {
    let mut client = client();
    let id = client.start(RequestSpec::list_table_records("t")).unwrap();
    assert_eq!(id.to_string(), "call-1");
    assert_eq!(
        client.poll_timeout(),
        Some(UnixMillis::ZERO),
        "a new call is due at once"
    );
    let first = send(&mut client, NOW);
    assert_eq!(first.id, id);
    assert_eq!(client.poll_transmit(NOW), None, "one attempt in flight");
    assert_eq!(
        client.poll_timeout(),
        None,
        "nothing waits: the call awaits its outcome"
    );
    let throttled = Outcome::Response(
        HttpResponse::new(429, r#"{"detail":"slow down","status":429}"#)
            .with_header("RateLimit-Limit", "5")
            .with_header("RateLimit-Remaining", "0")
            .with_header("RateLimit-Reset", "10")
            .with_header("Retry-After", "10"),
    );
    client.handle(id, throttled, NOW + 20).unwrap();
    let waits = events(&mut client);
    let [(
        retry_call,
        Event::Retrying {
            attempt: 2,
            max_attempts: 5,
            at,
            status: Some(429),
            failure: None,
            message,
        },
    ), (
        call,
        Event::Waiting {
            until,
            limit,
            reason,
            message: wait_message,
        },
    )] = waits.as_slice()
    else {
        panic!("a retry, then one wait, got {waits:?}")
    };
    assert_eq!((*retry_call, *call), (id, id));
    assert_eq!(at, until, "the retry goes when the wait ends");
    assert!(
        message.starts_with(
            "listTableRecords: attempt 1 of 5 was answered with status 429; attempt 2 goes in "
        ),
        "{message}"
    );
    assert_eq!(*reason, WaitReason::RetryAfter);
    // Retry-After (10 s from the answer) plus the first retry's backoff (up to 1 s).
    assert!(
        (NOW + 10_020..=NOW + 11_020).contains(&until.as_millis()),
        "{until}"
    );
    assert_eq!(
        limit.as_ref(),
        Some(&LimitInfo {
            name: "user_table_reads".into(),
            requests: 5,
            window_seconds: Seconds::new(60),
            // The headers gave the count (5), not the window: the window
            // shown is the catalogue's.
            origin: LimitOrigin::ServerCount,
        })
    );
    assert!(
        wait_message.ends_with(
            " as the server asked (Retry-After) for limit user_table_reads \
             (5 per window, as the server announced)"
        ),
        "{wait_message}"
    );
    let until = until.as_millis();
    assert_eq!(client.budget().available(), 499);
    assert_eq!(client.poll_transmit(NOW + 5_000), None);
    assert_eq!(client.poll_timeout(), Some(UnixMillis::new(until)));
    assert!(events(&mut client).is_empty(), "a wait is announced once");
    let retry = send(&mut client, until);
    assert_eq!(retry.request, first.request, "the same wire request again");
    client
        .handle(id, respond(200, r#"{"data":[]}"#), until + 20)
        .unwrap();
    let done = events(&mut client);
    let [(_, Event::Response { response: page, .. }), (_, Event::Done)] = done.as_slice() else {
        panic!("the response then done, got {done:?}")
    };
    assert_eq!(page.records().map(<[_]>::len), Some(0));
    assert_eq!(
        client.budget().available(),
        500,
        "the retry's cost came back"
    );
    assert!(client.is_idle());
    assert_eq!(client.poll_timeout(), None);
}

#[test]
fn a_404_is_final_and_five_503s_exhaust_the_attempts() {
    let mut client = client();
    let id = client.start(RequestSpec::list_table_records("t")).unwrap();
    send(&mut client, NOW);
    client
        .handle(id, respond(404, r#"{"detail":"no","status":404}"#), NOW)
        .unwrap();
    let got = events(&mut client);
    let [(_, Event::Failed(ClientError::Api { status: 404, .. }))] = got.as_slice() else {
        panic!("the API error itself, got {got:?}")
    };

    let id = client
        .start(RequestSpec::list_connection_records("c", "e"))
        .unwrap();
    let mut now = NOW;
    let mut sends = 0;
    let failure = loop {
        match client.poll_transmit(now) {
            Some(transmit) => {
                sends += 1;
                client
                    .handle(
                        transmit.id,
                        respond(503, r#"{"detail":"down","status":503}"#),
                        now,
                    )
                    .unwrap();
            }
            None => now = u64::from(client.poll_timeout().expect("a retry waits")),
        }
        if let Some(error) = events(&mut client).into_iter().find_map(|(_, e)| match e {
            Event::Failed(error) => Some(error),
            _ => None,
        }) {
            break error;
        }
    };
    let ClientError::GaveUp {
        reason,
        attempts,
        last,
    } = failure
    else {
        panic!("a give-up, got {failure:?}")
    };
    assert_eq!((sends, attempts), (5, 5));
    assert_eq!(reason, GiveUpReason::MaxAttempts { attempts: 5 });
    assert!(matches!(*last, ClientError::Api { status: 503, .. }));
    assert_eq!(client.budget().available(), 500 - 4 * 5);
    assert!(
        client.handle(id, respond(200, "{}"), now).is_err(),
        "the call is over"
    );
}

#[test]
fn an_unreasonable_retry_after_gives_up_at_once_with_the_servers_time() {
    let mut client = client();
    let id = client.start(RequestSpec::list_table_records("t")).unwrap();
    send(&mut client, NOW);
    let outcome = Outcome::Response(
        HttpResponse::new(429, r#"{"detail":"later","status":429}"#)
            .with_header("Retry-After", "3600"),
    );
    client.handle(id, outcome, NOW).unwrap();
    let got = events(&mut client);
    let [(_, Event::Failed(error))] = got.as_slice() else {
        panic!("a give-up, got {got:?}")
    };
    assert!(
        error
            .to_string()
            .contains("retry at 2023-11-14T23:13:20Z (1 h from now)"),
        "{error}"
    );
    assert_eq!(error.retry_at(), Some(UnixMillis::new(NOW + 3_600_000)));
}

#[test]
fn a_real_429_that_ends_the_call_carries_its_retry_time() {
    let mut client = client();
    let spec = CallSpec::request(RequestSpec::list_table_records("t")).with_options(
        acd_core::client::CallOptions {
            max_attempts: Some(1),
            ..Default::default()
        },
    );
    let id = client.start(spec).unwrap();
    send(&mut client, NOW);
    let outcome = Outcome::Response(
        HttpResponse::new(429, r#"{"detail":"later","status":429}"#)
            .with_header("Retry-After", "2"),
    );
    client.handle(id, outcome, NOW).unwrap();
    let got = events(&mut client);
    let [(_, Event::Failed(error))] = got.as_slice() else {
        panic!("a give-up, got {got:?}")
    };
    assert_eq!(error.category(), ErrorCategory::RateLimit);
    let flat: serde_json::Value =
        serde_json::from_str(&acd_core::client::ErrorJson(error).to_json()).unwrap();
    assert_eq!(flat["retry_at_ms"], NOW + 2000);
    assert_eq!(flat["status"], 429);
    assert_eq!(flat["sent"], true);
    assert_eq!(
        flat["body"],
        serde_json::json!({"detail": "later", "status": 429})
    );
}

#[test]
fn misuse_is_an_error_and_never_a_panic() {
    let mut client = client();
    assert_eq!(
        client.handle(CallId(42), respond(200, "{}"), NOW),
        Err(ClientError::UnknownCall { call: 42 })
    );
    let id = client.start(RequestSpec::list_table_records("t")).unwrap();
    let error = client.handle(id, respond(200, "{}"), NOW).unwrap_err();
    assert_eq!(error, ClientError::NothingInFlight { call: 1 });
    assert!(error
        .to_string()
        .starts_with("call-1 has no request in flight"));
}

#[test]
fn a_cancelled_call_emits_nothing_more_and_its_late_outcome_is_accepted() {
    let mut client = client();
    let id = client.start(RequestSpec::list_table_records("t")).unwrap();
    send(&mut client, NOW);
    client.cancel(id);
    assert!(client.is_idle());
    client
        .handle(id, respond(200, r#"{"data":[]}"#), NOW + 10)
        .unwrap();
    assert!(events(&mut client).is_empty());
    assert_eq!(
        client.throttle().models().map(|m| m.in_flight).sum::<u32>(),
        0,
        "the late outcome still settled the throttle"
    );
}

#[test]
fn pagers_choose_keyset_only_for_a_unique_column_ascending() {
    let mode = |order_by: Option<&str>, descending, unique_order| {
        TablePagerOptions {
            order_by: order_by.map(str::to_owned),
            descending,
            unique_order,
            ..TablePagerOptions::default()
        }
        .mode()
    };
    assert_eq!(mode(Some("id"), false, true), PagingMode::Keyset);
    assert_eq!(
        mode(Some("id"), false, false),
        PagingMode::Offset,
        "default: offsets"
    );
    assert_eq!(mode(Some("id"), true, true), PagingMode::Offset);
    assert_eq!(mode(None, false, true), PagingMode::Offset);
    assert!(!TablePagerOptions::default().unique_order);
}

#[test]
fn a_pager_with_a_bad_page_size_fails_before_sending_anything() {
    let mut client = client();
    let error = client
        .start(CallSpec::table_pages(
            "t",
            TablePagerOptions {
                page_size: 0,
                ..TablePagerOptions::default()
            },
        ))
        .unwrap_err();
    assert!(matches!(error, ClientError::InvalidParams { .. }));
    assert!(client.is_idle());
    assert_eq!(client.poll_transmit(NOW), None);
}

#[test]
fn an_offset_pager_numbers_its_pages_and_stops_on_a_short_one() {
    let mut client = client();
    let options = TablePagerOptions {
        page_size: 2,
        order_by: Some("status".into()),
        ..TablePagerOptions::default()
    };
    let id = client.start(CallSpec::table_pages("t", options)).unwrap();
    let first = send(&mut client, NOW);
    assert!(first
        .request
        .url
        .ends_with("/tables/t?order_by=status&limit=2&offset=0"));
    client
        .handle(
            id,
            respond(200, r#"{"data":[{"status":"a"},{"status":"a"}]}"#),
            NOW,
        )
        .unwrap();
    let second = send(&mut client, NOW + 1);
    assert!(second
        .request
        .url
        .ends_with("?order_by=status&limit=2&offset=2"));
    client
        .handle(id, respond(200, r#"{"data":[{"status":"a"}]}"#), NOW + 2)
        .unwrap();
    let got: Vec<Event> = events(&mut client).into_iter().map(|(_, e)| e).collect();
    let pages: Vec<(u64, bool, usize)> = got
        .iter()
        .filter_map(|e| match e {
            Event::Page {
                records,
                page,
                last,
            } => Some((*page, *last, records.len())),
            _ => None,
        })
        .collect();
    assert_eq!(pages, [(1, false, 2), (2, true, 1)]);
    assert_eq!(got.last(), Some(&Event::Done));
}

#[test]
fn a_keyset_pager_needs_the_order_value_in_the_last_record() {
    let mut client = client();
    let options = TablePagerOptions {
        page_size: 2,
        order_by: Some("name".into()),
        unique_order: true,
        ..TablePagerOptions::default()
    };
    let id = client.start(CallSpec::table_pages("t", options)).unwrap();
    assert!(send(&mut client, NOW)
        .request
        .url
        .ends_with("?order_by=name&limit=2"));
    client
        .handle(
            id,
            respond(200, r#"{"data":[{"name":"a"},{"name":"b"}]}"#),
            NOW,
        )
        .unwrap();
    assert!(send(&mut client, NOW)
        .request
        .url
        .ends_with("?order_by=name&limit=2&after=b"));
    client
        .handle(
            id,
            respond(200, r#"{"data":[{"name":"c"},{"name":null}]}"#),
            NOW,
        )
        .unwrap();
    let got = events(&mut client);
    let [(
        _,
        Event::Page {
            page: 1,
            last: false,
            ..
        },
    ), (
        _,
        Event::Failed(ClientError::KeysetValueMissing {
            column,
            position: 1,
        }),
    )] = got.as_slice()
    else {
        panic!("a page then a keyset error, got {got:?}")
    };
    assert_eq!(column, "name");
    assert!(client.is_idle());
}

#[test]
fn a_poller_reports_changes_stops_at_its_deadline_and_refuses_runs_without_a_status() {
    let mut client = client();
    let options = PollOptions {
        deadline_ms: 3_000,
        ..PollOptions::default()
    };
    let id = client.start(CallSpec::run_poll("r1", options)).unwrap();
    let mut now = NOW;
    let mut sends = 0;
    let mut got = Vec::new();
    while !client.is_idle() {
        match client.poll_transmit(now) {
            Some(transmit) => {
                assert!(transmit.request.url.ends_with("/api/v1/runs/r1"));
                sends += 1;
                client
                    .handle(id, respond(200, r#"{"data":{"status":"running"}}"#), now)
                    .unwrap();
            }
            None => now = u64::from(client.poll_timeout().unwrap()),
        }
        got.extend(events(&mut client).into_iter().map(|(_, e)| e));
    }
    assert_eq!(
        sends, 3,
        "polls at about 0, 1 and 2 s; the next would pass 3 s"
    );
    let statuses = got
        .iter()
        .filter(|e| matches!(e, Event::RunStatus { .. }))
        .count();
    assert_eq!(statuses, 1, "an unchanged status is reported once");
    assert!(got.iter().any(|e| matches!(
        e,
        Event::Waiting {
            reason: WaitReason::PollInterval,
            ..
        }
    )));
    let Some(Event::Failed(ClientError::PollDeadline {
        deadline_at,
        last_status,
    })) = got.last()
    else {
        panic!("the deadline, got {got:?}")
    };
    assert_eq!(
        (*deadline_at, last_status.as_str()),
        (UnixMillis::new(NOW + 3_000), "running")
    );
    assert_eq!(
        client.budget().available(),
        500,
        "successful polls spend nothing"
    );

    let id = client
        .start(CallSpec::run_poll("r2", PollOptions::default()))
        .unwrap();
    send(&mut client, now);
    client
        .handle(id, respond(200, r#"{"data":{"state":"done"}}"#), now)
        .unwrap();
    let got = events(&mut client);
    let [(_, Event::Failed(ClientError::Protocol { .. }))] = got.as_slice() else {
        panic!("a protocol error, got {got:?}")
    };
}

#[test]
fn the_default_catalogue_polls_runs_without_a_hand_built_entry() {
    let plain =
        ClientConfig::default().with_credential(ClientCredential::api_key("m", ADA_KEY, "ada"));
    let mut client = Client::new(plain, Entropy::from_seed(1)).unwrap();
    let id = client
        .start(CallSpec::run_poll("r 1", PollOptions::default()))
        .unwrap();
    let transmit = client.poll_transmit(NOW).expect("the first poll");
    assert_eq!(transmit.id, id);
    assert_eq!(transmit.request.method, "GET");
    assert_eq!(
        transmit.request.url,
        "http://127.0.0.1:8080/api/v1/runs/r%201"
    );
}

#[test]
fn a_poller_needs_get_run_in_a_caller_built_catalogue() {
    let mut plain =
        ClientConfig::default().with_credential(ClientCredential::api_key("m", ADA_KEY, "ada"));
    plain.catalogue = Catalogue::standard();
    let mut client = Client::new(plain, Entropy::from_seed(1)).unwrap();
    assert_eq!(
        client.start(CallSpec::run_poll("r1", PollOptions::default())),
        Err(ClientError::UnknownOperation {
            operation: "getRun".into()
        })
    );
}

#[test]
fn the_throttle_keeps_a_bounded_number_of_idle_models() {
    let mut client = client();
    for agent in 0..3 * MAX_MODELS {
        let spec = RequestSpec::new("createAgentRun")
            .path("agent_id", format!("agent-{agent}"))
            .idempotency_key("k");
        let id = client.start(spec).unwrap();
        // Each send is a minute after the last: earlier windows are over.
        let now = NOW + 60_000 * agent as u64;
        send(&mut client, now);
        client
            .handle(id, respond(200, r#"{"data":{}}"#), now)
            .unwrap();
    }
    assert!(client.throttle().models().count() <= MAX_MODELS + 2);
}
