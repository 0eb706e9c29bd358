//! The client's state machines step by step, with hand-made responses:
//! `Call` (retries, give-ups), `Pager` (modes, short pages, keyset errors,
//! validation before I/O) and `RunPoller` (deadline, malformed runs).

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::throttle::MAX_MODELS;
use acd_core::client::{
    Call, CallEvent, Client, ClientConfig, ClientCredential, ClientError, GiveUpReason,
    HttpResponse, Outcome, Pager, PagerEvent, PagingMode, PollEvent, PollOptions, RequestSpec,
    RunPoller, Step, TablePagerOptions,
};
use acd_core::gate::demo::ADA_KEY;
use acd_core::model::Catalogue;

const NOW: u64 = 1_700_000_000_000;

fn client() -> Client {
    let mut config =
        ClientConfig::default().with_credential(ClientCredential::api_key("main", ADA_KEY, "ada"));
    config
        .catalogue
        .add(acd_core::sim::run_operation())
        .unwrap();
    config.catalogue.add(Catalogue::create_agent_run()).unwrap();
    Client::new(config).unwrap()
}

fn respond(status: u16, body: &str) -> Outcome {
    Outcome::Response(HttpResponse::new(status, body))
}

fn sent(step: Step) -> acd_core::client::ClientRequest {
    match step {
        Step::Send(request) => *request,
        other => panic!("expected a send, got {other:?}"),
    }
}

#[test]
fn a_call_waits_for_retry_after_then_succeeds_and_refunds_the_budget() {
    let mut client = client();
    let mut call = Call::build(&mut client, &RequestSpec::list_table_records("t")).unwrap();
    assert_eq!(sent(call.poll(&mut client, NOW)).attempts, 1);
    assert_eq!(call.poll(&mut client, NOW), Step::AwaitingResponse);
    let throttled = Outcome::Response(
        HttpResponse::new(429, r#"{"detail":"slow down","status":429}"#)
            .header("RateLimit-Limit", "5")
            .header("RateLimit-Remaining", "0")
            .header("RateLimit-Reset", "10")
            .header("Retry-After", "10"),
    );
    let Some(CallEvent::Retrying { at, attempt: 2, .. }) =
        call.handle(&mut client, &throttled, NOW + 20)
    else {
        panic!("a retry")
    };
    assert!((NOW + 10_020..=NOW + 11_020).contains(&at));
    assert_eq!(client.budget().available(), 499);
    assert_eq!(call.poll(&mut client, NOW + 5_000), Step::WaitUntil(at));
    assert_eq!(sent(call.poll(&mut client, at)).attempts, 2);
    let Some(CallEvent::Finished(Ok(page))) =
        call.handle(&mut client, &respond(200, r#"{"data":[]}"#), at + 20)
    else {
        panic!("a page")
    };
    assert_eq!(page.records().map(<[_]>::len), Some(0));
    assert_eq!(
        client.budget().available(),
        500,
        "the retry's cost came back"
    );
    assert!(call.is_finished());
    assert_eq!(call.poll(&mut client, at + 30), Step::Done);
}

#[test]
fn a_404_is_final_and_five_503s_exhaust_the_attempts() {
    let mut client = client();
    let mut call = Call::build(&mut client, &RequestSpec::list_table_records("t")).unwrap();
    call.poll(&mut client, NOW);
    let Some(CallEvent::Finished(Err(ClientError::Api { status: 404, .. }))) = call.handle(
        &mut client,
        &respond(404, r#"{"detail":"no","status":404}"#),
        NOW,
    ) else {
        panic!("the API error itself")
    };

    let mut call =
        Call::build(&mut client, &RequestSpec::list_connection_records("c", "e")).unwrap();
    let mut now = NOW;
    loop {
        match call.poll(&mut client, now) {
            Step::Send(_) => {}
            Step::WaitUntil(at) => {
                now = at;
                continue;
            }
            other => panic!("unexpected {other:?}"),
        }
        match call.handle(
            &mut client,
            &respond(503, r#"{"detail":"down","status":503}"#),
            now,
        ) {
            Some(CallEvent::Retrying { .. }) => {}
            Some(CallEvent::Finished(Err(ClientError::GaveUp {
                reason,
                attempts,
                last,
            }))) => {
                assert_eq!(reason, GiveUpReason::MaxAttempts { attempts: 5 });
                assert_eq!(attempts, 5);
                assert!(matches!(*last, ClientError::Api { status: 503, .. }));
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(client.budget().available(), 500 - 4 * 5);
}

#[test]
fn an_unreasonable_retry_after_gives_up_at_once_with_the_servers_time() {
    let mut client = client();
    let mut call = Call::build(&mut client, &RequestSpec::list_table_records("t")).unwrap();
    call.poll(&mut client, NOW);
    let outcome = Outcome::Response(
        HttpResponse::new(429, r#"{"detail":"later","status":429}"#).header("Retry-After", "3600"),
    );
    let Some(CallEvent::Finished(Err(error))) = call.handle(&mut client, &outcome, NOW) else {
        panic!("a give-up")
    };
    assert!(
        error.to_string().contains("retry at 1700003600000 Unix ms"),
        "{error}"
    );
}

#[test]
fn pagers_choose_keyset_only_when_ascending_by_a_column() {
    let with = |order_by: Option<&str>, descending, offset_only| {
        Pager::table(
            "t",
            TablePagerOptions {
                order_by: order_by.map(str::to_owned),
                descending,
                offset_only,
                ..TablePagerOptions::default()
            },
        )
        .mode()
    };
    assert_eq!(with(Some("id"), false, false), PagingMode::Keyset);
    assert_eq!(with(Some("id"), true, false), PagingMode::Offset);
    assert_eq!(with(Some("id"), false, true), PagingMode::Offset);
    assert_eq!(with(None, false, false), PagingMode::Offset);
}

#[test]
fn a_pager_with_a_bad_page_size_fails_before_sending_anything() {
    let mut client = client();
    let mut pager = Pager::table(
        "t",
        TablePagerOptions {
            page_size: 0,
            ..TablePagerOptions::default()
        },
    );
    assert!(matches!(
        pager.poll(&mut client, NOW),
        Err(ClientError::InvalidParams { .. })
    ));
    assert!(pager.is_finished());
    assert_eq!(pager.poll(&mut client, NOW).unwrap(), Step::Done);
}

#[test]
fn a_keyset_pager_needs_the_order_value_in_the_last_record() {
    let mut client = client();
    let mut pager = Pager::table(
        "t",
        TablePagerOptions {
            page_size: 2,
            order_by: Some("name".into()),
            ..TablePagerOptions::default()
        },
    );
    let request = sent(pager.poll(&mut client, NOW).unwrap());
    assert!(request.url.ends_with("?order_by=name&limit=2"));
    let Some(PagerEvent::Page { last: false, .. }) = pager.handle(
        &mut client,
        &respond(200, r#"{"data":[{"name":"a"},{"name":"b"}]}"#),
        NOW,
    ) else {
        panic!("a page")
    };
    let request = sent(pager.poll(&mut client, NOW).unwrap());
    assert!(request.url.ends_with("?order_by=name&limit=2&after=b"));
    let Some(PagerEvent::Failed(ClientError::KeysetValueMissing {
        column,
        position: 1,
    })) = pager.handle(
        &mut client,
        &respond(200, r#"{"data":[{"name":"c"},{"name":null}]}"#),
        NOW,
    )
    else {
        panic!("a keyset error")
    };
    assert_eq!(column, "name");
    assert!(pager.is_finished());
}

#[test]
fn a_poller_stops_at_its_deadline_and_refuses_runs_without_a_state() {
    let mut client = client();
    let spec = RequestSpec::new("getRun").path("run_id", "r1");
    let options = PollOptions {
        deadline_ms: 3_000,
        ..PollOptions::default()
    };
    let mut poller = RunPoller::new(spec.clone(), options);
    let mut now = NOW;
    let mut states = Vec::new();
    loop {
        match poller.poll(&mut client, now).unwrap() {
            Step::Send(_) => {}
            Step::WaitUntil(at) => {
                now = at;
                continue;
            }
            other => panic!("unexpected {other:?}"),
        }
        match poller.handle(
            &mut client,
            &respond(200, r#"{"data":{"status":"running"}}"#),
            now,
        ) {
            Some(PollEvent::Status {
                state,
                terminal: false,
                ..
            }) => states.push(state),
            Some(PollEvent::DeadlineReached {
                deadline_at,
                last_state,
            }) => {
                assert_eq!(deadline_at, NOW + 3_000);
                assert_eq!(last_state.as_deref(), Some("running"));
                break;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(states.len(), 3);
    assert_eq!(
        client.budget().available(),
        500,
        "successful polls spend nothing"
    );

    let mut poller = RunPoller::new(spec, PollOptions::default());
    poller.poll(&mut client, now).unwrap();
    let Some(PollEvent::Failed(ClientError::Protocol { .. })) = poller.handle(
        &mut client,
        &respond(200, r#"{"data":{"state":"done"}}"#),
        now,
    ) else {
        panic!("a protocol error")
    };
}

#[test]
fn the_throttle_keeps_a_bounded_number_of_idle_models() {
    let mut client = client();
    for agent in 0..3 * MAX_MODELS {
        let spec = RequestSpec::new("createAgentRun")
            .path("agent_id", format!("agent-{agent}"))
            .idempotency_key("k");
        let mut request = client.build(&spec).unwrap();
        // Each send is a minute after the last: earlier windows are over.
        let now = NOW + 60_000 * agent as u64;
        client.on_sent(&mut request, now);
        client.on_outcome(&mut request, &respond(200, r#"{"data":{}}"#), now);
    }
    assert!(client.throttle().models().count() <= MAX_MODELS + 2);
}
