//! # acd-core
//!
//! The sans-IO engine of the Agent and Connected-Data API. Every rule of the
//! API lives here as a pure state machine:
//!
//! * [`model`]: the API as data — operations, query parameters and their
//!   validators, the `ApiIndex` document, the `Error` body, credentials.
//! * [`gate`]: the server role — one decision per request (route,
//!   credential, authentication, scope, rate limits, validation, resource,
//!   response bytes and headers).
//! * [`limit`]: rate-limit bookkeeping behind the [`limit::RateLimiter`] seam.
//! * [`client`]: the client role — requests, responses, proactive
//!   throttling, retry planning, pagers and run polling.
//! * [`records`]: one record-serving semantics (ordering, `after`,
//!   filters, paging) for every server built on the gate.
//! * [`testing`]: a test server — a dataset (tables, connections, runs
//!   with a lifecycle) served through a real gate in virtual time, with
//!   latency and injected faults.
//! * [`sim`]: a virtual-time harness that runs client instances against a
//!   real gate, with injected failures and checked invariants.
//! * [`openapi`]: the OpenAPI 3.1 document of what a gate serves, generated
//!   from the same catalogue the gate routes with.
//!
//! Nothing in this crate opens a socket, reads a clock or sleeps: time is
//! always an argument, in Unix milliseconds ([`UnixMillis`]).
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation
)]
// Unit tests may index and do plain arithmetic: a panic there is a failed test.
#![cfg_attr(
    test,
    allow(
        clippy::arithmetic_side_effects,
        clippy::indexing_slicing,
        clippy::cast_possible_truncation
    )
)]

#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "gate")]
pub mod gate;
pub mod http_date;
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::cast_possible_truncation,
    reason = "checked in the limiter's own module lints"
)]
pub mod limit;
pub mod model;
#[cfg(feature = "gate")]
pub mod openapi;
pub mod records;
#[cfg(feature = "sim")]
pub mod sim;
#[cfg(all(feature = "gate", feature = "client"))]
pub mod testing;
mod time;
#[cfg(feature = "webhooks")]
pub mod webhooks;

pub use time::{ceil_seconds, Seconds, UnixMillis, MILLIS_PER_SECOND};
