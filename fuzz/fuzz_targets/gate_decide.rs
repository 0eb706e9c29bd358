//! The gate's `decide` on arbitrary request bytes: request line
//! `METHOD TARGET [NOW_MS [CLIENT_IP]]`, header lines, then the payload an
//! admitted request is answered with. The same request is decided three
//! times (limits count) by one demo gate, built once for the whole run; its
//! limits are emptied before each input, so every input starts afresh.
#![no_main]

use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, ResourceAnswer};
use acd_fuzz::FreshLimits;
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, LazyLock};

/// The demo gate and its limits, built on first use.
static GATE: LazyLock<(Gate, Arc<FreshLimits>)> = LazyLock::new(|| {
    let limits = Arc::new(FreshLimits::new());
    let gate = Gate::new(
        GateConfig::default(),
        Arc::new(acd_core::gate::demo::credentials()),
        limits.clone(),
    )
    .unwrap_or_else(|error| panic!("the default demo gate must build: {error}"));
    (gate, limits)
});

fuzz_target!(|bytes: &[u8]| {
    let message = acd_fuzz::message(bytes);
    let mut parts = message.first.splitn(4, |&b| b == b' ');
    let method = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let target = parts.next().unwrap_or_default().to_vec();
    let now = parts
        .next()
        .and_then(acd_fuzz::decimal)
        .unwrap_or(1_700_000_000_000);
    let client_ip = parts.next().map_or("203.0.113.7".to_owned(), |ip| {
        String::from_utf8_lossy(ip).into_owned()
    });
    let (gate, limits) = &*GATE;
    limits.reset();
    let request = GateRequest {
        method,
        target,
        headers: message
            .headers
            .iter()
            .map(|(name, value)| (String::from_utf8_lossy(name).into_owned(), value.to_vec()))
            .collect(),
        client_ip,
    };
    for step in 0..3u64 {
        let response = match gate.decide(&request, now.saturating_add(step)) {
            Decision::Reply(response) => response,
            Decision::FetchResource(admitted) => {
                admitted.respond(ResourceAnswer::Found(message.body.to_vec()))
            }
        };
        assert!(
            (100..=599).contains(&response.status),
            "status {}",
            response.status
        );
    }
});
