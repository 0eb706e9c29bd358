//! The sandbox's `Prefer` header parser (`--faults`) on arbitrary header
//! values (each input line is one `Prefer` field), then the plan for a
//! request to the first line's path: every preference read stays within the
//! sandbox's bounds, and anything it refuses is refused with a sentence.
#![no_main]

use acd_sandbox::faults::prefer::{parse_prefer, Preferences, MAX_EXAMPLE_NAME};
use acd_sandbox::faults::{Faults, FaultsConfig, MAX_LATENCY_MS, MAX_RETRY_AFTER};
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

/// Faults with one example and an operation that declares 200 and 429.
static FAULTS: LazyLock<Option<Faults>> = LazyLock::new(|| {
    let config: FaultsConfig = serde_json::from_value(serde_json::json!({
        "examples": [{"name": "empty", "body": {"data": []}, "path": "/api/v1/tables/*"}]
    }))
    .ok()?;
    let document = serde_json::json!({"paths": {"/api/v1/tables/{id}": {"get": {
        "operationId": "listTableRecords",
        "responses": {"200": {"content": {"application/json": {"example": {"data": []}}}},
                      "429": {}}}}}});
    Faults::new(&config, &document).ok()
});

fn check(asked: &Preferences) {
    assert!(asked.code.is_none_or(|code| (100..=599).contains(&code)));
    assert!(asked.retry_after.is_none_or(|s| s <= MAX_RETRY_AFTER));
    assert!(asked.latency_ms.is_none_or(|ms| ms <= MAX_LATENCY_MS));
    assert!(asked
        .example
        .as_ref()
        .is_none_or(|name| !name.is_empty() && name.len() <= MAX_EXAMPLE_NAME));
    assert!(asked.retry_after.is_none() || asked.code.is_some());
}

fuzz_target!(|bytes: &[u8]| {
    let fields: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    match parse_prefer(fields.iter().copied()) {
        Ok(asked) => check(&asked),
        Err(problem) => assert!(!problem.to_string().is_empty()),
    }
    let Some(faults) = FAULTS.as_ref() else {
        return;
    };
    let path = String::from_utf8_lossy(fields.first().copied().unwrap_or_default());
    for path in ["/api/v1/tables/orders", path.as_ref()] {
        match faults.choose("GET", path, fields.iter().copied()) {
            Ok(_) => {}
            Err(problem) => assert!(!problem.to_string().is_empty()),
        }
    }
});
