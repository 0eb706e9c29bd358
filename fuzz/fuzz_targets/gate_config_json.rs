//! A gate configuration in JSON (what the sandbox's configuration file is
//! built into): parse it, then build a gate (which checks it and builds its
//! index) and decide one request for the index.
#![no_main]

use acd_core::gate::{Gate, GateConfig, GateRequest};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(config) = serde_json::from_slice::<GateConfig>(bytes) else {
        return;
    };
    let target = format!("/api/{}", config.version);
    if let Ok(gate) = Gate::demo(config) {
        let _ = gate.decide(&GateRequest::get(target, "203.0.113.7"), 1_700_000_000_000);
    }
});
