//! Deterministic simulation: client instances against a real gate, in
//! virtual time, with no sockets and no sleeping.
//!
//! A [`SimConfig`] names a gate configuration, the data it serves
//! ([`Dataset`]), client instances with their tasks (table and connection
//! pagers, run pollers, bursts of calls) and failures to inject (5xx,
//! connect failures, timeouts). [`run`] drives each client's driver
//! ([`crate::client::Client`]) on a virtual clock until every call is over and
//! returns a [`SimReport`]: figures, the full trace, the invariants it
//! checked, and (unless [`SimConfig::naive_baseline`] is off) the figures of
//! the same run with naive clients that only honour `Retry-After`, so the
//! throttle's benefit is measured. [`run_json`] takes and returns JSON, for
//! the language bindings. The invariants —
//!
//! * no avoidable 429 (a 429 from a limit no other client instance shares);
//! * no request sent before the time its client planned for it;
//! * retries never cost more than the retry budget holds plus its refunds;
//! * every pager delivers every record exactly once, in order;
//! * every job finishes; the same seed gives the same trace.
//!
//! ```
//! use acd_core::client::{ClientCredential, TablePagerOptions};
//! use acd_core::sim::{self, Dataset, SimClientConfig, SimConfig, SimTask};
//! // 6 pages of 100 rows; table reads are limited to 5 per minute per user.
//! let config = SimConfig {
//!     dataset: Dataset::default().with_table("orders", 550),
//!     ..SimConfig::default()
//! }
//! .client(
//!     SimClientConfig::new("reader", ClientCredential::api_key("main", "acd_live_demo_ada", "ada"))
//!         .task(SimTask::Table { table: "orders".into(), options: TablePagerOptions::default() }),
//! );
//! let report = sim::run(config).unwrap();
//! assert!(report.completed, "{:?}", report.violations);
//! assert!(report.violations.is_empty());
//! assert_eq!(report.responses_429, 0); // the 6th page waited instead
//! assert_eq!(report.requests_sent, 6);
//! assert!(report.elapsed_ms > 0 && report.elapsed_ms <= 61_000);
//! ```

mod config;
mod engine;
mod report;
mod server;
mod setup;

pub use crate::testing::{sample_records, Dataset, RunScript as SimRun};
pub use config::{
    catalogue, FaultKind, FaultRule, SimClientConfig, SimConfig, SimTask, MAX_SIM_CALLS,
    MAX_SIM_EXPECTED_RECORDS,
};
pub use report::{Baseline, ClientSummary, SimReport, TraceEvent, TraceKind};

use crate::client::ClientError;

/// Why a simulation could not run.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// A part of the configuration is unusable.
    #[error("simulation configuration `{field}`: {problem}")]
    Config {
        /// The member.
        field: String,
        /// What is wrong.
        problem: String,
    },
    /// A client could not be built or a call could not start.
    #[error("a simulated client could not start: {0}")]
    Client(#[from] ClientError),
    /// The JSON given to [`run_json`] is not a simulation configuration.
    #[error("the simulation configuration JSON is not valid: {0}")]
    Json(String),
}

/// Runs `config` to completion (or to `max_virtual_ms`) and reports; with
/// `naive_baseline`, also runs it with naive clients and reports their figures.
pub fn run(config: SimConfig) -> Result<SimReport, SimError> {
    config.check_sizes()?;
    let baseline = (config.naive_baseline && !config.naive_clients).then(|| SimConfig {
        naive_clients: true,
        ..config.clone()
    });
    let mut report = engine::run_once(config)?;
    if let Some(naive) = baseline {
        let naive = engine::run_once(naive)?;
        report.baseline = Some(Baseline {
            requests_sent: naive.requests_sent,
            responses_429: naive.responses_429,
            retries: naive.retries,
            elapsed_ms: naive.elapsed_ms,
            completed: naive.completed,
            avoided_429: i64::try_from(naive.responses_429)
                .unwrap_or(i64::MAX)
                .saturating_sub(i64::try_from(report.responses_429).unwrap_or(i64::MAX)),
        });
    }
    Ok(report)
}

/// [`run`] with JSON in and JSON out, for the language bindings: a
/// [`SimConfig`] (every member optional) in, a [`SimReport`] out.
pub fn run_json(config: &str) -> Result<String, SimError> {
    #[cfg(feature = "field-paths")]
    let config: SimConfig =
        serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(config))
            .map_err(|error| SimError::Json(error.to_string()))?;
    #[cfg(not(feature = "field-paths"))]
    let config: SimConfig =
        serde_json::from_str(config).map_err(|error| SimError::Json(error.to_string()))?;
    let report = run(config)?;
    serde_json::to_string(&report).map_err(|error| SimError::Json(error.to_string()))
}
