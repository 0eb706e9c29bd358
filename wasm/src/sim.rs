//! The simulation for JavaScript: `simulate(configJson)` runs client
//! instances against a real gate in virtual time (acd-core's `sim`) and
//! returns the report's JSON text (`js/gate.js` parses it once).

use crate::error::config_failure;
use wasm_bindgen::prelude::*;

/// Runs a simulation of `config` (a `SimConfig`'s JSON, snake_case); the
/// report's JSON. Throws `AcdConfigError` when the configuration is refused.
#[wasm_bindgen(js_name = simulateJson, skip_typescript)]
pub fn simulate_json(config: &str) -> Result<String, JsValue> {
    acd_core::sim::run_json(config).map_err(|error| config_failure(error.to_string()).into())
}
