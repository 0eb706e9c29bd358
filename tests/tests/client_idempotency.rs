//! Idempotency through the driver: a POST that may have been delivered is
//! retried only when the client and the operation both opt in to automatic
//! keys; a POST refused with 429 is always retried.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{
    Client, ClientConfig, ClientError, Entropy, Event, GiveUpReason, HttpResponse, Outcome,
    RequestSpec, Transmit, TransportFailure, WaitReason,
};
use acd_core::UnixMillis;
use acd_tests::client_support::{self, config, events, has_create_agent_run, NOW};

fn send(client: &mut Client, now: u64) -> Transmit {
    client_support::send(client, now).expect("a request to send")
}

/// A POST that timed out: what the driver does with it.
fn post_after_timeout(config: ClientConfig) -> (Vec<Event>, Option<Transmit>) {
    let mut client = Client::new(config, Entropy::from_seed(0)).unwrap();
    let id = client
        .start(RequestSpec::new("createAgentRun").path("agent_id", "a1"))
        .unwrap();
    let first = send(&mut client, NOW);
    client
        .handle(
            id,
            Outcome::Transport(TransportFailure::Timeout),
            NOW + 5_000,
        )
        .unwrap();
    let got = events(&mut client).into_iter().map(|(_, e)| e).collect();
    let retry = client
        .poll_timeout()
        .and_then(|at| client.poll_transmit(at));
    if let Some(retry) = &retry {
        assert_eq!(
            retry.request, first.request,
            "the same key on every attempt"
        );
    }
    (got, retry)
}

#[test]
fn a_post_that_may_have_been_delivered_is_retried_only_with_both_opt_ins() {
    assert!(has_create_agent_run(&config()));
    // Default: no key, no retry.
    let (got, retry) = post_after_timeout(config());
    let [Event::Failed(ClientError::GaveUp { reason, .. })] = got.as_slice() else {
        panic!("a give-up, got {got:?}")
    };
    assert_eq!(
        reason,
        &GiveUpReason::UnsafeToRetry {
            method: "POST".into()
        }
    );
    assert!(retry.is_none());
    // The client opts in but the operation does not honour keys: the same.
    let mut keys_on = config();
    keys_on.idempotency_keys = true;
    assert!(post_after_timeout(keys_on.clone()).1.is_none());
    // Both opt in: a key, and the retry carries it.
    keys_on
        .catalogue
        .get_mut("createAgentRun")
        .unwrap()
        .honours_idempotency_key = true;
    let (got, retry) = post_after_timeout(keys_on);
    assert!(
        matches!(
            got.as_slice(),
            [
                Event::Retrying {
                    attempt: 2,
                    max_attempts: 5,
                    status: None,
                    failure: Some(TransportFailure::Timeout),
                    ..
                },
                Event::Waiting {
                    reason: WaitReason::Backoff { attempt: 2 },
                    ..
                }
            ]
        ),
        "{got:?}"
    );
    let retry = retry.expect("retried");
    assert!(retry.request.header("Idempotency-Key").is_some());
}

#[test]
fn a_post_refused_with_429_is_retried_without_a_key() {
    let mut client = client_support::client().unwrap();
    let id = client
        .start(RequestSpec::new("createAgentRun").path("agent_id", "a1"))
        .unwrap();
    send(&mut client, NOW);
    let refused =
        HttpResponse::new(429, r#"{"detail":"slow","status":429}"#).with_header("Retry-After", "2");
    client.handle(id, Outcome::Response(refused), NOW).unwrap();
    let got = events(&mut client);
    assert!(
        matches!(
            got.as_slice(),
            [
                (
                    _,
                    Event::Retrying {
                        attempt: 2,
                        status: Some(429),
                        failure: None,
                        ..
                    }
                ),
                (
                    _,
                    Event::Waiting {
                        reason: WaitReason::RetryAfter,
                        ..
                    }
                )
            ]
        ),
        "{got:?}"
    );
    let at = client.poll_timeout().unwrap();
    assert!(at >= UnixMillis::new(NOW + 2_000));
    assert!(client
        .poll_transmit(at)
        .unwrap()
        .request
        .idempotency_key
        .is_none());
}
