//! Randomness of the client role: without a seed, each client's jitter and
//! idempotency keys come from the entropy its edge passes, so two default
//! clients differ; an explicit seed makes them equal (tests, vectors, sim).

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use acd_core::client::{
    Client, ClientConfig, ClientCredential, Entropy, Event, HttpResponse, Outcome, RequestSpec,
};
use acd_core::gate::demo::ADA_KEY;
use acd_core::model::Catalogue;

const NOW: u64 = 1_700_000_000_000;

fn config(seed: Option<u64>) -> ClientConfig {
    let mut create = Catalogue::create_agent_run();
    create.honours_idempotency_key = true;
    let mut config = ClientConfig {
        seed,
        idempotency_keys: true,
        ..ClientConfig::default()
    }
    .with_credential(ClientCredential::api_key("main", ADA_KEY, "ada"));
    config.catalogue.add(create).unwrap();
    config
}

/// The first idempotency key and the first retry's instant of a client.
fn first_key_and_jitter(config: ClientConfig, entropy: Entropy) -> (String, u64) {
    let mut client = Client::new(config, entropy).unwrap();
    let post = client
        .start(RequestSpec::new("createAgentRun").path("agent_id", "a1"))
        .unwrap();
    let sent = client.poll_transmit(NOW).unwrap();
    let key = sent.request.idempotency_key.clone().unwrap();
    client
        .handle(post, Outcome::Response(HttpResponse::new(503, "{}")), NOW)
        .unwrap();
    let Some((_, Event::Retrying { attempt: 2, .. })) = client.poll_event() else {
        panic!("a 503 is retried")
    };
    let Some((_, Event::Waiting { until, .. })) = client.poll_event() else {
        panic!("a 503 is retried after a backoff")
    };
    (key, u64::from(until))
}

#[test]
fn two_default_clients_draw_different_keys_and_jitter() {
    assert_eq!(ClientConfig::default().seed, None, "no seed by default");
    let a = first_key_and_jitter(config(None), Entropy([1; 32]));
    let b = first_key_and_jitter(config(None), Entropy([2; 32]));
    assert_ne!(a.0, b.0, "keys differ");
    assert_ne!(a.1, b.1, "jitter differs");
    // The very key every default client used to send is gone.
    assert_ne!(a.0, "e220a8397b1dcdaf6e789e6aa1b965f4");
    // Same entropy, same draws: the core itself is deterministic.
    assert_eq!(a, first_key_and_jitter(config(None), Entropy([1; 32])));
}

#[test]
fn an_explicit_seed_wins_over_the_entropy() {
    let a = first_key_and_jitter(config(Some(9)), Entropy([1; 32]));
    let b = first_key_and_jitter(config(Some(9)), Entropy([2; 32]));
    assert_eq!(a, b);
    assert_eq!(a, first_key_and_jitter(config(None), Entropy::from_seed(9)));
}

#[test]
fn keys_do_not_follow_from_the_jitter_stream() {
    // Two entropies equal in the jitter bytes (0..8) but not in the key
    // bytes: same jitter, different keys.
    let mut other = [1u8; 32];
    other[20] = 7;
    let a = first_key_and_jitter(config(None), Entropy([1; 32]));
    let b = first_key_and_jitter(config(None), Entropy(other));
    assert_eq!(a.1, b.1);
    assert_ne!(a.0, b.0);
}
