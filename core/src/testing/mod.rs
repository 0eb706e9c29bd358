//! A test server: a dataset served through a real gate, in virtual time.
//!
//! [`TestServer`] is the one "gate as transport" every language tests
//! against and the simulation runs on. It serves tables page by page,
//! connection records and runs with a lifecycle (created by
//! `createAgentRun`, `queued` → `running` → a final state, read by
//! `getRun`), through the gate's own rules (credentials, stacked rate
//! limits with optional quota overrides, validation), at the instant the
//! caller passes. Each answer is due `latency_ms` later; faults come from a
//! Rust hook and from declarative, seeded rules ([`FaultRule`]).
//!
//! * [`config`]: [`TestServerConfig`] and its JSON shape.
//! * [`dataset`]: the data ([`Dataset`], [`RunScript`], [`sample_records`]).
//! * `store`: the data ready to serve, with the runs' state.
//! * [`faults`]: [`Fault`], [`FaultRule`] and the hook's [`FaultContext`].
//! * `exchange`: one exchange at byte level ([`Exchange`] and its JSON).
//! * `server`: [`TestServer`] and its request log ([`LogEntry`]).
//!
//! ```
//! use acd_core::testing::TestServer;
//! use acd_core::UnixMillis;
//! let mut server = TestServer::from_json(br#"{
//!     "tables": {"orders": 3},
//!     "limits": {"user_table_reads": {"requests": 1, "window_ms": 60000}},
//!     "latency_ms": 20, "date_header": false
//! }"#).unwrap();
//! let now = UnixMillis::new(1_700_000_000_000);
//! let key = "X-API-Key: acd_live_demo_ada";
//! let url = "http://127.0.0.1:8080/api/v1/tables/orders?limit=2";
//! let first = server.exchange("GET", url, key, None, now).unwrap();
//! assert_eq!(first.status(), Some(200));
//! assert_eq!(first.deliver_at(), UnixMillis::new(1_700_000_000_020));
//! let second = server.exchange("GET", url, key, None, now).unwrap();
//! assert_eq!(second.status(), Some(429));
//! assert_eq!(server.statuses(), [200, 429]);
//! ```

pub mod config;
pub mod dataset;
mod exchange;
pub mod faults;
mod server;
mod store;

pub use config::{TestServerConfig, DEFAULT_LOG_LIMIT};
pub use dataset::{sample_records, Connections, Dataset, RunScript, MAX_SAMPLE_RECORDS};
pub use exchange::Exchange;
pub use faults::{Fault, FaultContext, FaultHook, FaultRule};
pub use server::{LogEntry, TestServer};
pub use store::MAX_CREATED_RUNS;

/// Why a test server could not be built or could not read a request.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TestServerError {
    /// The configuration is unusable (malformed JSON, an unknown member or
    /// limit name, a bad fault rule, a gate configuration the gate refuses).
    #[error("test server configuration: {problem}")]
    Config {
        /// What is wrong, naming the member.
        problem: String,
    },
    /// The request's pieces cannot be read (URL, header block, method).
    #[error("the test server cannot read the request: {problem}")]
    Request {
        /// What is wrong.
        problem: String,
    },
}
