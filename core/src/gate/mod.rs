//! The gate: the server role's sans-IO decision pipeline.
//!
//! One call per request, [`Gate::decide`], in this order (see ARCHITECTURE.md):
//! route → credential → authenticate → authorize → rate limits →
//! validate → (caller's) resource answer → response bytes and headers.
//!
//! * [`GateConfig`] and the index settings ([`IndexSettings`]) it builds the
//!   `ApiIndex` from.
//! * [`GateRequest`] / [`GateResponse`]: plain owned request and response values.
//! * [`PendingLimits`]: step 5 as a value. [`Gate::prepare`] stops before
//!   the limits and hands them over; the caller checks them in any store
//!   (sync or async) and calls [`PendingLimits::resume`]. [`Gate::decide`]
//!   does both with the gate's own limiter.
//! * `route`, `auth`, `validate`, `pipeline`, `pending`, `headers`,
//!   `bodies`: the steps, one file each.
//!
//! ```
//! use acd_core::gate::{Decision, Gate, GateConfig, GateRequest, ResourceAnswer};
//! let gate = Gate::demo(GateConfig::default()).unwrap();
//! let request = GateRequest::get("/api/v1/tables/orders?limit=2", "203.0.113.7")
//!     .with_header("X-API-Key", "acd_live_demo_ada");
//! let response = match gate.decide(&request, 1_700_000_000_000) {
//!     Decision::Reply(response) => response,
//!     Decision::FetchResource(admitted) => {
//!         assert_eq!(admitted.params().limit(), Some(2));
//!         admitted.respond(ResourceAnswer::Found(br#"[{"id":1},{"id":2}]"#.to_vec()))
//!     }
//! };
//! assert_eq!(response.status, 200);
//! assert_eq!(response.body, br#"{"data":[{"id":1},{"id":2}]}"#);
//! assert_eq!(response.header("RateLimit-Remaining"), Some("4"));
//! ```

mod admitted;
mod auth;
mod bodies;
mod config;
pub mod demo;
mod headers;
mod pending;
mod pipeline;
mod request;
mod response;
mod validate;

pub use admitted::{Admitted, ResourceAnswer};
pub use config::{GateConfig, GateConfigError, IndexSettings};
pub use pending::PendingLimits;
pub use pipeline::{Decision, Gate};
pub use request::GateRequest;
pub use response::GateResponse;
