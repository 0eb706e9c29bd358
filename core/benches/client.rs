//! The client role measured: one whole driver round for a table page
//! (`start` → `poll_transmit` → `handle` of a 100-record page → events),
//! and its parts (`Throttle::plan`, `interpret`) for comparison.
//!
//! `cargo bench -p acd-core --bench client`

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use acd_core::client::{
    build_request, interpret, Client, ClientConfig, ClientCredential, Entropy, HttpResponse,
    KeyStream, Outcome, RequestSpec, Throttle,
};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn page(records: usize) -> Vec<u8> {
    let rows: Vec<String> = (0..records)
        .map(|id| {
            format!(
                r#"{{"id":{id},"name":"row-{id:05}","score":{}}}"#,
                id * 7 % 1000
            )
        })
        .collect();
    format!(r#"{{"data":[{}]}}"#, rows.join(",")).into_bytes()
}

fn config() -> ClientConfig {
    ClientConfig {
        seed: Some(1),
        ..ClientConfig::default()
    }
    .with_credential(ClientCredential::api_key(
        "main",
        "acd_live_demo_ada",
        "ada",
    ))
}

fn response() -> HttpResponse {
    HttpResponse::new(200, page(100))
        .with_header("RateLimit-Limit", "5")
        .with_header("RateLimit-Remaining", "4")
        .with_header("RateLimit-Reset", "60")
}

fn driver_round(c: &mut Criterion) {
    let response = response();
    let now = 1_700_000_000_000;
    c.bench_function("driver round (100-record table page)", |b| {
        b.iter_batched(
            || Client::new(config(), Entropy::from_seed(1)).expect("valid configuration"),
            |mut client| {
                let id = client
                    .start(RequestSpec::list_table_records("orders"))
                    .expect("valid request");
                let sent = client.poll_transmit(black_box(now)).expect("sent");
                client
                    .handle(id, Outcome::Response(response.clone()), now + 20)
                    .expect("in flight");
                let mut events = 0;
                while let Some(event) = client.poll_event() {
                    black_box(event);
                    events += 1;
                }
                black_box((sent, events))
            },
            criterion::BatchSize::SmallInput,
        )
    });
}

fn plan_and_interpret(c: &mut Criterion) {
    let config = config();
    let request = build_request(
        &config,
        &RequestSpec::list_table_records("orders"),
        &mut KeyStream::from_seed(1),
    )
    .expect("valid request");
    let operation = config
        .catalogue
        .get(&request.operation_id)
        .expect("in the catalogue")
        .clone();
    let now = 1_700_000_000_000;
    let mut throttle = Throttle::new();
    // One earlier send: both limits of the request have a model, as they do
    // from the second request on.
    throttle.on_sent(&request.limits, now - 1_000);
    let response = response();
    c.bench_function("plan + interpret (100-record table page)", |b| {
        b.iter(|| {
            let plan = throttle.plan(black_box(&request), black_box(now));
            let page = interpret(&operation, black_box(&response));
            black_box((plan, page))
        })
    });
    c.bench_function("plan", |b| {
        b.iter(|| black_box(throttle.plan(black_box(&request), black_box(now))))
    });
}

criterion_group!(benches, driver_round, plan_and_interpret);
criterion_main!(benches);
