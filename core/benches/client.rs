//! One client round of bookkeeping, measured: `plan` for a table-page
//! request, then `interpret` of a 100-record page (raw records, one copy).
//!
//! `cargo bench -p acd-core --bench client`

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use acd_core::client::{Client, ClientConfig, ClientCredential, HttpResponse, RequestSpec};
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

fn plan_and_interpret(c: &mut Criterion) {
    let config = ClientConfig::default().with_credential(ClientCredential::api_key(
        "main",
        "acd_live_demo_ada",
        "ada",
    ));
    let mut client = Client::new(config).expect("valid configuration");
    let mut request = client
        .build(&RequestSpec::list_table_records("orders"))
        .expect("valid request");
    let now = 1_700_000_000_000;
    // One earlier send: both limits of the request have a model, as they do
    // from the second request on.
    client.on_sent(&mut request, now - 1_000);
    let response = HttpResponse::new(200, page(100))
        .header("RateLimit-Limit", "5")
        .header("RateLimit-Remaining", "4")
        .header("RateLimit-Reset", "60");
    c.bench_function("plan + interpret (100-record table page)", |b| {
        b.iter(|| {
            let plan = client.plan(black_box(&request), black_box(now));
            let page = client.interpret(black_box(&request), black_box(&response));
            black_box((plan, page))
        })
    });
    c.bench_function("plan", |b| {
        b.iter(|| black_box(client.plan(black_box(&request), black_box(now))))
    });
}

criterion_group!(benches, plan_and_interpret);
criterion_main!(benches);
