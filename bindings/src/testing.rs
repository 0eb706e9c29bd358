//! What `acd.testing` needs from the core: [`Dataset`], the simulation's
//! record server (tables, connection entities, runs), so a test transport
//! answers admitted requests exactly as the simulation does; and
//! [`simulate_json`], the whole client × gate simulation in virtual time.

use crate::gate::Admitted;
use crate::gate_types::GateResponse;
use crate::{time, AcdError};
use acd_core::sim::Dataset as CoreDataset;
use std::sync::Arc;

/// Records a test gate serves: the core's `sim::Dataset`, from its JSON
/// (`{"tables": {"orders": [{...}]}, "connections": {...}, "runs": {...}}`).
#[derive(Debug, uniffi::Object)]
pub struct Dataset {
    inner: CoreDataset,
}

#[uniffi::export]
impl Dataset {
    /// A dataset from JSON text; members left out are empty.
    #[uniffi::constructor]
    pub fn from_json(json: Vec<u8>) -> Result<Arc<Self>, AcdError> {
        serde_json::from_slice(&json)
            .map(|inner| Arc::new(Self { inner }))
            .map_err(|error| AcdError::Config(format!("dataset JSON: {error}")))
    }

    /// The response to `admitted` at `now_ms`: a page of records (offset,
    /// limit, `order_by`, direction and `after` applied), a run's status
    /// (`start_ms`: when the runs' clocks started), or 404.
    pub fn respond(
        &self,
        admitted: Arc<Admitted>,
        start_ms: i64,
        now_ms: i64,
    ) -> Result<GateResponse, AcdError> {
        let start = time::to_core("start_ms", start_ms)?;
        let now = time::to_core("now_ms", now_ms)?;
        let answer = self.inner.answer(admitted.core(), start, now);
        Ok(admitted.core().clone().respond(answer).into())
    }
}

/// Runs the core's client × gate simulation in virtual time: a `SimConfig`
/// as JSON (every member optional) in, the `SimReport` as JSON out (requests,
/// 429s, retries, elapsed virtual ms, completion, violations, the trace).
#[uniffi::export]
pub fn simulate_json(config: String) -> Result<String, AcdError> {
    acd_core::sim::run_json(&config).map_err(|error| AcdError::Config(error.to_string()))
}
