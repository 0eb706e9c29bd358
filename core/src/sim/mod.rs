//! Deterministic simulation: client instances against a real gate, in
//! virtual time, with no sockets and no sleeping.
//!
//! A [`SimConfig`] names a gate configuration, the data it serves
//! ([`Dataset`]), client instances with their tasks (table and connection
//! pagers, run pollers, bursts of calls) and failures to inject (5xx,
//! connect failures, timeouts). [`run`] drives everything on a virtual clock
//! until every job is over and returns a [`SimReport`]: figures, the full
//! trace, and the invariants it checked —
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

pub mod config;
pub mod dataset;
mod engine;
pub mod report;
mod server;
mod setup;

pub use config::{
    catalogue, run_operation, FaultKind, FaultRule, SimClientConfig, SimConfig, SimTask, GET_RUN,
};
pub use dataset::{sample_records, Dataset, SimRun};
pub use engine::run;
pub use report::{ClientSummary, SimReport, TraceEvent, TraceKind};
