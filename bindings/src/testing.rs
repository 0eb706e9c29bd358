//! What `acd.testing` needs besides the test server: [`simulate_json`], the
//! whole client × gate simulation in virtual time.

use crate::AcdError;

/// Runs the core's client × gate simulation in virtual time: a `SimConfig`
/// as JSON (every member optional) in, the `SimReport` as JSON out (requests,
/// 429s, retries, elapsed virtual ms, completion, violations, the trace).
#[uniffi::export]
pub fn simulate_json(config: String) -> Result<String, AcdError> {
    acd_core::sim::run_json(&config).map_err(|error| AcdError::Config(error.to_string()))
}
