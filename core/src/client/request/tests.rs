//! Tests of request building: the key stream a built request and a started
//! call share, and the body and redirect rules as the driver applies them.

use super::*;
use crate::client::ClientCredential;
use crate::client::{Client, Entropy, Event, HttpResponse, Outcome};
use crate::client::{ClientConfig, ClientError};
use crate::model::Catalogue;

/// A client whose `createAgentRun` POSTs carry automatic keys.
fn keyed_client() -> Client {
    let mut config = ClientConfig {
        idempotency_keys: true,
        ..ClientConfig::default()
    }
    .with_credential(ClientCredential::api_key(
        "main",
        "acd_live_demo_ada",
        "ada",
    ));
    let mut create = Catalogue::create_agent_run();
    create.honours_idempotency_key = true;
    config.catalogue.add(create).unwrap();
    Client::new(config, Entropy::from_seed(11)).unwrap()
}

fn create_run() -> RequestSpec {
    RequestSpec::new("createAgentRun").path("agent_id", "a1")
}

#[test]
fn built_requests_and_started_calls_share_one_key_stream() {
    let mut client = keyed_client();
    let built = client.build(&create_run()).unwrap();
    let built_key = built.idempotency_key.clone().unwrap();
    let id = client.start(create_run()).unwrap();
    let sent = client.poll_transmit(1_000u64).unwrap();
    assert_eq!(sent.id, id);
    let started_key = sent.request.idempotency_key.unwrap();
    assert_ne!(built_key, started_key);

    // The same seed, started first: the first started key is the one
    // the first build drew above (one stream, in draw order).
    let mut other = keyed_client();
    other.start(create_run()).unwrap();
    let first = other.poll_transmit(1_000u64).unwrap();
    assert_eq!(first.request.idempotency_key.unwrap(), built_key);

    let mut keys: Vec<String> = (0..5)
        .map(|_| {
            client
                .build(&create_run())
                .unwrap()
                .idempotency_key
                .unwrap()
        })
        .collect();
    keys.push(built_key);
    keys.push(started_key);
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), 7);
}

fn failed_with(response: HttpResponse, max_body_bytes: u64) -> ClientError {
    let config = ClientConfig {
        max_body_bytes,
        ..ClientConfig::default()
    }
    .with_credential(ClientCredential::api_key(
        "main",
        "acd_live_demo_ada",
        "ada",
    ));
    let mut client = Client::new(config, Entropy::from_seed(1)).unwrap();
    let id = client
        .start(RequestSpec::list_table_records("orders"))
        .unwrap();
    let sent = client.poll_transmit(1_000u64).unwrap();
    client
        .handle(id, Outcome::Response(response), 1_010u64)
        .unwrap();
    let mut events = std::iter::from_fn(|| client.poll_event());
    let Some((_, Event::Failed(error))) = events.find(|(_, e)| matches!(e, Event::Failed(_)))
    else {
        panic!("the call must fail")
    };
    assert!(client.poll_transmit(2_000_000u64).is_none(), "{sent:?}");
    error
}

#[test]
fn a_redirect_fails_the_call_at_once() {
    let error = failed_with(
        HttpResponse::new(302, "").with_header("Location", "http://127.0.0.1:9/x?token=t"),
        100,
    );
    assert_eq!(
        error,
        ClientError::Redirect {
            status: 302,
            location: Some("http://127.0.0.1:9/x".into())
        }
    );
}

#[test]
fn a_body_above_the_bound_fails_the_call() {
    let body = format!(r#"{{"data":[{}]}}"#, r#"{"id":1},"#.repeat(20));
    let error = failed_with(HttpResponse::new(200, body), 100);
    assert_eq!(
        error,
        ClientError::BodyTooLarge {
            status: 200,
            limit: 100
        }
    );
    assert_eq!(ClientConfig::default().max_body_bytes, 32 * 1024 * 1024);
}
