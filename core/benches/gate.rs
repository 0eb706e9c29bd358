#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! One full gate decision for an authenticated table read, next to a
//! `serde_json::from_slice` of a 1 KiB object as the yardstick, in one run.
//!
//! `cargo bench -p acd-core --bench gate`

use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, ResourceAnswer};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn one_kib_object() -> Vec<u8> {
    let mut object = serde_json::Map::new();
    let mut index = 0;
    while serde_json::to_vec(&object).map_or(0, |bytes| bytes.len()) < 1_024 {
        object.insert(
            format!("field_{index}"),
            serde_json::json!(format!("value number {index}")),
        );
        index += 1;
    }
    serde_json::to_vec(&object).unwrap_or_default()
}

fn decide_and_respond(gate: &Gate, request: &GateRequest, now: u64, payload: &[u8]) -> u16 {
    match gate.decide(request, now) {
        Decision::Reply(response) => response.status,
        Decision::FetchResource(admitted) => {
            admitted
                .respond(ResourceAnswer::Found(payload.to_vec()))
                .status
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut config = GateConfig::default();
    // Limits large enough that every iteration takes the full 200 path.
    config.limits.credential.requests = u32::MAX;
    if let Some(tables) = config.catalogue.get_mut("listTableRecords") {
        for limit in &mut tables.extra_limits {
            limit.quota.requests = u32::MAX;
        }
    }
    let Ok(gate) = Gate::demo(config) else {
        return;
    };
    let request = GateRequest::get(
        "/api/v1/tables/orders?limit=50&offset=100&order_by=created&direction=asc",
        "203.0.113.7",
    )
    .with_header("X-API-Key", acd_core::gate::demo::ADA_KEY);
    let payload = br#"[{"id":1,"name":"first"},{"id":2,"name":"second"}]"#.to_vec();
    let now = 1_700_000_000_000;
    assert_eq!(decide_and_respond(&gate, &request, now, &payload), 200);

    let object = one_kib_object();
    let mut group = c.benchmark_group("gate");
    group.bench_function("decide_authenticated_table_read", |b| {
        b.iter(|| decide_and_respond(&gate, black_box(&request), now, &payload))
    });
    group.bench_function("yardstick_serde_json_from_slice_1KiB", |b| {
        b.iter(|| {
            serde_json::from_slice::<serde_json::Value>(black_box(&object)).map(|v| v.is_object())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
