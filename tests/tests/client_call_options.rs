//! Per-call options (`CallOptions`): extra headers on every attempt (never
//! one the client sets itself), an explicit idempotency key, a max-attempts
//! override and a timeout over the whole call. Expected values are written
//! by hand from `docs/driver-protocol.md`.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{
    CallOptions, CallSpec, Client, ClientError, ErrorCategory, Event, GiveUpReason, HttpResponse,
    Outcome, RequestSpec, TablePagerOptions,
};
use acd_tests::client_support::{self, events, respond, NOW};

fn client() -> Client {
    client_support::client().unwrap()
}

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

fn with_headers(spec: CallSpec, pairs: &[(&str, &str)]) -> CallSpec {
    spec.with_options(CallOptions {
        headers: headers(pairs),
        ..CallOptions::default()
    })
}

fn unavailable() -> Outcome {
    Outcome::Response(HttpResponse::new(
        503,
        r#"{"detail":"try later","status":503}"#,
    ))
}

#[test]
fn extra_headers_go_on_every_attempt_and_every_page() {
    let mut client = client();
    let spec = CallSpec::table_pages(
        "orders",
        TablePagerOptions {
            page_size: 1,
            ..TablePagerOptions::default()
        },
    );
    let id = client
        .start(with_headers(
            spec,
            &[("Prefer", "code=200"), ("X-Trace", "t-1")],
        ))
        .unwrap();
    let expected = headers(&[
        ("Accept", "application/json"),
        ("X-API-Key", "acd_live_demo_ada"),
        ("Prefer", "code=200"),
        ("X-Trace", "t-1"),
    ]);
    let first = client.poll(NOW).transmits.remove(0);
    assert_eq!(first.request.headers, expected);
    // A 503 is retried: the retry carries them again.
    client.handle(id, unavailable(), NOW + 10).unwrap();
    let at = client.poll(NOW + 10).timeout.unwrap();
    let retry = client.poll(at).transmits.remove(0);
    assert_eq!(retry.request.headers, expected);
    // The next page too.
    client
        .handle(
            id,
            respond(200, r#"{"data":[{"id":1}]}"#),
            at.as_millis() + 5,
        )
        .unwrap();
    let batch = client.poll(at.as_millis() + 5);
    let second = &batch.transmits[0];
    assert!(
        second.request.url.ends_with("?limit=1&offset=1"),
        "{}",
        second.request.url
    );
    assert_eq!(second.request.headers, expected);
}

#[test]
fn headers_the_client_owns_are_refused_before_any_io() {
    for name in [
        "X-API-Key",
        "authorization",
        "Idempotency-Key",
        "Content-Type",
        "Host",
        "content-length",
        "X-Stable-Egress",
    ] {
        let mut client = client();
        let spec = with_headers(
            CallSpec::request(RequestSpec::list_table_records("orders")),
            &[(name, "x")],
        );
        let error = client.start(spec).unwrap_err();
        assert_eq!(error.category(), ErrorCategory::InvalidRequest, "{name}");
        let ClientError::HeaderNotAllowed { header, .. } = &error else {
            panic!("{name}: {error:?}")
        };
        assert_eq!(header, name);
        assert!(
            error
                .to_string()
                .starts_with(&format!("the call's header {name:?} cannot be sent: ")),
            "{error}"
        );
        assert!(client.poll(NOW).transmits.is_empty(), "nothing was sent");
    }
    let mut client = client();
    let error = client
        .start(with_headers(
            CallSpec::request(RequestSpec::list_table_records("orders")),
            &[("X-Note", "a\r\nX-API-Key: stolen")],
        ))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the call's header \"X-Note\" cannot be sent: a header value may not hold control \
         characters or line breaks"
    );
    let error = client
        .start(with_headers(
            CallSpec::request(RequestSpec::list_table_records("orders")),
            &[("Bad Name", "x")],
        ))
        .unwrap_err();
    assert!(
        matches!(error, ClientError::HeaderNotAllowed { .. }),
        "{error:?}"
    );
}

#[test]
fn an_explicit_idempotency_key_makes_a_post_retryable_with_that_key() {
    let mut client = client();
    let spec = CallSpec::request(RequestSpec::new("createAgentRun").path("agent_id", "a1"))
        .with_options(CallOptions {
            idempotency_key: Some("order-42".into()),
            ..CallOptions::default()
        });
    let id = client.start(spec).unwrap();
    let first = client.poll(NOW).transmits.remove(0);
    assert_eq!(first.request.header("Idempotency-Key"), Some("order-42"));
    client.handle(id, unavailable(), NOW + 10).unwrap();
    let got = client.poll(NOW + 10);
    assert!(
        matches!(
            got.events[0].1,
            Event::Retrying {
                attempt: 2,
                status: Some(503),
                ..
            }
        ),
        "{got:?}"
    );
    let retry = client.poll(got.timeout.unwrap()).transmits.remove(0);
    assert_eq!(retry.request.header("Idempotency-Key"), Some("order-42"));

    // A pager's requests are reads: a key is refused.
    let error = client
        .start(
            CallSpec::table_pages("orders", TablePagerOptions::default()).with_options(
                CallOptions {
                    idempotency_key: Some("k".into()),
                    ..CallOptions::default()
                },
            ),
        )
        .unwrap_err();
    assert_eq!(error.category(), ErrorCategory::InvalidRequest);
}

/// Answers every attempt of call `spec` with 503 and counts the attempts.
fn attempts_until_failed(options: CallOptions) -> (u32, ClientError) {
    let mut client = client();
    let spec = CallSpec::request(RequestSpec::list_table_records("orders")).with_options(options);
    let id = client.start(spec).unwrap();
    let mut now = NOW;
    let mut sent = 0;
    loop {
        let batch = client.poll(now);
        for (_, event) in batch.events {
            if let Event::Failed(error) = event {
                return (sent, error);
            }
        }
        if batch.transmits.is_empty() {
            now = batch.timeout.expect("a wait").as_millis();
            continue;
        }
        sent += 1;
        client.handle(id, unavailable(), now + 1).unwrap();
        now += 1;
    }
}

#[test]
fn max_attempts_replaces_the_policy_for_one_call() {
    // The policy allows 5 attempts.
    let (sent, error) = attempts_until_failed(CallOptions::default());
    assert_eq!(sent, 5);
    let (sent, error_two) = attempts_until_failed(CallOptions {
        max_attempts: Some(2),
        ..CallOptions::default()
    });
    assert_eq!(sent, 2);
    let ClientError::GaveUp {
        reason: GiveUpReason::MaxAttempts { attempts: 2 },
        attempts: 2,
        ..
    } = error_two
    else {
        panic!("{error_two:?}")
    };
    assert!(matches!(error, ClientError::GaveUp { attempts: 5, .. }));
    let (sent, _) = attempts_until_failed(CallOptions {
        max_attempts: Some(7),
        ..CallOptions::default()
    });
    assert_eq!(sent, 7);
    let mut client = client();
    let zero = client.start(
        CallSpec::request(RequestSpec::list_table_records("orders")).with_options(CallOptions {
            max_attempts: Some(0),
            ..CallOptions::default()
        }),
    );
    assert_eq!(zero.unwrap_err().category(), ErrorCategory::InvalidRequest);
}

#[test]
fn a_timeout_bounds_the_whole_call_from_its_first_send() {
    let mut client = client();
    let spec =
        CallSpec::request(RequestSpec::list_table_records("orders")).with_options(CallOptions {
            timeout_ms: Some(30_000),
            ..CallOptions::default()
        });
    let id = client.start(spec).unwrap();
    let sent = client.poll(NOW).transmits.remove(0);
    assert_eq!(sent.timeout_at.map(u64::from), Some(NOW + 30_000));
    // A 429 whose Retry-After (40 s) ends past the timeout fails at once.
    let refused = HttpResponse::new(429, r#"{"detail":"slow down","status":429}"#)
        .with_header("Retry-After", "40");
    client
        .handle(id, Outcome::Response(refused), NOW + 100)
        .unwrap();
    let got = events(&mut client);
    let [(_, Event::Failed(error))] = got.as_slice() else {
        panic!("failed at once, got {got:?}")
    };
    assert_eq!(error, &ClientError::CallTimedOut { timeout_ms: 30_000 });
    assert_eq!(error.category(), ErrorCategory::Timeout);
    assert_eq!(
        error.to_string(),
        "the call did not finish within its timeout of 30 s from its first send (waits and \
         retries included); raise the call's timeout to wait longer"
    );
    assert!(client.is_idle());

    // A wait that ends within the timeout is waited out; the retry keeps
    // the call's deadline.
    let mut client = client_support::client().unwrap();
    let spec =
        CallSpec::request(RequestSpec::list_table_records("orders")).with_options(CallOptions {
            timeout_ms: Some(30_000),
            ..CallOptions::default()
        });
    let id = client.start(spec).unwrap();
    client.poll(NOW);
    let refused = HttpResponse::new(429, r#"{"detail":"slow down","status":429}"#)
        .with_header("Retry-After", "2");
    client
        .handle(id, Outcome::Response(refused), NOW + 100)
        .unwrap();
    let wake = client.poll(NOW + 100).timeout.unwrap();
    let retry = client.poll(wake).transmits.remove(0);
    assert_eq!(retry.timeout_at.map(u64::from), Some(NOW + 30_000));
}
