//! The Rust side of the overhead measurement (bindings/bench/run): one
//! throttle `plan` + `interpret` round trip, called on acd-core directly and
//! through acd-ffi's Rust API (the type conversions without a foreign
//! language), and one driver cycle on acd-core (start a read, `poll_transmit`,
//! `handle` a 2-record page, drain the events) — the same cycle the Python
//! bench times. Prints nanoseconds per round trip or cycle.
//!
//! `cargo run --release -p acd-ffi --example overhead -- [iterations] [core|ffi]`
//! (with `core` or `ffi`, only that loop runs, once and without warm-up: for
//! counting instructions with callgrind at two sizes).

use acd_core::client::{
    build_request, interpret, ClientConfig, ClientCredential, HttpResponse, KeyStream, RequestSpec,
    Throttle,
};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

const NOW: u64 = 1_700_000_000_000;
const BODY: &str = r#"{"data":[{"id":1,"name":"first"},{"id":2,"name":"second"}]}"#;

fn core_round_trips(iterations: u32) -> Result<f64, String> {
    let config = ClientConfig::default().with_credential(ClientCredential::api_key(
        "main",
        "acd_live_demo_ada",
        "ada",
    ));
    let request = build_request(
        &config,
        &RequestSpec::list_table_records("orders"),
        &mut KeyStream::from_seed(1),
    )
    .map_err(|e| e.to_string())?;
    let operation = config
        .catalogue
        .get(&request.operation_id)
        .ok_or("listTableRecords is in the catalogue")?;
    let throttle = Throttle::new();
    let response = HttpResponse::new(200, BODY)
        .with_header("Content-Type", "application/json")
        .with_header("RateLimit-Limit", "5")
        .with_header("RateLimit-Remaining", "4")
        .with_header("RateLimit-Reset", "60");
    let started = Instant::now();
    for _ in 0..iterations {
        black_box(throttle.plan(black_box(&request), NOW));
        let _ = black_box(interpret(operation, black_box(&response)));
    }
    Ok(started.elapsed().as_nanos() as f64 / f64::from(iterations))
}

fn ffi_round_trips(iterations: u32) -> Result<f64, String> {
    use acd_ffi::client::{Client, ClientConfig, Throttle};
    use acd_ffi::client_types::{spec_list_table_records, HttpResponse};
    use acd_ffi::gate_types::{CredentialKind, ResponseHeader};
    let config = ClientConfig::new().with_credential(
        "main".into(),
        CredentialKind::ApiKey,
        "acd_live_demo_ada".into(),
        "ada".into(),
    );
    let client = Client::new(config).map_err(|e| e.to_string())?;
    let request = client
        .build(spec_list_table_records("orders".into()))
        .map_err(|e| e.to_string())?;
    let header = |name: &str, value: &str| ResponseHeader {
        name: name.into(),
        value: value.into(),
    };
    let response = HttpResponse {
        status: 200,
        headers: vec![
            header("Content-Type", "application/json"),
            header("RateLimit-Limit", "5"),
            header("RateLimit-Remaining", "4"),
            header("RateLimit-Reset", "60"),
        ],
        body: BODY.as_bytes().to_vec(),
    };
    let now = i64::try_from(NOW).map_err(|e| e.to_string())?;
    let throttle = Throttle::new();
    let started = Instant::now();
    for _ in 0..iterations {
        let _ = black_box(throttle.plan(Arc::clone(&request), now));
        black_box(client.interpret(Arc::clone(&request), black_box(response.clone())));
    }
    Ok(started.elapsed().as_nanos() as f64 / f64::from(iterations))
}

fn core_driver_cycles(iterations: u32) -> Result<f64, String> {
    use acd_core::client::{Client, Entropy, Outcome};
    let mut config = ClientConfig::default().with_credential(ClientCredential::api_key(
        "main",
        "acd_live_demo_ada",
        "ada",
    ));
    config.seed = Some(1);
    let mut client = Client::new(config, Entropy::from_seed(1)).map_err(|e| e.to_string())?;
    let response = HttpResponse::new(200, BODY)
        .with_header("Content-Type", "application/json")
        .with_header("RateLimit-Limit", "5")
        .with_header("RateLimit-Remaining", "4")
        .with_header("RateLimit-Reset", "60");
    let started = Instant::now();
    for i in 0..u64::from(iterations) {
        // A minute apart: the per-user window (5 reads per 60 s) is fresh.
        let now = NOW + i * 60_000;
        client
            .start(RequestSpec::list_table_records("orders"))
            .map_err(|e| e.to_string())?;
        let transmit = client.poll_transmit(now).ok_or("a request to send")?;
        client
            .handle(transmit.id, Outcome::Response(response.clone()), now)
            .map_err(|e| e.to_string())?;
        while let Some(event) = client.poll_event() {
            black_box(event);
        }
    }
    Ok(started.elapsed().as_nanos() as f64 / f64::from(iterations))
}

fn main() -> Result<(), String> {
    let iterations: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(200_000);
    match std::env::args().nth(2).as_deref() {
        Some("core") => return core_round_trips(iterations).map(drop),
        Some("ffi") => return ffi_round_trips(iterations).map(drop),
        Some("driver") => return core_driver_cycles(iterations).map(drop),
        _ => {}
    }
    core_round_trips(iterations / 10)?; // warm up
    let core = core_round_trips(iterations)?;
    let ffi = ffi_round_trips(iterations)?;
    println!("rust core: {core:.0} ns per plan+interpret");
    println!("rust acd-ffi API (no foreign call): {ffi:.0} ns per plan+interpret");
    core_driver_cycles(iterations / 10)?; // warm up
    let driver = core_driver_cycles(iterations)?;
    println!("rust core driver: {driver:.0} ns per driver cycle");
    Ok(())
}
